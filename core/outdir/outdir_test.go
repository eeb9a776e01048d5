package outdir

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/core/buildfile"
)

func gen(body string) []byte { return []byte(buildfile.Header + "\n" + body) }

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	first := buildfile.Tree{"BUILD.bazel": gen("a"), "repos/x.BUILD": gen("x"), "repos/old/y.BUILD": gen("y")}
	st, err := Write(context.Background(), dir, first, Options{})
	if err != nil || st != (Stats{Written: 3}) {
		t.Fatalf("first write: %+v, %v", st, err)
	}
	// The user's own files, generated-looking or not, that the tree never
	// had: only generated ones are removed.
	if err := os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(filepath.Join(dir, "BUILD.bazel"), past, past); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(filepath.Join(dir, "BUILD.bazel"))
	second := buildfile.Tree{"BUILD.bazel": gen("a"), "repos/x.BUILD": gen("x2")}
	st, err = Write(context.Background(), dir, second, Options{})
	if err != nil || st != (Stats{Written: 1, Unchanged: 1, Removed: 1}) {
		t.Fatalf("second write: %+v, %v", st, err)
	}
	if got := read(t, filepath.Join(dir, "repos/x.BUILD")); got != string(gen("x2")) {
		t.Errorf("repos/x.BUILD = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "repos/old")); !os.IsNotExist(err) {
		t.Errorf("the emptied folder repos/old is still there: %v", err)
	}
	if after, err := os.Stat(filepath.Join(dir, "BUILD.bazel")); err != nil || !after.ModTime().Equal(past) || !os.SameFile(before, after) {
		t.Errorf("the unchanged BUILD.bazel was replaced: %v", err)
	}
	if read(t, filepath.Join(dir, "mine.txt")) != "mine\n" {
		t.Error("the user's file changed")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("temporary folders left next to the output: %v", entries)
	}
}

func TestWriteRefusesBeforeTouching(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(dir string) error
		want  string
	}{
		{"out is a file", func(dir string) error { return os.WriteFile(dir, nil, 0o644) }, "not a folder"},
		{"a file where a folder goes", func(dir string) error {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "repos"), []byte("x"), 0o644)
		}, "repos is not a folder"},
		{"a folder where a file goes", func(dir string) error { return os.MkdirAll(filepath.Join(dir, "BUILD.bazel"), 0o755) },
			"exists and is not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if err := tc.setup(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Write(context.Background(), dir, buildfile.Tree{"BUILD.bazel": gen("a"), "repos/x.BUILD": gen("x")}, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "repos", "x.BUILD")); err == nil {
				t.Error("a file was written anyway")
			}
		})
	}
}

// TestErrorsNameTheFolder: a failure names the folder as the caller gave
// it and the files in it, never the work folder next to it.
func TestErrorsNameTheFolder(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  func(root string) string
		hook func(root string) func(string)
		want []string
	}{
		{"no work folder possible", func(string) string { return "/proc/cudapkgs-test-out" }, nil,
			[]string{"/proc/cudapkgs-test-out: creating a temporary folder in /proc: "}},
		{"a file of the new tree", func(root string) string { return filepath.Join(root, "out") }, func(root string) func(string) {
			return func(s string) {
				if s != "write" {
					return
				}
				// The new tree's BUILD.bazel a folder: its write fails.
				ms, _ := filepath.Glob(filepath.Join(root, ".out"+workInfix+"*", newTree))
				for _, m := range ms {
					os.MkdirAll(filepath.Join(m, "BUILD.bazel"), 0o755)
				}
			}
		}, []string{"open " + filepath.Join("ROOT", "out", "BUILD.bazel") + ": is a directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var opt Options
			if tc.hook != nil {
				opt.step = tc.hook(root)
			}
			dir := tc.dir(root)
			_, err := Write(context.Background(), dir, buildfile.Tree{"BUILD.bazel": gen("a")}, opt)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), dir+": ") || strings.Contains(err.Error(), workInfix) {
				t.Errorf("error %q: want it to start with %q and not name the work folder", err, dir+": ")
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "ROOT", root); !strings.Contains(err.Error(), w) {
					t.Errorf("error %q: want %q", err, w)
				}
			}
		})
	}
}
