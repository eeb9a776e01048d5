package buildfile

import (
	"fmt"
	"testing"

	"github.com/bazelbuild/buildtools/build"
)

// TestFormatter: what the Formatter gives is what Format and
// FormatCanonical give file by file, whatever order the workers finish in;
// a path put twice keeps the last; Set's bytes are kept as they are.
func TestFormatter(t *testing.T) {
	mk := func(path, name string) *build.File {
		f := NewFile(path, build.TypeBuild)
		// deps before name: Format sorts the arguments, FormatCanonical
		// keeps them, so each shows which one ran.
		f.Stmt = append(f.Stmt, Call("cc_library", Arg("deps", StrList([]string{":b", ":a"})), Arg("name", Str(name))))
		return f
	}
	fm := NewFormatter()
	want := Tree{}
	for i := range 200 {
		p := fmt.Sprintf("p%d/BUILD.bazel", i)
		if i%2 == 0 {
			fm.Put(mk(p, "x"))
			want[p] = Format(mk(p, "x"))
		} else {
			fm.PutCanonical(mk(p, "x"))
			want[p] = FormatCanonical(mk(p, "x"))
		}
	}
	fm.Put(mk("p0/BUILD.bazel", "second"))
	want["p0/BUILD.bazel"] = Format(mk("p0/BUILD.bazel", "second"))
	fm.Set("fixed.bzl", []byte("# fixed\n"))
	want["fixed.bzl"] = []byte("# fixed\n")

	got := fm.Tree()
	if len(got) != len(want) {
		t.Fatalf("%d files, want %d", len(got), len(want))
	}
	for p, b := range want {
		if string(got[p]) != string(b) {
			t.Errorf("%s:\n%s\nwant:\n%s", p, got[p], b)
		}
	}
	if string(got["p1/BUILD.bazel"]) == string(got["p2/BUILD.bazel"]) {
		t.Error("Put and PutCanonical printed the same bytes: the test shows nothing")
	}
}
