package outdir

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKilledAfterSwap: a run killed after the swap leaves the old tree in
// its work folder next to --out. RemoveLeftovers, which a run that finds
// --out up to date calls instead of Write, removes it.
func TestKilledAfterSwap(t *testing.T) {
	_, new := states(t)
	root := t.TempDir()
	dir := setup(t, root)
	tree, stamp := trees("new")
	func() {
		defer func() { recover() }()
		Write(context.Background(), dir, tree, Options{Stamp: stamp, step: func(s string) {
			if s == "remove old" {
				panic("killed")
			}
		}})
	}()
	if got := snapshot(t, dir); !cmp.Equal(got, new) {
		t.Fatalf("--out is not the new tree (-want +got):\n%s", cmp.Diff(new, got))
	}
	if m, _ := filepath.Glob(filepath.Join(root, ".out.cudapkgs-tmp-*", newTree, "repos")); len(m) != 1 {
		t.Fatalf("no old tree left by the kill: %v", m)
	}
	if left := RemoveLeftovers(dir); left != "" {
		t.Errorf("RemoveLeftovers: %s", left)
	}
	only(t, root, "out")
	if got := snapshot(t, dir); !cmp.Equal(got, new) {
		t.Errorf("RemoveLeftovers changed --out (-want +got):\n%s", cmp.Diff(new, got))
	}
}

// TestLeftoverStuck: an old tree of a killed run that cannot be removed
// (an immutable folder in it; a read-only one when not root) is reported
// by every run, up to date (RemoveLeftovers) or not (Write), and removed by
// the first run after it can be.
func TestLeftoverStuck(t *testing.T) {
	root := t.TempDir()
	dir := setup(t, root)
	work := filepath.Join(root, ".out.cudapkgs-tmp-1")
	stuck := filepath.Join(work, newTree, "toolchain")
	if err := os.MkdirAll(stuck, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, markerFile), []byte(markerText+dir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stuck, "t00.bzl"), gen("toolchain 0"), 0o644); err != nil {
		t.Fatal(err)
	}
	var unstick func()
	if os.Geteuid() == 0 {
		chattr(t, "+i", stuck)
		cleared := false
		t.Cleanup(func() {
			if !cleared {
				chattr(t, "-i", stuck)
			}
		})
		unstick = func() { chattr(t, "-i", stuck); cleared = true }
	} else {
		if err := os.Chmod(stuck, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(stuck, 0o755) })
		unstick = func() { os.Chmod(stuck, 0o755) }
	}
	if left := RemoveLeftovers(dir); !strings.Contains(left, work) {
		t.Errorf("up to date: Leftover = %q, want %s named", left, work)
	}
	tree, stamp := trees("new")
	st, err := Write(context.Background(), dir, tree, Options{Stamp: stamp})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Leftover, work) {
		t.Errorf("a write: Leftover = %q, want %s named", st.Leftover, work)
	}
	only(t, root, "out", ".out.cudapkgs-tmp-1")
	unstick()
	if left := RemoveLeftovers(dir); left != "" {
		t.Errorf("after it can be removed: Leftover = %q", left)
	}
	only(t, root, "out")
}

