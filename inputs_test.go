package cudapkgs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/stamp"
)

// TestStampInputs: the inputs hashed before a run name each source (a
// folder's product folders, a file system's digest; a missing optional
// folder is no error) and the program of each built-in plugin once, by
// path, size and time.
func TestStampInputs(t *testing.T) {
	first := t.TempDir()
	if err := os.MkdirAll(filepath.Join(first, "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "plugins")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	in := Inputs{
		Workspace: t.TempDir(),
		Sources: []ManifestSource{
			{Name: "missing", Dir: filepath.Join(first, "none"), Optional: true},
			{Name: "first", Dir: first, Optional: true},
			{Name: "embedded", FS: func() (fs.FS, error) { return fstest.MapFS{}, nil }, Digest: "d1"},
		},
		Builtins: []fixup.Spec{{Name: "a", Command: []string{exe, "a"}}, {Name: "b", Command: []string{exe, "b"}}},
	}
	list, err := in.stampInputs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	exes := 0
	for _, s := range list {
		got = append(got, s.Name+"="+s.Value)
		if s.Name == "exe" {
			exes++
		}
	}
	joined := strings.Join(got, " ")
	for _, want := range []string{"manifests embedded=digest d1", "manifests first=" + first, filepath.Join(first, "cuda") + "=", `exe="` + exe + `" 10 `} {
		if !strings.Contains(joined, want) {
			t.Errorf("stamp inputs %q lack %q", joined, want)
		}
	}
	if exes != 1 {
		t.Errorf("%d exe inputs, want 1 for the one program: %q", exes, joined)
	}
	if list[len(list)-1].Kind != stamp.Value {
		t.Errorf("last stamp input %+v", list[len(list)-1])
	}
	// A built-in's program that is gone: no stamp can vouch for the run.
	in.Builtins = []fixup.Spec{{Name: "gone", Command: []string{filepath.Join(first, "gone")}}}
	if _, err := in.stampInputs(); err == nil {
		t.Error("no error for a missing plugin program")
	}
}
