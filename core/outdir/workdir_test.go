package outdir

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWorkingFolderInside: --out is the working folder (generate --out .)
// or holds it. A swap would leave the process, and the shell that started
// it, in the removed old tree (getwd fails); instead the files are replaced
// in place, --out and the working folder keep their inodes, and Stats says
// why the write was not atomic.
func TestWorkingFolderInside(t *testing.T) {
	_, new := states(t)
	tests := []struct {
		name, out, wd string // relative to root
	}{
		{"--out is the working folder", "out", "out"},
		{"--out . ", ".", "out"},
		{"a user's folder in --out", "out", "out/user"},
		{"a generated folder in --out", "out", "out/repos"},
		{"a folder the new tree empties", "out", "out/unusable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := setup(t, root)
			want := new
			if tt.wd == "out/unusable" {
				// Its only user file goes: the folder would go with the
				// old tree's stale files, but stays as the working folder.
				if err := os.Remove(filepath.Join(dir, "unusable", "keep.txt")); err != nil {
					t.Fatal(err)
				}
				want = map[string]string{}
				for k, v := range new {
					if k != "unusable/keep.txt" && k != "unusable" {
						want[k] = v
					}
				}
			}
			wd := filepath.Join(root, tt.wd)
			wdBefore, err := os.Stat(wd)
			if err != nil {
				t.Fatal(err)
			}
			dirBefore, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Chdir(wd)
			out := tt.out
			if out != "." {
				out = filepath.Join(root, out)
			}
			tree, stamp := trees("new")
			st, err := Write(context.Background(), out, tree, Options{Stamp: stamp})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := os.Getwd(); err != nil {
				t.Errorf("getwd after the write: %v", err)
			} else if fi, err := os.Stat(got); err != nil || !os.SameFile(fi, wdBefore) {
				t.Errorf("the working folder %s is not the one before the write: %v", got, err)
			}
			if fi, err := os.Stat(dir); err != nil || !os.SameFile(fi, dirBefore) {
				t.Errorf("--out's inode changed: %v", err)
			}
			if !strings.Contains(st.InPlace, "working folder") {
				t.Errorf("InPlace = %q, want the working folder named as the reason", st.InPlace)
			}
			got := snapshot(t, dir)
			if tt.wd == "out/unusable" {
				if got["unusable"] == "" {
					t.Error("the working folder was removed")
				}
				delete(got, "unusable")
			}
			if !cmp.Equal(got, want) {
				t.Errorf("--out is not the new tree (-want +got):\n%s", cmp.Diff(want, got))
			}
			only(t, root, "out")
		})
	}
}

// TestWorkingFolderOutside: a working folder beside --out, or above it,
// does not stop the swap.
func TestWorkingFolderOutside(t *testing.T) {
	for _, wd := range []string{".", "sibling"} {
		root := t.TempDir()
		dir := setup(t, root)
		if err := os.Mkdir(filepath.Join(root, "sibling"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Chdir(filepath.Join(root, wd))
		tree, stamp := trees("new")
		st, err := Write(context.Background(), dir, tree, Options{Stamp: stamp})
		if err != nil || st.InPlace != "" {
			t.Errorf("working folder %s: %+v, %v; want a swap", wd, st, err)
		}
	}
}
