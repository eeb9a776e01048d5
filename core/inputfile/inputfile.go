// Package inputfile reads the files a run takes as input (manifests,
// Starlark files, lock files, an installed toolkit's version files) with
// the same three guards: the file must be a regular file (a symbolic link to
// one is fine), it must be within a size limit named for its kind, and the
// read ends when the caller's context does.
//
// A named pipe, a device (/dev/zero) or a socket is refused after a
// non-blocking open and a stat, so none of them can hang the run or fill its
// memory, and nothing waits on such a file while holding a lock.
package inputfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
)

// Kind is a kind of input file and its size limit.
type Kind struct {
	// Name says what the file is in messages ("manifest").
	Name string
	// Max is the largest size accepted, in bytes.
	Max int64
}

// The kinds of input files and their limits.
var (
	// Manifest: NVIDIA's largest manifests are under 100 kB.
	Manifest = Kind{"manifest", 64 << 20}
	// Starlark: a configuration file or a module it loads.
	Starlark = Kind{"Starlark file", 4 << 20}
	// Lock: a lock file of manifests' sha256 sums.
	Lock = Kind{"lock file", 16 << 20}
	// Local: a file read from an installed toolkit (a version file, a header
	// scanned for a version macro).
	Local = Kind{"local-install file", 16 << 20}
)

// Error is an input file refused for its type or size.
type Error struct {
	Path string
	Kind Kind
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Msg) }

// chunk is how much is read between two looks at the context.
const chunk = 1 << 20

// Read returns the content of the regular file at path, refusing anything
// else and anything over k.Max. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func Read(ctx context.Context, path string, k Kind) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", k.Name, path, context.Cause(ctx))
	}
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: path, Kind: k, Msg: fmt.Sprintf("%s is %s, not a regular file: refused", k.Name, describe(st.Mode()))}
	}
	if st.Size() > k.Max {
		return nil, tooLarge(path, k, st.Size())
	}
	// The file may grow after the stat: read at most one byte past the limit.
	// Reads go straight into buf's spare room, sized from the stat: a copy
	// through io.CopyN took a 32 KiB buffer per file and copied each byte
	// twice, on every manifest of every load (issue 25).
	buf := make([]byte, 0, st.Size()+1)
	r := io.LimitReader(f, k.Max+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s %s: %w", k.Name, path, context.Cause(ctx))
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), chunk))
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+chunk)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > k.Max {
			return nil, tooLarge(path, k, int64(len(buf)))
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func tooLarge(path string, k Kind, size int64) error {
	return &Error{Path: path, Kind: k, Msg: fmt.Sprintf("%s is %s, over the %s limit for a %s: refused", k.Name, Size(size), Size(k.Max), k.Name)}
}

func describe(m fs.FileMode) string {
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
		return "a device"
	}
	return "a special file"
}

// Size renders a byte count for messages: "64 MiB", "200000000 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
