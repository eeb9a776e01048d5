//go:build unix && !linux

package fixup

import (
	"os"
	"os/exec"
	"syscall"
)

// isolate: no parent-death signal here (the pipe the plugin watches is what
// ends it), but its own process group, so that the host can end the plugin
// with everything it started.
func isolate(cmd *exec.Cmd) (ctty, tty *os.File) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return nil, nil
}

// waitLeader: no portable wait that leaves the process unreaped; the group
// is ended only while the host has not reaped the plugin (process.kill).
func waitLeader(int) bool { return false }
