package fixup_test

import (
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ended waits for process pid to end (exit, or become a zombie) and
// reports whether it did. Only a process that survives waits out the bound.
func ended(t *testing.T, pid string) bool {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("pid %q: %v", pid, err)
	}
	fd, err := unix.PidfdOpen(n, 0)
	if err == unix.ESRCH {
		return true // gone, and reaped
	}
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", n, err)
	}
	defer unix.Close(fd)
	// A pidfd is readable once its process has ended.
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		r, err := unix.Poll(fds, int((10 * time.Second).Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		return r == 1
	}
}
