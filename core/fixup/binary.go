package fixup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// MaxPluginSize is the largest plugin binary the host reads: a bigger file,
// or one that grows past it while it is read, is refused.
const MaxPluginSize = 2 << 30

// checked is a third-party plugin binary after its check: a private copy of
// the bytes that were hashed, which only this process can change, and which
// is what the plugin process executes. Swapping or rewriting the declared
// file after the check changes nothing.
type checked struct {
	// exe is the read-only private copy, handed to the plugin process as
	// a file descriptor.
	exe *os.File
	// path is the private copy's path, where the platform executes by path
	// rather than by descriptor; "" on Linux.
	path string
	// cleanup removes the private copy.
	cleanup func()
}

// checkBinary opens the declared plugin binary once, refuses anything but a
// regular file within MaxPluginSize, and copies it into a private file while
// hashing it. The copy is returned only when its sha256 is the declared one.
// Reading stops when ctx is cancelled.
func checkBinary(ctx context.Context, s Spec) (*checked, error) {
	want, err := hex.DecodeString(strings.ToLower(s.SHA256))
	if err != nil || len(want) != sha256.Size {
		return nil, fmt.Errorf("plugin %s: sha256 %q: expected 64 hex digits (a third-party plugin is declared with the sha256 of its binary)", s.Name, s.SHA256)
	}
	path := s.Command[0]
	// Non-blocking, so that a FIFO named as a plugin is refused below
	// instead of waiting for a writer.
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", s.Name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", s.Name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("plugin %s: %s is %s, not a regular file: a plugin is a program file (or a symlink to one)", s.Name, path, describeMode(fi.Mode()))
	}
	if fi.Size() > MaxPluginSize {
		return nil, fmt.Errorf("plugin %s: %s is %d bytes, over the 2 GiB limit for a plugin binary", s.Name, path, fi.Size())
	}
	c, w, err := privateCopy(s.Name)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: making a private copy of %s to run: %w", s.Name, path, err)
	}
	got, err := copyHashed(ctx, w, f, MaxPluginSize)
	if err == nil {
		err = c.seal(w)
	} else {
		w.Close()
	}
	switch {
	case err == errTooBig:
		c.cleanup()
		return nil, fmt.Errorf("plugin %s: %s grew past the 2 GiB limit for a plugin binary while it was read", s.Name, path)
	case err != nil:
		c.cleanup()
		return nil, fmt.Errorf("plugin %s: reading %s: %w", s.Name, path, err)
	case !bytes.Equal(got, want):
		c.cleanup()
		return nil, fmt.Errorf("plugin %s: %s has sha256 %s, but it is declared with %s: refusing to run it (rebuild it or update the declared sha256)", s.Name, path, hex.EncodeToString(got), s.SHA256)
	}
	return c, nil
}

var errTooBig = fmt.Errorf("too big")

// copyHashed copies src to dst and returns the sha256 of what it copied,
// refusing more than limit bytes and stopping when ctx is cancelled.
func copyHashed(ctx context.Context, dst io.Writer, src io.Reader, limit int64) ([]byte, error) {
	h := sha256.New()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := src.Read(buf)
		if m > 0 {
			if n += int64(m); n > limit {
				return nil, errTooBig
			}
			h.Write(buf[:m])
			if _, werr := dst.Write(buf[:m]); werr != nil {
				return nil, werr
			}
		}
		if err == io.EOF {
			return h.Sum(nil), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file (" + m.Type().String() + ")"
}
