package outdir

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// exchange makes the tree at from appear at dir in one step: macOS's
// renameatx_np(RENAME_SWAP) when dir exists (APFS and HFS+ support it since
// macOS 10.12), RENAME_EXCL when it does not.
func exchange(from, dir string, exists bool) error {
	flags := uint32(unix.RENAME_EXCL)
	if exists {
		flags = unix.RENAME_SWAP
	}
	err := unix.RenameatxNp(unix.AT_FDCWD, from, unix.AT_FDCWD, dir, flags)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.ENOSYS):
		return &noExchangeError{fmt.Errorf("renameatx_np: %w", err)}
	case errors.Is(err, unix.EXDEV) || errors.Is(err, unix.EBUSY):
		return &mountError{fmt.Errorf("renameatx_np: %w", err)}
	}
	return err
}

// exchangeFiles swaps the files (or folders) at a and b in one step.
func exchangeFiles(a, b string) error {
	return unix.RenameatxNp(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_SWAP)
}

// renameNoReplace renames from to to unless to exists (EEXIST then).
func renameNoReplace(from, to string) error {
	return unix.RenameatxNp(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_EXCL)
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
