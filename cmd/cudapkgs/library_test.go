package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/outdir"
)

// TestLibraryDefaultsMatchCLI: a Go program that calls cudapkgs.Generate
// with every default left zero (workspace found from the working folder,
// its cudapkgs.star, the download cache over the built-in snapshot, the
// built-in plugins started as this program) gets, byte for byte, the tree
// `cudapkgs generate` writes from the same place.
func TestLibraryDefaultsMatchCLI(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(ws, "no-cache"))
	if err := os.WriteFile(filepath.Join(ws, "cudapkgs.star"), []byte("cuda_versions([\"12.4.1\"])\ntarget_platforms([\"linux-x86_64\", \"linux-sbsa\"])\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(ws, "sub", "dir")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)

	cli := filepath.Join(ws, "cli")
	mustGenerate(t, "generate", "--out", cli)
	lib := filepath.Join(ws, "lib")
	res, err := cudapkgs.Generate(context.Background(), cudapkgs.Job{Out: lib})
	if err != nil {
		t.Fatal(err)
	}
	if res.SnapshotTaken.IsZero() {
		t.Error("the snapshot served, but the result does not say when it was taken")
	}
	want, got := readTree(t, cli), readTree(t, lib)
	delete(want, outdir.StampFile) // the command line's flags are in its key
	delete(got, outdir.StampFile)
	if len(got) != len(want) || len(got) == 0 {
		t.Errorf("the library wrote %d files, the command line %d", len(got), len(want))
	}
	for p, b := range want {
		if !bytes.Equal(got[p], b) {
			t.Errorf("%s differs between the library's tree and the command line's", p)
		}
	}
}
