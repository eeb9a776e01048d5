package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// CacheLockName is the file, inside the cache, that a fetch locks.
const CacheLockName = ".lock"

// DefaultCacheDir is <user cache folder>/cudapkgs/manifests
// (~/.cache/cudapkgs/manifests on Linux).
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no default cache folder (%w); give one explicitly", err)
	}
	return filepath.Join(d, "cudapkgs", "manifests"), nil
}

// LockCache creates dir if needed and takes an exclusive lock on
// <dir>/.lock, waiting for another process (or another Fetch in this one)
// that holds it. The wait ends with ctx. onWait, when not nil, is called once
// if the lock is busy. The returned function releases the lock.
func LockCache(ctx context.Context, dir string, onWait func(path string)) (unlock func() error, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating cache folder: %w", err)
	}
	path := filepath.Join(dir, CacheLockName)
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking cache %s: %w", path, err)
	}
	if !ok {
		if onWait != nil {
			onWait(path)
		}
		ok, err = fl.TryLockContext(ctx, 25*time.Millisecond)
		if err != nil || !ok {
			if err == nil {
				err = ctx.Err()
			}
			return nil, fmt.Errorf("waiting for the cache lock %s (another cudapkgs run holds it): %w", path, err)
		}
	}
	return func() error {
		if err := fl.Unlock(); err != nil {
			return fmt.Errorf("unlocking cache %s: %w", path, err)
		}
		return nil
	}, nil
}
