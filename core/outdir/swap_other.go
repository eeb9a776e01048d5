//go:build !linux && !darwin

package outdir

import (
	"errors"
	"os"
	"runtime"
)

// exchange: this OS has no call that swaps two folders in one step (Windows'
// MoveFileEx replaces files, not non-empty folders). A new dir is renamed
// into place, which is atomic; an existing one is reported as unable to
// exchange, so Write replaces its files one by one, each atomically, and
// says so in Stats.InPlace. docs/output.md lists what that gives up.
func exchange(from, dir string, exists bool) error {
	if exists {
		return &noExchangeError{errors.New("no atomic folder exchange on " + runtime.GOOS)}
	}
	return os.Rename(from, dir)
}

// exchangeFiles and renameNoReplace serve the rescue after a swap, which
// never happens here (exchange cannot swap an existing folder): they
// refuse, and a file the rescue would move stays where it is.
func exchangeFiles(a, b string) error {
	return &noExchangeError{errors.New("no atomic exchange on " + runtime.GOOS)}
}

func renameNoReplace(from, to string) error {
	return &noExchangeError{errors.New("no rename without replacing on " + runtime.GOOS)}
}

// private: the rescue never runs here (see exchangeFiles), so no folder is
// trusted for it.
func private(p string) bool { return false }
