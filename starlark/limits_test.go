package starlark

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A loaded module that is a named pipe, and one over the 4 MiB limit, are
// refused at once with their names; so is a configuration file that is a
// named pipe.
func TestStarFilesMustBeRegularAndSmall(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.star"), 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo-config.star"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := "X = 1\n" + strings.Repeat("#", 5<<20) + "\n"
	for name, src := range map[string]string{
		"big.star":       big,
		"load-pipe.star": "load(\"pipe.star\", \"X\")\n",
		"load-big.star":  "load(\"big.star\", \"X\")\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := interp(t, dir)
	for file, want := range map[string]string{
		"load-pipe.star":   "cannot load pipe.star: reading pipe.star: " + filepath.Join(dir, "pipe.star") + ": Starlark file is a named pipe (FIFO), not a regular file: refused",
		"load-big.star":    "cannot load big.star: reading big.star: " + filepath.Join(dir, "big.star") + ": Starlark file is 5242887 bytes, over the 4 MiB limit for a Starlark file: refused",
		"fifo-config.star": "Starlark file is a named pipe (FIFO)",
	} {
		done := make(chan error, 1)
		go func() {
			_, err := in.EvalConfig(context.Background(), filepath.Join(dir, file))
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(FormatError(err), want) {
				t.Errorf("%s: %v\nwant %s", file, FormatError(err), want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s hangs", file)
		}
	}
}

// A run's memory budget is lowered to what the process can get: with 300
// MiB of address space left, the default 1 GiB budget would end in a Go
// crash; the run gets (300 MiB - headroom) / 4 and says why.
func TestMemoryBudgetWithinProcessLimits(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cudapkgs.star")
	if err := os.WriteFile(file, []byte("x = \"a\" * (100 << 20)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := interp(t, dir)
	in.MaxMemoryName = "--starlark-memory"
	in.limits = func() memoryLimit {
		return memoryLimit{avail: 300 << 20, what: "the address-space limit (RLIMIT_AS) of 2.0 GiB"}
	}
	_, err := in.EvalConfig(context.Background(), file)
	want := "cudapkgs.star:1:9: memory budget exhausted: repeating a string 104857600 times would allocate 100.0 MiB, and the run has 43.0 MiB left of its 43.0 MiB budget (lowered from 1.0 GiB --starlark-memory: the address-space limit (RLIMIT_AS) of 2.0 GiB leaves 300.0 MiB to this process)"
	if msg := FormatError(err); !strings.HasPrefix(msg, want) {
		t.Errorf("got %s\nwant %s", msg, want)
	}
	// Without a limit the configured budget holds.
	in.limits = func() memoryLimit { return memoryLimit{} }
	if _, err := in.EvalConfig(context.Background(), file); err != nil {
		t.Errorf("unlimited: %v", FormatError(err))
	}
}

// The cgroup files are read as the kernel writes them: "max" (v2) or a
// huge number (v1) is no limit.
func TestCgroupLeft(t *testing.T) {
	for _, tt := range []struct {
		limit, usage string
		avail        int64
		ok           bool
	}{
		{"max\n", "1000\n", 0, false},
		{"9223372036854771712\n", "1000\n", 0, false},
		{"1073741824\n", "104857600\n", 1073741824 - 104857600, true},
		{"junk", "1", 0, false},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "memory.max"), []byte(tt.limit), 0o644)
		os.WriteFile(filepath.Join(dir, "memory.current"), []byte(tt.usage), 0o644)
		l, ok := cgroupLeft(dir, "memory.max", "memory.current")
		if ok != tt.ok || (ok && l.avail != tt.avail) {
			t.Errorf("%q %q: got %v %v, want %d %v", tt.limit, tt.usage, l, ok, tt.avail, tt.ok)
		}
		if ok && !strings.Contains(l.what, "memory.max) of 1.0 GiB") {
			t.Errorf("what: %s", l.what)
		}
	}
}

// asChildEnv makes the test binary, re-executed under an address-space
// limit, run the bombs of TestAddressSpaceLimitedRun.
const asChildEnv = "CUDAPKGS_TEST_AS_CHILD"

// Under prlimit --as=2G, a trivial configuration evaluates and each bomb
// ends with the budget's message: no Go crash (fatal error: out of memory,
// a failed thread creation), and nothing raw on standard error (not
// go.starlark.net's "failed to allocate 4GB address space" line either).
// It re-executes the test binary under prlimit; it takes a few seconds,
// and is skipped in -short mode and where prlimit is missing.
func TestAddressSpaceLimitedRun(t *testing.T) {
	if os.Getenv(asChildEnv) != "" {
		addressSpaceChild(t)
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary under an address-space limit")
	}
	if raceEnabled {
		// .ci/run runs this test again without -race.
		t.Skip("the race detector's shadow memory does not fit an address-space limit")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit")
	}
	cmd := exec.Command(prlimit, "--as=2147483648", os.Args[0], "-test.run=^TestAddressSpaceLimitedRun$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), asChildEnv+"=1", "GOMAXPROCS=4")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err != nil || stderr.Len() > 0 || !strings.Contains(stdout.String(), "--- PASS: TestAddressSpaceLimitedRun") {
		t.Errorf("child: %v\nstdout:\n%s\nstderr:\n%s", err, tail(stdout.String()), tail(stderr.String()))
	}
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// addressSpaceChild runs in the re-executed binary, under the limit, with
// the default budget.
func addressSpaceChild(t *testing.T) {
	if msg := evalSteps(t, context.Background(), 0, nil, "cuda_versions([\"12.4\"])\nx = [str(i) for i in range(100000)]\n"); msg != "" {
		t.Errorf("trivial: %s", msg)
	}
	for _, src := range []string{
		"x = [0] * (1 << 29)\n",
		"s = \"a\" * 10000000\nt = \"\".join([s] * 1000)\n",
		"s = \"\\x00\" * 100000000\nt = \"%r\" % s\n",
		"s = \"\\x00\" * 100000000\nt = repr(s)\n",
		"s = \"a\" * 200000000\nt = s.split(\"a\")\n",
		"def f():\n    x = []\n    for i in range(50000000):\n        x.append([i, i])\nf()\n",
		"def f():\n    d = {}\n    for i in range(50000000):\n        d[i] = str(i)\nf()\n",
		"def f():\n    s = \"ab\"\n    for i in range(40):\n        s = s + s\nf()\n",
		"s = [[\"a\" * 1000] * 1000] * 1000\nt = str(s)\n",
		"x = list(range(60000000))\n",
	} {
		msg := evalSteps(t, context.Background(), 0, nil, src)
		if !strings.Contains(msg, "memory budget exhausted") || !strings.Contains(msg, "lowered from 1.0 GiB: the address-space limit (RLIMIT_AS) of 2.0 GiB") {
			t.Errorf("%q: %s", src, msg)
		}
	}
}
