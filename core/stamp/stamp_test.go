package stamp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/outdir"
)

func gen(body string) []byte { return []byte(buildfile.Header + "\n" + body) }

// TestStamp: the stamp written with a tree holds while nothing changes, and
// any change of an input (known before or found during the run) or of an
// output makes UpToDate answer false.
func TestStamp(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	conf := filepath.Join(root, "cudapkgs.star")
	mdir := filepath.Join(root, "manifests", "cuda")
	if err := os.MkdirAll(mdir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, c string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(conf, "cuda_versions([\"12.4.1\"])\n")
	write(filepath.Join(mdir, "redistrib_12.4.1.json"), "{}")
	write(filepath.Join(mdir, "notes.txt"), "not a manifest")
	before := Inputs{{Kind: Value, Name: "flag cuda", Value: "12.4.1"}, {Kind: Manifests, Name: mdir}}
	after := Inputs{{Kind: File, Name: conf}, {Kind: Value, Name: "plugin", Value: "abc /bin/p"}}
	tree := buildfile.Tree{"BUILD.bazel": gen("a")}
	stamp := func(t *testing.T) {
		t.Helper()
		pre, err := Digest(before)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Make(pre, after, tree)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := outdir.Write(context.Background(), dir, tree, outdir.Options{Stamp: b}); err != nil {
			t.Fatal(err)
		}
		if !UpToDate(dir, pre) {
			t.Fatal("not up to date right after the stamp")
		}
	}
	upToDate := func() bool {
		pre, err := Digest(before)
		return err == nil && UpToDate(dir, pre)
	}
	for _, tc := range []struct {
		name   string
		change func()
		want   bool
	}{
		{"nothing changed", func() {}, true},
		{"a file that is not a manifest", func() { write(filepath.Join(mdir, "notes.txt"), "other") }, true},
		{"a manifest", func() { write(filepath.Join(mdir, "redistrib_12.4.1.json"), "{ }") }, false},
		{"a new manifest", func() { write(filepath.Join(mdir, "redistrib_12.6.3.json"), "{}") }, false},
		{"a file read during the run", func() { write(conf, "# edited\n") }, false},
		{"an output", func() { write(filepath.Join(dir, "BUILD.bazel"), "edited") }, false},
		{"a removed output", func() { os.Remove(filepath.Join(dir, "BUILD.bazel")) }, false},
		{"a flag", func() { before = append(Inputs{{Kind: Value, Name: "flag name", Value: "gpu"}}, before...) }, false},
		{"a corrupt stamp", func() { write(filepath.Join(dir, outdir.StampFile), buildfile.Header+"\ngarbage\n") }, false},
		{"no stamp", func() { os.Remove(filepath.Join(dir, outdir.StampFile)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stamp(t)
			tc.change()
			if got := upToDate(); got != tc.want {
				t.Errorf("up to date = %v, want %v", got, tc.want)
			}
		})
	}
	// The stamp is never removed as a stale generated file.
	stamp(t)
	pre, _ := Digest(before)
	b, _ := Make(pre, after, tree)
	if _, err := outdir.Write(context.Background(), dir, tree, outdir.Options{Stamp: b}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, outdir.StampFile)); err != nil {
		t.Errorf("the stamp is gone after a write: %v", err)
	}
}
