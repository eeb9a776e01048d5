package fixup_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/core/fixup"
)

// wrapperScript is a plugin started by a wrapper script that starts a
// grandchild (sleep) and hangs before anything serves: the script's pid and
// the grandchild's are written to $WRAPPER_PIDDIR.
const wrapperScript = `#!/bin/sh
sleep 3600 &
echo $! > "$WRAPPER_PIDDIR/grandchild.tmp" && mv "$WRAPPER_PIDDIR/grandchild.tmp" "$WRAPPER_PIDDIR/grandchild"
echo $$ > "$WRAPPER_PIDDIR/wrapper.tmp" && mv "$WRAPPER_PIDDIR/wrapper.tmp" "$WRAPPER_PIDDIR/wrapper"
wait
`

// envGroupHost makes this test binary the host of the "host SIGTERM" case:
// its value is the wrapper script.
const envGroupHost = "FIXUP_TEST_GROUP_HOST"

// wrapper writes the wrapper script and returns its spec, the folder its
// pids go to, and a function that returns the two pids once both are
// written (the script is under way).
func wrapper(t *testing.T) (fixup.Spec, string, func() []string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "wrapper")
	if err := os.WriteFile(script, []byte(wrapperScript), 0o755); err != nil {
		t.Fatal(err)
	}
	piddir := filepath.Join(dir, "pids")
	if err := os.Mkdir(piddir, 0o755); err != nil {
		t.Fatal(err)
	}
	var pids []string
	t.Cleanup(func() {
		for _, p := range pids {
			var pid int
			fmt.Sscan(p, &pid)
			if pid > 0 && alive(p) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	read := func() []string {
		pids = nil
		for _, f := range []string{"wrapper", "grandchild"} {
			data, err := os.ReadFile(filepath.Join(piddir, f))
			if err != nil {
				return nil
			}
			pids = append(pids, strings.TrimSpace(string(data)))
		}
		return pids
	}
	return fixup.Spec{Name: "wrapper", Command: []string{script}, SHA256: sum(t, script)}, piddir, read
}

// waitFor polls until f returns pids: the script has started its child.
func waitFor(f func() []string) []string {
	for {
		if pids := f(); pids != nil {
			return pids
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A plugin started by a wrapper script, hung before serving, ends with all
// it started when the host gives up on it: at the start timeout, when the
// run is cancelled (Ctrl-C), and when the host gets SIGTERM (a host that
// cancels its run on SIGTERM, as the cudapkgs command does). SIGKILL of
// the host runs no code of it: the parent-death signal ends the wrapper, and
// the wrapper's end, as its session's leader, hangs up the rest (Linux).
func TestWrapperGroupEnds(t *testing.T) {
	t.Run("start timeout", func(t *testing.T) {
		s, piddir, pids := wrapper(t)
		t.Setenv("WRAPPER_PIDDIR", piddir)
		opts := fast
		opts.StartTimeout = 2 * time.Second
		_, err := fixup.Start(context.Background(), []fixup.Spec{s}, opts)
		var te *fixup.TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("error = %v, want a start timeout", err)
		}
		ps := pids()
		if ps == nil {
			t.Fatal("the wrapper had not started its child when the start timed out")
		}
		checkEnded(t, ps)
	})
	t.Run("cancelled", func(t *testing.T) {
		s, piddir, pids := wrapper(t)
		t.Setenv("WRAPPER_PIDDIR", piddir)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			waitFor(pids)
			cancel()
		}()
		opts := fast
		opts.StartTimeout = 10 * time.Minute
		if _, err := fixup.Start(ctx, []fixup.Spec{s}, opts); err == nil || !strings.Contains(err.Error(), "cancelled before it started") {
			t.Fatalf("error = %v", err)
		}
		checkEnded(t, pids())
	})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run("host "+sig.String(), func(t *testing.T) {
			s, piddir, pids := wrapper(t)
			host := exec.Command(os.Args[0], "-test.run=^$")
			host.Env = append(os.Environ(), envGroupHost+"="+s.Command[0], "WRAPPER_PIDDIR="+piddir)
			host.Stdout, host.Stderr = os.Stderr, os.Stderr
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			defer host.Process.Kill()
			ps := waitFor(pids)
			host.Process.Signal(sig)
			err := host.Wait()
			if sig == syscall.SIGTERM && err != nil {
				t.Fatalf("host: %v", err)
			}
			checkEnded(t, ps)
		})
	}
}

func checkEnded(t *testing.T, pids []string) {
	t.Helper()
	for i, what := range []string{"the wrapper script", "its child (sleep)"} {
		if !ended(t, pids[i]) {
			t.Errorf("%s (pid %s) outlived the host's end of the plugin", what, pids[i])
		}
	}
}

// runGroupHost is the host of the "host SIGTERM" case: it cancels its run on
// SIGTERM, as the cudapkgs command does, while its one plugin, the wrapper,
// hangs at start; it exits 0 once the start has ended cancelled.
func runGroupHost(script string) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	data, err := os.ReadFile(script)
	if err != nil {
		panic(err)
	}
	opts := fast
	opts.StartTimeout = 10 * time.Minute
	h, err := fixup.Start(ctx, []fixup.Spec{{Name: "wrapper", Command: []string{script}, SHA256: fmt.Sprintf("%x", sha(data))}}, opts)
	if err == nil {
		h.Close()
		fmt.Fprintln(os.Stderr, "the wrapper started")
		os.Exit(1)
	}
	if !strings.Contains(err.Error(), "cancelled before it started") {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