// TestRemoveLeftoversWaitsForNoOne: while another run holds the lock,
// RemoveLeftovers leaves the folders alone (they may be that run's) and
// returns at once.
func TestRemoveLeftoversWaitsForNoOne(t *testing.T) {
	root := t.TempDir()
	dir := setup(t, root)
	work := filepath.Join(root, ".out.cudapkgs-tmp-1")
	if err := os.MkdirAll(filepath.Join(work, newTree), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, markerFile), []byte(markerText+dir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err := lock(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if left := RemoveLeftovers(dir); left != "" {
		t.Errorf("Leftover = %q", left)
	}
	only(t, root, "out", ".out.cudapkgs-tmp-1")
	unlock()
	RemoveLeftovers(dir)
	only(t, root, "out")
}

// TestKilledRunsSaves: files the user saved into --out during a run that
// was killed after its swap, before its rescue, are in that run's old
// tree; the next run (up to date: RemoveLeftovers; or writing) moves them
// back before removing it, by the rescue's rules (the newest save wins, a
// file removed since stays removed). Killed before the swap, its work
// folder holds only the new tree, and nothing in it comes back.
func TestKilledRunsSaves(t *testing.T) {
	tests := []struct {
		name   string
		killAt string            // the step
		after  map[string]string // done to --out after the kill: path: contents, "" removes it
		want   map[string]string // path: contents, "" for no file
	}{
		{"saved during the run", "rescue", nil,
			map[string]string{"mine.txt": "during\n", "new.txt": "new\n"}},
		{"saved again after the kill", "rescue", map[string]string{"mine.txt": "after\n"},
			map[string]string{"mine.txt": "after\n", "new.txt": "new\n"}},
		{"removed after the kill", "rescue", map[string]string{"mine.txt": ""},
			map[string]string{"mine.txt": "", "new.txt": "new\n"}},
		{"made again after the kill", "rescue", map[string]string{"new.txt": "after\n"},
			map[string]string{"mine.txt": "during\n", "new.txt": "after\n"}},
		{"killed before the swap", "swap", map[string]string{"repos/notes.md": ""},
			map[string]string{"mine.txt": "during\n", "new.txt": "new\n", "repos/notes.md": ""}},
		{"killed before the record", "placed", map[string]string{"repos/notes.md": ""},
			map[string]string{"mine.txt": "mine\n", "new.txt": "", "repos/notes.md": ""}},
	}
	for _, tt := range tests {
		for _, next := range []string{"up to date", "writing"} {
			t.Run(tt.name+", then "+next, func(t *testing.T) {
				root := t.TempDir()
				dir := setup(t, root)
				if _, out, err := runHelperEnv(t, dir, []string{envKillAt + "=" + tt.killAt, envSave + "=1"}); !killed(err) {
					t.Fatalf("the helper was not killed: %v\n%s", err, out)
				}
				if m, _ := filepath.Glob(filepath.Join(root, ".out.cudapkgs-tmp-*")); len(m) != 1 {
					t.Fatalf("the kill left %v", m)
				}
				for p, body := range tt.after {
					if err := saveFile(dir, p, body); err != nil {
						t.Fatal(err)
					}
				}
				tree, stamp := trees("new")
				if next == "up to date" {
					if left := RemoveLeftovers(dir); left != "" {
						t.Errorf("RemoveLeftovers: %s", left)
					}
				} else if _, err := Write(context.Background(), dir, tree, Options{Stamp: stamp}); err != nil {
					t.Fatal(err)
				}
				checkFiles(t, dir, tt.want)
				only(t, root, "out")
			})
		}
	}
}

// TestLeftoverNotTrusted: a folder with the marker and a record that this
// user does not own, or that others may write in, is removed like any
// leftover, but nothing in it reaches --out: in a shared folder (/tmp)
// anyone can make one.
func TestLeftoverNotTrusted(t *testing.T) {
	for _, tt := range []struct {
		name string
		mode os.FileMode
		uid  int // -1: this user's
	}{
		{"others may write in it", 0o777, -1},
		{"its group may write in it", 0o770, -1},
		{"another user's", 0o700, 65534},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.uid >= 0 && os.Geteuid() != 0 {
				t.Skip("giving a folder to another user needs root")
			}
			root := t.TempDir()
			dir := setup(t, root)
			work := filepath.Join(root, ".out.cudapkgs-tmp-1")
			for _, d := range []string{placedTree, newTree} {
				if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(work, markerFile), []byte(markerText+dir+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, newTree, "planted.txt"), []byte("planted\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(work, tt.mode); err != nil {
				t.Fatal(err)
			}
			if tt.uid >= 0 {
				if err := os.Chown(work, tt.uid, tt.uid); err != nil {
					t.Fatal(err)
				}
			}
			if left := RemoveLeftovers(dir); left != "" {
				t.Errorf("RemoveLeftovers: %s", left)
			}
			if _, err := os.Lstat(filepath.Join(dir, "planted.txt")); !os.IsNotExist(err) {
				t.Errorf("a file from the untrusted folder reached --out: %v", err)
			}
			only(t, root, "out")
		})
	}
}
