package cudapkgs_test

import (
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
