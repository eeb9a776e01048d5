//go:build unix && !linux

package outdir

import (
	"os"
	"path/filepath"
	"syscall"
)

// mountPoint says why dir cannot be exchanged with a folder next to it
// (it is on another device than its parent, so the root of a mount), or "".
func mountPoint(dir string) string {
	fi, err := os.Lstat(dir)
	if err != nil {
		return ""
	}
	pi, err := os.Stat(filepath.Dir(dir))
	if err != nil {
		return ""
	}
	s, ok1 := fi.Sys().(*syscall.Stat_t)
	p, ok2 := pi.Sys().(*syscall.Stat_t)
	if ok1 && ok2 && s.Dev != p.Dev {
		return dir + " is a mount point"
	}
	return ""
}
