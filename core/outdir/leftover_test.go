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
	unstick := func() {}
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
