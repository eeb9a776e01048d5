package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// query and generate check the manifests against the lock that pins them: a
// --manifests folder against the cudapkgs.lock inside it, the download cache
// against the workspace's cudapkgs.lock. A manifest edited after it was
// locked is refused, naming the file and both digests.
func TestLockCheckedOnUse(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(shared.Manifests(t), "cuda", "redistrib_12.4.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	locked := source.EntryFor(data)
	// The forgery: another archive's sha256, still a valid manifest.
	i := bytes.Index(data, []byte(`"sha256": "`)) + len(`"sha256": "`)
	forged := bytes.Clone(data)
	copy(forged[i:], strings.Repeat("0", 64))
	bad := source.EntryFor(forged)

	setup := func(dir string, manifest []byte) string {
		p := filepath.Join(dir, "cuda", "redistrib_12.4.1.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	writeLock := func(path string) {
		l := source.NewLock(path)
		l.Manifests["cuda/redistrib_12.4.1.json"] = locked
		if err := l.Write(); err != nil {
			t.Fatal(err)
		}
	}
	args := func(extra ...string) []string {
		return append([]string{"query", "--cuda", "12.4.1", "--platform", "linux-x86_64", "--package", "cuda_cccl"}, extra...)
	}
	ws := t.TempDir()

	// A folder with its own lock.
	dir := t.TempDir()
	file := setup(dir, data)
	writeLock(filepath.Join(dir, source.LockFileName))
	if code, _, stderr := runCLI(t, args("--manifests", dir, "--workspace", ws)...); code != 0 {
		t.Fatalf("locked folder: exit %d\n%s", code, stderr)
	}
	setup(dir, forged)
	code, _, stderr := runCLI(t, args("--manifests", dir, "--workspace", ws)...)
	if code != 1 {
		t.Errorf("forged manifest: exit %d, want 1", code)
	}
	wantOutput(t, "stderr", stderr, file+": sha256 "+bad.SHA256, "does not match "+filepath.Join(dir, source.LockFileName), "sha256 "+locked.SHA256)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr = runCLI(t, "generate", "--manifests", dir, "--workspace", ws, "--cuda", "12.4.1", "--platform", "linux-x86_64", "--out", out)
	if code != 1 {
		t.Errorf("generate from a forged manifest: exit %d, want 1", code)
	}
	wantOutput(t, "generate's stderr", stderr, file+": sha256 "+bad.SHA256, "sha256 "+locked.SHA256)
	if _, err := os.Stat(out); err == nil {
		t.Errorf("generate wrote %s", out)
	}

	// An explicit --lock, and the download cache against the workspace's lock.
	other := filepath.Join(t.TempDir(), "pins.lock")
	writeLock(other)
	if code, _, stderr = runCLI(t, args("--manifests", dir, "--workspace", ws, "--lock", other)...); code != 1 || !strings.Contains(stderr, "does not match "+other) {
		t.Errorf("--lock: exit %d\n%s", code, stderr)
	}
	cacheHome := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	t.Setenv("HOME", cacheHome)
	cache, err := source.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	cached := setup(cache, forged)
	if code, _, stderr = runCLI(t, args("--workspace", ws)...); code != 0 {
		t.Fatalf("cache without a workspace lock: exit %d\n%s", code, stderr)
	}
	writeLock(filepath.Join(ws, source.LockFileName))
	code, _, stderr = runCLI(t, args("--workspace", ws)...)
	if code != 1 {
		t.Errorf("forged cache: exit %d, want 1", code)
	}
	wantOutput(t, "stderr", stderr, cached+": sha256 "+bad.SHA256, "does not match "+filepath.Join(ws, source.LockFileName))
}
