package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// exchange makes the tree at from appear at dir in one step: one
// renameat2(RENAME_EXCHANGE) when dir exists (the old tree ends up at
// from), RENAME_NOREPLACE when it does not (a dir created meanwhile is not
// overwritten).
func exchange(from, dir string, exists bool) error {
	flags := uint(unix.RENAME_NOREPLACE)
	if exists {
		flags = unix.RENAME_EXCHANGE
	}
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, dir, flags)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP):
		return &noExchangeError{fmt.Errorf("renameat2: %w", err)}
	case errors.Is(err, unix.EXDEV) || errors.Is(err, unix.EBUSY):
		return &mountError{fmt.Errorf("renameat2: %w", err)}
	}
	return err
}

// mountPoint says why dir cannot be exchanged with a folder next to it
// (it is the root of a mount), or "". statx reports a mount root directly
// (since Linux 5.8); older kernels fall back to comparing devices.
func mountPoint(dir string) string {
	var sx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, dir, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS, &sx); err != nil {
		return ""
	}
	if sx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		if sx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
			return dir + " is a mount point"
		}
		return ""
	}
	var px unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, filepath.Dir(dir), 0, unix.STATX_BASIC_STATS, &px); err != nil {
		return ""
	}
	if px.Dev_major != sx.Dev_major || px.Dev_minor != sx.Dev_minor {
		return dir + " is a mount point"
	}
	return ""
}

// exchangeFiles swaps the files (or folders) at a and b in one step.
func exchangeFiles(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// renameNoReplace renames from to to unless to exists (EEXIST then).
func renameNoReplace(from, to string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
}

// private reports whether p is a folder owned by this process's user that
// no one else may write in (os.MkdirTemp makes work folders 0700).
func private(p string) bool {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Mode&0o022 == 0 && int(st.Uid) == os.Geteuid()
}
