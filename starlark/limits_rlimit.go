//go:build linux || darwin || freebsd

package starlark

import "syscall"

// addressSpaceLimit is the soft RLIMIT_AS; false when there is none
// (RLIM_INFINITY is all ones on Linux, 1<<63-1 on the BSDs and macOS).
func addressSpaceLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur >= 1<<63-1 {
		return 0, false
	}
	return uint64(rl.Cur), true
}
