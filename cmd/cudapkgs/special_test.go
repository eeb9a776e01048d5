package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// generate over a manifests folder holding a named pipe, a symbolic link to
// /dev/zero and a 200 MB manifest: each is refused with a warning naming it
// (before any plugin sees it), nothing hangs, and the rest is generated.
func TestGenerateRefusesSpecialManifests(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(shared.Manifests(t), "cuda", "redistrib_12.4.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cuda := filepath.Join(dir, "cuda")
	if err := os.MkdirAll(cuda, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cuda, "redistrib_12.4.1.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(cuda, "redistrib_12.6.0.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	zero := filepath.Join(cuda, "redistrib_12.8.0.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(cuda, "redistrib_12.9.0.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(200_000_000); err != nil {
		t.Fatal(err)
	}
	f.Close()

	out := filepath.Join(t.TempDir(), "out")
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		code, _, stderr = runCLI(t, "generate", "--manifests", dir, "--workspace", t.TempDir(), "--platform", "linux-x86_64", "--out", out)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("generate hangs")
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	wantOutput(t, "stderr", stderr,
		fifo+": manifest is a named pipe (FIFO), not a regular file: refused",
		zero+": manifest is a character device, not a regular file: refused",
		huge+": manifest is 200000000 bytes, over the 64 MiB limit for a manifest: refused")
}
