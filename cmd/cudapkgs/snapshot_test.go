package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

// freshHome is a machine with no cache: HOME and XDG_CACHE_HOME empty
// folders, the working folder a new one. Nothing here reads ../shared.
func freshHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	wd := t.TempDir()
	t.Chdir(wd)
	return home
}

// runAt runs a command line in process with the clock at now (zero: the
// real clock).
func runAt(t *testing.T, now time.Time, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb}
	if !now.IsZero() {
		a.now = func() time.Time { return now }
	}
	code = a.execute(context.Background(), args)
	return code, out.String(), errb.String()
}

func snapshotTime(t *testing.T) time.Time {
	t.Helper()
	info, err := snapshot.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	tm, err := info.Time()
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// The README's first command on a fresh machine: no cache, no --manifests,
// no network; the snapshot serves, and a second run is up to date.
func TestGenerateFromSnapshotOnly(t *testing.T) {
	freshHome(t)
	now := snapshotTime(t).Add(24 * time.Hour)
	code, _, stderr := runAt(t, now, "generate", "--cuda", "12.4.1", "--out", "third_party/cuda")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"MODULE.bazel", "BUILD.bazel", "WORKSPACE", "extensions.bzl"} {
		if _, err := os.Stat(filepath.Join("third_party/cuda", f)); err != nil {
			t.Error(err)
		}
	}
	if strings.Contains(stderr, "note:") || strings.Contains(stderr, "warning:") {
		t.Errorf("stderr: %s", stderr)
	}
	code, _, stderr = runAt(t, now, "generate", "--cuda", "12.4.1", "--out", "third_party/cuda")
	if code != 0 || !strings.Contains(stderr, "up to date") {
		t.Errorf("second run: exit %d: %s", code, stderr)
	}
}

// generate says once when the snapshot that served is over 180 days old;
// not when it is younger, nor when --manifests replaced it.
func TestGenerateSaysSnapshotIsOld(t *testing.T) {
	freshHome(t)
	taken := snapshotTime(t)
	code, _, stderr := runAt(t, taken.Add(181*24*time.Hour), "generate", "--cuda", "12.4.1,12.6", "--out", "old")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "note: the manifests built into cudapkgs are from " + taken.Format(time.DateOnly) + " (181 days ago)"
	if strings.Count(stderr, "note:") != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "cudapkgs manifests fetch") {
		t.Errorf("stderr %q, want once %q", stderr, want)
	}
	if code, _, stderr := runAt(t, taken.Add(179*24*time.Hour), "generate", "--cuda", "12.4.1", "--out", "young"); code != 0 || strings.Contains(stderr, "note:") {
		t.Errorf("179 days: exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	writeManifest(t, filepath.Join(dir, "cuda", "redistrib_12.4.1.json"), snapshotManifest(t, "cuda/redistrib_12.4.1.json"))
	if code, _, stderr := runAt(t, taken.Add(400*24*time.Hour), "generate", "--manifests", dir, "--cuda", "12.4.1", "--out", "own"); code != 0 || strings.Contains(stderr, "note:") {
		t.Errorf("--manifests: exit %d: %s", code, stderr)
	}
}

func snapshotManifest(t *testing.T, key string) []byte {
	t.Helper()
	fsys, err := snapshot.FS()
	if err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(fsys, key)
	if err != nil {
		t.Fatalf("%s not in the snapshot: %v", key, err)
	}
	return b
}

func writeManifest(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The cache and the snapshot merge per (product, release), the cache
// winning; eval says which served each release, and the snapshot's date.
func TestEvalShowsSources(t *testing.T) {
	home := freshHome(t)
	cache := filepath.Join(home, ".cache", "cudapkgs", "manifests")
	// A cached 12.4.1 (its date changed, so it differs from the snapshot's)
	// and a release the snapshot lacks.
	// The changed 12.4.1 is pinned in the workspace's lock: unpinned, it
	// would not replace the snapshot's copy (source.OverrideError).
	orig := snapshotManifest(t, "cuda/redistrib_12.4.1.json")
	changed := bytes.Replace(orig, []byte(`"release_date": "`), []byte(`"release_date": "1`), 1)
	writeManifest(t, filepath.Join(cache, "cuda", "redistrib_12.4.1.json"), changed)
	writeManifest(t, filepath.Join(cache, "cuda", "redistrib_12.4.9.json"), bytes.ReplaceAll(orig, []byte(`"12.4.1"`), []byte(`"12.4.9"`)))
	lock := source.NewLock(source.LockFileName) // at the workspace root, the working folder
	lock.Manifests["cuda/redistrib_12.4.1.json"] = source.EntryFor(changed)
	if err := lock.Write(); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runAt(t, time.Time{}, "eval", "--cuda", "12.4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		CUDA      []string      `json:"cuda"`
		Manifests jsonManifests `json:"manifests"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.CUDA) != 1 || got.CUDA[0] != "12.4.9" {
		t.Errorf("cuda %v, want the cache's 12.4.9 as the newest 12.4", got.CUDA)
	}
	served := got.Manifests.Served["cuda"]
	for rel, want := range map[string]string{"12.4.9": "cache", "12.4.1": "cache", "12.4.0": "snapshot", "11.8.0": "snapshot"} {
		if served[rel] != want {
			t.Errorf("cuda %s served by %q, want %q", rel, served[rel], want)
		}
	}
	if got.Manifests.Served["tensorrt"]["10.7.0"] != "snapshot" {
		t.Errorf("tensorrt: %v", got.Manifests.Served["tensorrt"])
	}
	info, _ := snapshot.Embedded()
	srcs := got.Manifests.Sources
	if len(srcs) != 2 || srcs[0].Name != "cache" || srcs[0].Path != cache || srcs[0].Served != 2 ||
		srcs[1].Name != "snapshot" || srcs[1].Date != info.Date || srcs[1].Served != info.Manifests-1 {
		t.Errorf("sources %+v", srcs)
	}
	// With --manifests, that folder alone (the workspace's lock, which
	// pins the changed 12.4.1, would refuse the folder's).
	if err := os.Remove(source.LockFileName); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, "own")
	writeManifest(t, filepath.Join(dir, "cuda", "redistrib_12.4.1.json"), orig)
	code, stdout, stderr = runAt(t, time.Time{}, "eval", "--manifests", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got.Manifests = jsonManifests{}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if srcs := got.Manifests.Sources; len(srcs) != 1 || srcs[0].Name != "manifests" || srcs[0].Path != dir || srcs[0].Served != 1 || got.Manifests.Served["cuda"]["12.4.1"] != "manifests" {
		t.Errorf("--manifests: %+v", got.Manifests)
	}
}

// Errors that mean "no manifests" say the three ways to get them.
func TestNoManifestsSaysThreeWays(t *testing.T) {
	freshHome(t)
	writeManifest(t, "cudapkgs.lock", []byte("{\"version\": 1, \"manifests\": {}}\n"))
	empty := t.TempDir()
	for _, args := range [][]string{
		{"query", "--manifests", empty},
		{"query", "--manifests", filepath.Join(empty, "missing")},
		{"query", "--cuda", "99.1"},
		{"query", "--pin", "cudnn=1.0"},
		{"manifests", "verify"},
	} {
		code, stdout, stderr := runAt(t, time.Time{}, args...)
		if code == 0 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, stdout)
		}
		for _, want := range []string{"snapshot built into cudapkgs", "cudapkgs manifests fetch", "--manifests DIR"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr %q lacks %q", args, stderr, want)
			}
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: more than one line: %q", args, stderr)
		}
	}
}
