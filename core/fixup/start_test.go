package fixup_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/core/fixup"
)

// childPID is the pid of the child a "child*" test plugin leaves behind; the
// child is killed when the test ends.
func childPID(t *testing.T) func() string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "child.pid")
	t.Setenv("TESTPLUGIN_CHILDPID", f)
	var pid int
	t.Cleanup(func() {
		if pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return func() string {
		t.Helper()
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("the plugin started no child: %v", err)
		}
		pid, _ = strconv.Atoi(string(data))
		return string(data)
	}
}

// pluginPIDs has the test plugins write their pids into a folder.
func pluginPIDs(t *testing.T) func() []string {
	dir := t.TempDir()
	t.Setenv("TESTPLUGIN_PIDDIR", dir)
	return func() []string {
		var pids []string
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			pids = append(pids, e.Name())
		}
		return pids
	}
}

// startErr starts one test plugin that must fail, and checks what every
// failed start has: a *PluginError whose first line names the plugin by
// its declared path, and no go-plugin dump naming the checked copy.
func startErr(t *testing.T, ctx context.Context, mode string, opts fixup.Options) (string, error) {
	t.Helper()
	h, err := fixup.Start(ctx, []fixup.Spec{spec(t, mode)}, opts)
	if err == nil {
		h.Close()
		t.Fatal("no error")
	}
	var pe *fixup.PluginError
	if !errors.As(err, &pe) || pe.Plugin != "testplugin" || pe.Program != testPlugin || pe.Call != "start" {
		t.Fatalf("error = %#v", err)
	}
	if strings.Contains(err.Error(), "/proc/self/fd") || strings.Contains(err.Error(), "This usually means") {
		t.Errorf("error has go-plugin's dump:\n%v", err)
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	prefix := "plugin testplugin (" + testPlugin + "): start: "
	if !strings.HasPrefix(first, prefix) {
		t.Fatalf("error does not start with %q:\n%v", prefix, err)
	}
	return strings.TrimPrefix(first, prefix), err
}

// A plugin that fails to start ends the run with one line naming it; the
// tail of its stderr follows.
func TestStartFailures(t *testing.T) {
	tests := []struct {
		mode   string
		limit  time.Duration // the start timeout; 0 for fast's
		want   string        // the error's first line after its prefix
		stderr string        // in the stderr lines the error keeps; "": none
	}{
		{mode: "exit", want: "exited at once (exit status 3), before the go-plugin handshake",
			stderr: "testplugin: cannot start: /etc/site-policy.json is missing"},
		{mode: "noise", want: `printed "hello from a program that is not a plugin" on stdout instead of the go-plugin handshake (is it a cudapkgs plugin? it must not print before sdk.Serve)`},
		{mode: "v2", want: "incompatible API version with plugin. Plugin version: 2, Client versions: [1]",
			stderr: `"@message":"plugin address"`},
		{mode: "hangstart", limit: 300 * time.Millisecond, want: "did not start within 300ms (it hangs at start or is too slow)",
			stderr: "testplugin: waiting for a lock that never comes"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			pids := pluginPIDs(t)
			opts := fast
			if tt.limit > 0 {
				opts.StartTimeout = tt.limit
			}
			got, err := startErr(t, context.Background(), tt.mode, opts)
			if got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			var pe *fixup.PluginError
			errors.As(err, &pe)
			if got := strings.Join(pe.Stderr, "\n"); tt.stderr == "" && got != "" || !strings.Contains(got, tt.stderr) {
				t.Errorf("stderr = %q, want %q", pe.Stderr, tt.stderr)
			}
			var te *fixup.TimeoutError
			if isTimeout := errors.As(err, &te); isTimeout != (tt.limit > 0) || isTimeout != errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error is a timeout: %v, want %v", isTimeout, tt.limit > 0)
			}
			// The run ends with its plugin gone.
			for _, pid := range pids() {
				if alive(pid) {
					t.Errorf("plugin process %s still runs", pid)
				}
			}
		})
	}
}

// A plugin whose child inherited its stdout and stderr does not hold the
// run for the child's lifetime (an hour), and the child ends with its
// plugin: the host ends the plugin's whole process group. A child that left
// the group (a daemon, in a session of its own) is out of the host's reach,
// and still does not hold the run.
func TestStartChildHoldsStdout(t *testing.T) {
	for _, detached := range []bool{false, true} {
		// check says whether the child is as it must be once the run is
		// done with its plugin.
		check := func(t *testing.T, pid string) {
			t.Helper()
			switch {
			case detached && !alive(pid):
				t.Error("the detached child is gone: the run waited for it, or killed it")
			case !detached && !ended(t, pid):
				t.Error("the child in the plugin's process group outlived its plugin")
			}
		}
		name := "in the plugin's group"
		if detached {
			name = "detached"
		}
		t.Run(name, func(t *testing.T) {
			if detached {
				t.Setenv("TESTPLUGIN_CHILD_DETACHED", "1")
			}
			t.Run("exits at once", func(t *testing.T) {
				pid := childPID(t)
				got, err := startErr(t, context.Background(), "childexit", fast)
				if want := "exited at once (exit status 3), before the go-plugin handshake"; got != want {
					t.Errorf("error:\n got %s\nwant %s", got, want)
				}
				if !strings.HasSuffix(err.Error(), "\n  testplugin: cannot start, leaving a child behind") {
					t.Errorf("error lacks the plugin's stderr:\n%v", err)
				}
				check(t, pid())
			})
			t.Run("hangs at start", func(t *testing.T) {
				pid := childPID(t)
				opts := fast
				opts.StartTimeout = 300 * time.Millisecond
				got, err := startErr(t, context.Background(), "childhang", opts)
				var te *fixup.TimeoutError
				if !errors.As(err, &te) || !te.Start || got != "did not start within 300ms (it hangs at start or is too slow)" {
					t.Errorf("error = %v", err)
				}
				check(t, pid())
			})
			t.Run("serves", func(t *testing.T) {
				pid := childPID(t)
				h, err := fixup.Start(context.Background(), []fixup.Spec{spec(t, "childserve", "cudnn")}, fast)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := h.Call(context.Background(), batch(10)); err != nil {
					t.Error(err)
				}
				h.Close()
				check(t, pid())
			})
		})
	}
}

// Cancelling the run (Ctrl-C) during a start that hangs ends the start at
// once: with context.Canceled, not the start timeout (ten minutes here),
// and with the plugin killed.
func TestStartCancelled(t *testing.T) {
	pids := pluginPIDs(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the plugin runs, so that its start is under way.
		for len(pids()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	opts := fast
	opts.StartTimeout = 10 * time.Minute
	got, err := startErr(t, ctx, "hangstart", opts)
	if !errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error is not context.Canceled: %v", err)
	}
	if want := "cancelled before it started: context canceled"; got != want {
		t.Errorf("error:\n got %s\nwant %s", got, want)
	}
	for _, pid := range pids() {
		if alive(pid) {
			t.Errorf("plugin process %s still runs", pid)
		}
	}
}
