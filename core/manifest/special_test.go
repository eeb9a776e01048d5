package manifest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A manifests folder with a 200 MB manifest, a manifest that is a symbolic
// link to /dev/zero and one that is a named pipe: each is refused (a warning
// naming the file and why) without being read, at once, and the good one
// loads.
func TestLoadDirRefusesSpecialAndHugeFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cuda", "redistrib_12.4.1.json"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "cuda", "redistrib_12.5.0.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(200_000_000); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	f.Close()
	zero := filepath.Join(dir, "cuda", "redistrib_12.6.0.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "cuda", "redistrib_12.8.0.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	done := make(chan struct{})
	var c *Collection
	go func() { c, err = LoadDir(dir); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("LoadDir hangs")
	}
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Releases("cuda")); n != 1 {
		t.Errorf("%d cuda releases served, want 1", n)
	}
	want := map[string]string{
		huge: "manifest is 200000000 bytes, over the 64 MiB limit for a manifest: refused",
		zero: "manifest is a character device, not a regular file: refused",
		fifo: "manifest is a named pipe (FIFO), not a regular file: refused",
	}
	for _, r := range c.Refused() {
		if w, ok := want[r.File]; !ok || !strings.Contains(r.Err.Error(), r.File+": "+w) {
			t.Errorf("refused %s: %v, want %q", r.File, r.Err, w)
		}
		delete(want, r.File)
	}
	if len(want) > 0 {
		t.Errorf("not refused: %v", want)
	}
}

func TestLoadCanceled(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cuda", "redistrib_12.4.1.json"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, dir, LoadOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}
