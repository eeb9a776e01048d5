package fixup

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// isolate gives the plugin a parent-death signal and its own process group
// (the group's number is the plugin's pid), so that the host can end the
// plugin with everything it started.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// waitLeader waits for the plugin process to end without reaping it, and
// reports whether it did: until it is reaped, its zombie keeps the process
// group's number from being given to anyone else, so that signalling the
// group reaches the plugin's descendants only.
func waitLeader(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}
