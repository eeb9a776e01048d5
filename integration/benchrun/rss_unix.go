//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident memory of the process and the children it
// waited for, in KiB as Linux reports ru_maxrss (macOS reports bytes).
func maxRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return int64(ru.Maxrss), true
}
