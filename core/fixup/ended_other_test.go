//go:build !linux

package fixup_test

import (
	"errors"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// ended waits for process pid to end and reports whether it did. Without
// pidfds it polls kill(pid, 0), which a zombie still answers: a plugin's
// descendants are reparented to init, which reaps them.
func ended(t *testing.T, pid string) bool {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("pid %q: %v", pid, err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(n, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
	}
	return false
}
