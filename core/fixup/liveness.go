package fixup

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/hashicorp/go-plugin"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// watchHost ties the plugin's life to the host's, two ways, so that no
// plugin outlives a host killed by any signal:
//   - on Linux the kernel sends the plugin SIGKILL when the host thread that
//     started it ends (a parent-death signal; startProcess keeps that thread
//     for the plugin alone, since Go ends threads on its own terms);
//   - the plugin gets the read end of a pipe whose write end only the host
//     holds: when the host ends, the plugin reads end-of-file and exits
//     (sdk.Serve watches it; descriptor number in sdk.EnvHostFD).
//
// And it puts the plugin in a process group of its own (not on Windows),
// which process.kill ends whole: what a plugin started ends with it while
// the host lives to end it. For a host killed by SIGKILL, which runs no
// code, on Linux the group is also a session with a pseudo-terminal
// (isolate): the plugin's end hangs up the rest of its group.
func (r *running) watchHost() error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("making the pipe the plugin watches: %w", err)
	}
	r.host, r.hostRead = pw, pr
	r.cmd.ExtraFiles = append(r.cmd.ExtraFiles, pr)
	// The host's environment, without a descriptor number of its own host.
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, sdk.EnvHostFD+"=") {
			env = append(env, e)
		}
	}
	r.cmd.Env = append(env, fmt.Sprintf("%s=%d", sdk.EnvHostFD, 2+len(r.cmd.ExtraFiles)))
	r.ctty, r.tty = isolate(r.cmd)
	return nil
}

// startProcess starts the plugin and its handshake on an OS thread locked
// to a goroutine that lives until the plugin is stopped: the parent-death
// signal fires when the starting thread ends, which must be when the host
// ends, not when Go retires a thread. When ctx ends first, the plugin is
// killed, which ends go-plugin's wait for the handshake, and ctx's error is
// returned.
func (r *running) startProcess(ctx context.Context) (plugin.ClientProtocol, error) {
	type started struct {
		proto plugin.ClientProtocol
		err   error
	}
	ch := make(chan started, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		p, err := r.client.Client()
		ch <- started{p, err}
		<-r.done
	}()
	var s started
	select {
	case s = <-ch:
	case <-ctx.Done():
		r.proc.kill()
		s = <-ch
		if s.err == nil {
			s.err = ctx.Err()
		}
	}
	// The plugin holds its own copies now.
	r.hostRead.Close()
	if r.tty != nil {
		r.tty.Close()
	}
	if r.bin != nil {
		r.bin.exe.Close()
	}
	return s.proto, s.err
}
