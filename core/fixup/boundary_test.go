package fixup_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// The checked plugin is the one that runs: while the declared path is
// swapped, in a loop, between the plugin and another program, every start
// either runs the plugin or refuses the other program's checksum; the other
// program never runs.
func TestSwappedPluginNeverRuns(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	link(t, testPlugin, good)
	ran := filepath.Join(dir, "other-program-ran")
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("#!/bin/sh\necho ran >> "+ran+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plugin")
	link(t, good, path)
	s := fixup.Spec{Name: "swapped", Command: []string{path, "slow", "cudnn"}, SHA256: sum(t, testPlugin)}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var swaps atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			src := good
			if i%2 == 1 {
				src = other
			}
			tmp := path + ".tmp"
			os.Remove(tmp)
			if err := os.Link(src, tmp); err == nil && os.Rename(tmp, path) == nil {
				swaps.Add(1)
			}
		}
	}()
	var started, refused int
	for i := 0; i < 10; i++ {
		h, err := fixup.Start(context.Background(), []fixup.Spec{s}, fast)
		switch {
		case err == nil:
			if n := h.Plugins()[0].Name; n != "test-slow" {
				t.Errorf("started %q", n)
			}
			h.Close()
			started++
		case strings.Contains(err.Error(), "refusing to run it"):
			refused++
		default:
			t.Errorf("start %d: %v", i, err)
		}
	}
	close(stop)
	wg.Wait()
	if data, err := os.ReadFile(ran); err == nil {
		t.Fatalf("the other program ran %d times (started %d, refused %d)", strings.Count(string(data), "ran"), started, refused)
	}
	t.Logf("%d starts, %d refusals, %d swaps", started, refused, swaps.Load())
}

func link(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Link(from, to); err != nil {
		data, rerr := os.ReadFile(from)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err := os.WriteFile(to, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// A plugin declared through a symlink, or as a script, runs the checked
// bytes too: the script's interpreter reads the checked copy.
func TestPluginSymlinkAndScript(t *testing.T) {
	dir := t.TempDir()
	sym := filepath.Join(dir, "sym")
	if err := os.Symlink(testPlugin, sym); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec "+testPlugin+" slow cudnn\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range []fixup.Spec{
		{Name: "sym", Command: []string{sym, "slow", "cudnn"}, SHA256: sum(t, testPlugin)},
		{Name: "script", Command: []string{script}, SHA256: sum(t, script)},
	} {
		h, err := fixup.Start(context.Background(), []fixup.Spec{s}, fast)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		h.Close()
	}
}

// Only regular files within 2 GiB are plugins: a device, a FIFO or a folder
// is refused at once, naming the file, and so is a bigger file.
func TestPluginNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, fixup.MaxPluginSize+1); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero": "/dev/zero is a character device, not a regular file",
		fifo:        fifo + " is a named pipe (FIFO), not a regular file",
		dir:         dir + " is a folder, not a regular file",
		big:         big + " is 2147483649 bytes, over the 2 GiB limit for a plugin binary",
	} {
		s := fixup.Spec{Name: "special", Command: []string{path}, SHA256: strings.Repeat("0", 64)}
		err := within(t, 5*time.Second, func() error {
			_, err := fixup.Start(context.Background(), []fixup.Spec{s}, fast)
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "plugin special: "+want) {
			t.Errorf("%s: error = %v", path, err)
		}
	}
}

// Reading a plugin binary stops when the run is cancelled (Ctrl-C).
func TestPluginHashCancelled(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, fixup.MaxPluginSize); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	s := fixup.Spec{Name: "big", Command: []string{big}, SHA256: strings.Repeat("0", 64)}
	err := within(t, 3*time.Second, func() error {
		_, err := fixup.Start(ctx, []fixup.Spec{s}, fast)
		return err
	})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "plugin big: reading "+big) {
		t.Fatalf("error = %v", err)
	}
}

func within(t *testing.T, d time.Duration, f func() error) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
		return nil
	}
}

// A plugin's stderr kept for messages is capped: an unterminated 24 MB line
// becomes its first 500 bytes and a note of the cut.
func TestPluginStderrCapped(t *testing.T) {
	_, err := fixup.Start(context.Background(), []fixup.Spec{spec(t, "longline")}, fast)
	if err == nil {
		t.Fatal("no error")
	}
	if n := len(err.Error()); n > 4000 {
		t.Errorf("the error is %d bytes long", n)
	}
	if !strings.Contains(err.Error(), "… [line cut: 25165824 bytes in all]") {
		t.Errorf("error does not say the line was cut: %.2000s", err)
	}
}

