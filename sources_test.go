package cudapkgs_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

// Sources merge per (product, release), the first winning; a missing
// optional folder adds nothing; one with nothing readable is a warning.
func TestSourcesMerge(t *testing.T) {
	files := snapshotFiles(t)
	embedded := fstest.MapFS{}
	for k, b := range files {
		embedded[k] = &fstest.MapFile{Data: b}
	}
	first := t.TempDir()
	key := "cuda/redistrib_12.4.1.json"
	if err := os.MkdirAll(filepath.Join(first, "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(first, key), files[key], 0o644); err != nil {
		t.Fatal(err)
	}
	var warned []string
	in := cudapkgs.Inputs{
		Workspace: t.TempDir(),
		Sources: []cudapkgs.ManifestSource{
			{Name: "missing", Dir: filepath.Join(first, "none"), Optional: true},
			{Name: "first", Dir: first, Optional: true},
			{Name: "embedded", FS: func() (fs.FS, error) { return embedded, nil }, Digest: "d1"},
		},
		Warn: func(s string) { warned = append(warned, s) },
	}
	r, err := cudapkgs.Evaluate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	origins := map[string]int{}
	for _, m := range r.Collection.All() {
		origins[r.Collection.Origin(m)]++
		if m.Product == "cuda" && m.Release.String() == "12.4.1" && r.Collection.Origin(m) != "first" {
			t.Errorf("12.4.1 from %q, want first", r.Collection.Origin(m))
		}
	}
	if origins["first"] != 1 || origins["embedded"] != len(files)-1 || len(origins) != 2 {
		t.Errorf("origins %v", origins)
	}
	if len(warned) != 0 {
		t.Errorf("warnings %v", warned)
	}

	// No source with a manifest: ErrNoManifests, naming the sources.
	in.Sources = in.Sources[:1]
	if _, err := cudapkgs.Evaluate(context.Background(), in); !errors.Is(err, manifest.ErrNoManifests) || !strings.Contains(err.Error(), "missing "+filepath.Join(first, "none")) {
		t.Errorf("no manifests: %v", err)
	}
}

// A source's copy of a release that a later source pins (the snapshot's
// lock) must have the pinned bytes unless a lock of the run pins it
// (issue 24: a tampered cached release replaced the snapshot's unseen).
func TestSourcesPinsGuardOverrides(t *testing.T) {
	files := snapshotFiles(t)
	embedded := fstest.MapFS{}
	pins := source.NewLock("the snapshot's manifests.lock")
	for k, b := range files {
		embedded[k] = &fstest.MapFile{Data: b}
		pins.Manifests[k] = source.EntryFor(b)
	}
	key := "cuda/redistrib_12.4.1.json"
	edited := bytes.Replace(files[key], []byte(`"release_date": "`), []byte(`"release_date": "x`), 1)
	if bytes.Equal(edited, files[key]) {
		t.Fatal("no release_date to edit")
	}
	ws := t.TempDir()
	cache := t.TempDir()
	write := func(data []byte) {
		if err := os.MkdirAll(filepath.Join(cache, "cuda"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cache, key), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := cudapkgs.Inputs{
		Workspace: ws,
		Sources: []cudapkgs.ManifestSource{
			{Name: "cache", Dir: cache, Optional: true},
			{Name: "snapshot", FS: func() (fs.FS, error) { return embedded, nil }, Digest: "d1", Pins: pins},
		},
	}
	// The same bytes as the snapshot's: used.
	write(files[key])
	r, err := cudapkgs.Evaluate(context.Background(), in)
	if err != nil {
		t.Fatalf("same bytes: %v", err)
	}
	r.Close()
	// Other bytes, no lock: refused, naming the file and both digests.
	write(edited)
	_, err = cudapkgs.Evaluate(context.Background(), in)
	var oe *source.OverrideError
	if !errors.As(err, &oe) || oe.Key != key || oe.Actual != source.EntryFor(edited) || oe.Expected != pins.Manifests[key] || oe.Source != "snapshot" || len(oe.Locks) != 0 {
		t.Fatalf("edited cache: %v, want a *source.OverrideError", err)
	}
	// A lock that pins the other bytes: used, from the cache.
	l := source.NewLock(filepath.Join(ws, source.LockFileName))
	l.Manifests[key] = source.EntryFor(edited)
	if err := l.Write(); err != nil {
		t.Fatal(err)
	}
	in.Lock = l.Path
	r, err = cudapkgs.Evaluate(context.Background(), in)
	if err != nil {
		t.Fatalf("pinned edit: %v", err)
	}
	defer r.Close()
	for _, m := range r.Collection.All() {
		if m.Product == "cuda" && m.Release.String() == "12.4.1" && r.Collection.Origin(m) != "cache" {
			t.Errorf("12.4.1 from %q, want the cache", r.Collection.Origin(m))
		}
	}
}

// snapshotFiles are the embedded snapshot's manifests by path.
func snapshotFiles(t *testing.T) map[string][]byte {
	t.Helper()
	fsys, err := snapshot.FS()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files[p], err = fs.ReadFile(fsys, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
