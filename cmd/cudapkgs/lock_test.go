package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
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
	// Issue 24: with no lock pinning it, the forged cache file replaced the
	// snapshot's copy unseen. The snapshot's own lock now guards it.
	code, _, stderr = runCLI(t, args("--workspace", ws)...)
	if code != 1 {
		t.Errorf("forged cache without a workspace lock: exit %d, want 1\n%s", code, stderr)
	}
	wantOutput(t, "stderr", stderr, cached+": sha256 "+bad.SHA256+" ("+strconv.FormatInt(bad.Size, 10)+" bytes) would replace the snapshot's copy of cuda/redistrib_12.4.1.json, which the snapshot's manifests.lock pins to sha256 "+locked.SHA256,
		"and there is no lock file: refused", "delete the file to use the snapshot's copy, or download the release again and pin what arrives with `cudapkgs manifests fetch --release cuda=12.4.1` in the workspace")
	wsLock := filepath.Join(ws, source.LockFileName)
	writeLock(wsLock)
	code, _, stderr = runCLI(t, args("--workspace", ws)...)
	if code != 1 {
		t.Errorf("forged cache: exit %d, want 1", code)
	}
	wantOutput(t, "stderr", stderr, cached+": sha256 "+bad.SHA256, "does not match "+wsLock)

	// --manifests pointed at the cache is checked against the workspace's
	// lock too (issue 24: it stepped around it), with or without a lock of
	// its own.
	code, _, stderr = runCLI(t, args("--workspace", ws, "--manifests", cache)...)
	if code != 1 {
		t.Errorf("--manifests <cache>: exit %d, want 1\n%s", code, stderr)
	}
	wantOutput(t, "stderr", stderr, cached+": sha256 "+bad.SHA256, "does not match "+wsLock)
	ownLock := filepath.Join(cache, source.LockFileName)
	l := source.NewLock(ownLock)
	l.Manifests["cuda/redistrib_12.4.1.json"] = bad
	if err := l.Write(); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, args("--workspace", ws, "--manifests", cache)...)
	if code != 1 {
		t.Errorf("--manifests <cache> with its own lock: exit %d, want 1\n%s", code, stderr)
	}
	wantOutput(t, "stderr", stderr, cached+": sha256 "+bad.SHA256, "does not match "+wsLock)
	if err := os.Remove(ownLock); err != nil {
		t.Fatal(err)
	}

	// The way out the message gives: a fetch of the release downloads it
	// again, since the cached copy differs from the snapshot's, and pins
	// what arrives; the edited bytes are never locked as they are.
	if err := os.Remove(wsLock); err != nil {
		t.Fatal(err)
	}
	srv := newManifestServer(t)
	srv.serve(t, "nv", "cuda", "12.4.1", data)
	code, fetched, stderr := runCLI(t, "manifests", "fetch", "--base", srv.url("nv"), "--release", "cuda=12.4.1", "--lock", wsLock, "--workspace", ws)
	if code != 0 {
		t.Fatalf("fetching the release again: exit %d\n%s", code, stderr)
	}
	wantOutput(t, "stdout", fetched, "(1 fetched, 0 cached)")
	if got, err := source.ReadLock(wsLock); err != nil || got.Manifests["cuda/redistrib_12.4.1.json"] != locked {
		t.Errorf("the workspace's lock pins %v (%v), want the served bytes %v", got.Manifests, err, locked)
	}
	if code, _, stderr = runCLI(t, args("--workspace", ws)...); code != 0 {
		t.Errorf("after the fetch: exit %d\n%s", code, stderr)
	}
}
