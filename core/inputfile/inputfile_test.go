package inputfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadRegularAndSymlink(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p, link} {
		b, err := Read(context.Background(), f, Manifest)
		if err != nil || string(b) != "{}" {
			t.Errorf("Read(%s) = %q, %v", f, b, err)
		}
	}
	if _, err := Read(context.Background(), filepath.Join(dir, "missing"), Manifest); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

// A named pipe with no writer must be refused at once, not waited on.
func TestFIFORefusedWithoutHanging(t *testing.T) {
	p := filepath.Join(t.TempDir(), "redistrib_12.4.1.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Read(context.Background(), p, Manifest); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), p) {
			t.Errorf("FIFO: %v, want a refusal naming the file and a named pipe", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO hangs")
	}
}

// /dev/zero, directly or through a symbolic link, is never read.
func TestDeviceRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	link := filepath.Join(t.TempDir(), "redistrib_12.4.1.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", link} {
		_, err := Read(context.Background(), p, Manifest)
		if err == nil || !strings.Contains(err.Error(), "manifest is a character device, not a regular file") {
			t.Errorf("Read(%s): %v", p, err)
		}
	}
}

// A file over the limit is refused from its size, naming the file, the kind
// and the limit; a sparse 200 MB file costs nothing to make.
func TestSizeLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(200_000_000); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Read(context.Background(), p, Manifest)
	want := p + ": manifest is 200000000 bytes, over the 64 MiB limit for a manifest: refused"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	small := Kind{"lock file", 10}
	if err := os.WriteFile(p, []byte("01234567890"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), p, small); err == nil || !strings.Contains(err.Error(), "over the 10 bytes limit for a lock file") {
		t.Errorf("11 bytes over a 10-byte limit: %v", err)
	}
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(context.Background(), p, small); err != nil || len(b) != 10 {
		t.Errorf("exactly the limit: %q, %v", b, err)
	}
}

func TestCanceled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.star")
	if err := os.WriteFile(p, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, p, Starlark); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled read: %v", err)
	}
}
