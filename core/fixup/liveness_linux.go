package fixup

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// isolate gives the plugin a parent-death signal and a process group of its
// own (the group's number is the plugin's pid), so that the host can end the
// plugin with everything it started.
//
// Where it can, it makes that group a session whose controlling terminal is
// a pseudo-terminal the host holds (ctty, returned; tty is the plugin's end,
// for the host to close once the plugin has its copy): when the plugin, the
// session's leader, ends, the kernel sends SIGHUP to the terminal's
// foreground group, which is the plugin's group. So a wrapper's children end
// with it even when the host cannot end them: a host killed by SIGKILL runs
// no code, but the parent-death signal ends the plugin, and its end hangs up
// the rest. Without a pseudo-terminal (no /dev/ptmx) the plugin gets a plain
// process group.
func isolate(cmd *exec.Cmd) (ctty, tty *os.File) {
	ctty, tty, err := openPTY()
	if err != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
		return nil, nil
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, tty)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setsid: true, Setctty: true,
		Ctty: 2 + len(cmd.ExtraFiles)}
	return ctty, tty
}

// openPTY opens a pseudo-terminal: its controlling side, and the terminal.
// Nothing is written to either; the terminal exists for its hangup.
func openPTY() (ctty, tty *os.File, err error) {
	ctty, err = os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(ctty.Fd())
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0)
	}
	if err == nil {
		tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		ctty.Close()
		return nil, nil, err
	}
	return ctty, tty, nil
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
