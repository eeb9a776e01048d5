// Package golden is the one harness for golden tests: it holds what a test
// produced (a tree of files, or one file) to what testdata keeps, and under
// -update rewrites testdata to match, so every golden test in the module is
// refreshed the same way: go test ./pkg -update.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
)

// update is registered here once, so that no test package registers its own
// and the flag means the same in each.
var update = flag.Bool("update", false, "rewrite golden files under testdata with what the tests produce")

// Update reports whether the tests run with -update (for harnesses that
// rewrite their own files, such as testscript's UpdateScripts).
func Update() bool { return *update }

// Dir holds the files under dir to got (slash-separated paths relative to
// dir). It reports each file got adds, each it lacks and each that differs,
// with a unified diff. Under -update it makes dir hold exactly got instead,
// deleting files got no longer has.
func Dir(t testing.TB, dir string, got map[string][]byte) {
	t.Helper()
	if *update {
		if err := write(dir, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	if r := report(readDir(t, dir), got); r != "" {
		t.Errorf("%s differs (%s):\n%s", dir, hint(), r)
	}
}

// File holds the file at path to got; under -update it writes got there.
func File(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := writeFile(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s)", err, hint())
	}
	if d := diff.Diff("want/"+path, want, "got/"+path, got); d != nil {
		t.Errorf("%s differs (%s):\n%s", path, hint(), d)
	}
}

// Equal holds got to want where want is not a golden file but a source the
// repository already keeps (a file a generator copies): -update must not
// paper over a difference, so it has no say here.
func Equal(t testing.TB, name string, want, got []byte) {
	t.Helper()
	if d := diff.Diff("want/"+name, want, "got/"+name, got); d != nil {
		t.Errorf("%s differs from its source:\n%s", name, d)
	}
}

// readDir reads every file under dir, by slash-separated relative path; a
// dir that does not exist reads as empty, so a new golden test reports
// every file as added rather than failing to read.
func readDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// report says how got differs from want, file by file in path order; ""
// when they are the same.
func report(want, got map[string][]byte) string {
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var b strings.Builder
	for _, p := range paths {
		w, inWant := want[p]
		g, inGot := got[p]
		switch {
		case !inWant:
			fmt.Fprintf(&b, "added: %s (produced, not in testdata)\n%s", p, diff.Diff("/dev/null", nil, "got/"+p, g))
		case !inGot:
			fmt.Fprintf(&b, "missing: %s (in testdata, not produced)\n", p)
		case !bytes.Equal(w, g):
			fmt.Fprintf(&b, "changed: %s\n%s", p, diff.Diff("want/"+p, w, "got/"+p, g))
		}
	}
	return b.String()
}

// write makes dir hold exactly files: it is removed first, so that a file
// the test no longer produces does not linger as a stale golden.
func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for p, b := range files {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(p)), b); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// hint is the command that refreshes the goldens of the package under test
// (go test runs in the package's folder; the module root has go.mod).
func hint() string {
	pkg := "."
	if wd, err := os.Getwd(); err == nil {
		for root := wd; ; root = filepath.Dir(root) {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				if rel, err := filepath.Rel(root, wd); err == nil && rel != "." {
					pkg = "./" + filepath.ToSlash(rel)
				}
				break
			}
			if filepath.Dir(root) == root {
				break
			}
		}
	}
	return "refresh with go test " + pkg + " -update"
}