// A plugin that exits cleanly in the middle of a call has not crashed.
func TestPluginCleanExit(t *testing.T) {
	h, err := fixup.Start(context.Background(), []fixup.Spec{spec(t, "exit0", "cudnn")}, fast)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = h.Call(context.Background(), batch(10))
	if err == nil || !strings.Contains(err.Error(), "plugin test-exit0: Fixup(CUDA 12.4.1, product cudnn): exited during the call with status 0") || strings.Contains(err.Error(), "crash") {
		t.Fatalf("error = %v", err)
	}
}

// batch is a batch of the cudnn product of about size bytes.
func batch(size int) *sdk.Batch {
	b := &sdk.Batch{CUDA: "12.4.1", Product: "cudnn", Config: sdk.Config{Targets: []string{"linux-x86_64"}}}
	pad := strings.Repeat("p", 1<<10)
	for i := 0; len(b.Packages)*(1<<10) < size; i++ {
		name := fmt.Sprintf("pkg%d", i)
		b.Packages = append(b.Packages, sdk.Package{Name: name, Manifest: name, Product: "cudnn", Release: "9.1.0", Version: "9.1.0." + pad})
	}
	return b
}

// A batch over gRPC's default 4 MiB reaches the plugin; one over the limit
// of a message is refused before it is sent, with its size and the limit.
func TestPluginBatchSize(t *testing.T) {
	h, err := fixup.Start(context.Background(), []fixup.Spec{spec(t, "slow", "cudnn")}, fast)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Call(context.Background(), batch(8<<20)); err != nil && strings.Contains(err.Error(), "larger than") {
		t.Errorf("an 8 MiB batch: %v", err)
	}
	_, err = h.Call(context.Background(), batch(sdk.MaxMessage+1<<20))
	want := "plugin test-slow: Fixup(CUDA 12.4.1, product cudnn): the batch is 6"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), " MiB, larger than the 64.0 MiB a message between host and plugin may be") {
		t.Fatalf("error = %v", err)
	}
}

// No orphans: when the host is killed (SIGKILL or SIGTERM), its plugins,
// third-party and built-in, are gone a second later.
func TestNoOrphans(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			piddir := t.TempDir()
			host := exec.Command(os.Args[0], "-test.run=^$")
			host.Env = append(os.Environ(), envHost+"="+testPlugin, "TESTPLUGIN_PIDDIR="+piddir)
			out, err := host.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			host.Stderr = os.Stderr
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			defer host.Process.Kill()
			line, _ := bufio.NewReader(out).ReadString('\n')
			if line != "ready\n" {
				host.Process.Kill()
				t.Fatalf("host said %q", line)
			}
			pids, _ := os.ReadDir(piddir)
			if len(pids) != 2 {
				t.Fatalf("%d plugin processes", len(pids))
			}
			// A failing run leaves no processes behind either.
			t.Cleanup(func() {
				for _, p := range pids {
					var pid int
					fmt.Sscan(p.Name(), &pid)
					if alive(p.Name()) {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})
			host.Process.Signal(sig)
			host.Wait()
			deadline := time.Now().Add(time.Second)
			for _, p := range pids {
				for alive(p.Name()) {
					if time.Now().After(deadline) {
						t.Fatalf("plugin process %s still runs a second after the host's %s", p.Name(), sig)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
}

const envHost = "FIXUP_TEST_HOST"

// alive: the process exists and is not a zombie.
func alive(pid string) bool {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z") && !strings.HasPrefix(s[i+1:], " X")
}

// runHost is the host the orphan test kills: a checked third-party plugin
// and a built-in, started, then it waits to be killed.
func runHost(plugin string) {
	data, err := os.ReadFile(plugin)
	if err != nil {
		panic(err)
	}
	specs := []fixup.Spec{
		{Name: "third", Command: []string{plugin, "slow", "cudnn"}, SHA256: fmt.Sprintf("%x", sha(data))},
		{Name: "builtin", Command: []string{plugin, "slow", "cuda"}, Builtin: true},
	}
	h, err := fixup.Start(context.Background(), specs, fast)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer h.Close()
	fmt.Println("ready")
	time.Sleep(time.Minute)
}
