package outdir

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// chattr sets or clears the immutable attribute, or skips the test where
// that is not possible (not root, a file system without attributes).
func chattr(t *testing.T, flag, p string) {
	t.Helper()
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("chattr is not installed")
	}
	if out, err := exec.Command("chattr", flag, p).CombinedOutput(); err != nil {
		if flag == "-i" {
			t.Errorf("chattr -i %s: %v\n%s", p, err, out)
			return
		}
		t.Skipf("chattr %s %s is not possible here (needs root and a file system with attributes): %v\n%s", flag, p, err, out)
	}
}

func immutable(t *testing.T, p string) {
	t.Helper()
	chattr(t, "+i", p)
	t.Cleanup(func() { chattr(t, "-i", p) })
}

// mount mounts a tmpfs of size at p, or skips the test.
func mount(t *testing.T, p, size string) {
	t.Helper()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", p).CombinedOutput(); err != nil {
		t.Skipf("mounting a tmpfs is not possible here (needs root): %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", p).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", p, err, out)
		}
	})
}

// TestImmutableOut: --out made immutable (chattr +i) cannot be swapped; the
// run fails naming it, and leaves it as it was, with no work folder.
func TestImmutableOut(t *testing.T) {
	root := t.TempDir()
	dir := setup(t, root)
	before := snapshot(t, dir)
	immutable(t, dir)
	tree, stamp := trees("new")
	_, err := Write(context.Background(), dir, tree, Options{Stamp: stamp})
	if err == nil || !strings.Contains(err.Error(), "replacing "+dir) {
		t.Fatalf("got %v, want an error replacing %s", err, dir)
	}
	if got := snapshot(t, dir); !equal(got, before) {
		t.Error("--out changed")
	}
	only(t, root, "out")
}

// TestImmutableSubfolder: a folder inside --out made immutable midway (the
// case that left a mix when files were renamed in one by one): the new tree
// is swapped in whole; the old tree, which cannot be removed, is reported
// and removed by the next run once it can be.
func TestImmutableSubfolder(t *testing.T) {
	_, new := states(t)
	root := t.TempDir()
	dir := setup(t, root)
	toolchain := filepath.Join(dir, "toolchain")
	chattr(t, "+i", toolchain)
	cleared := false
	t.Cleanup(func() {
		if !cleared {
			// The folder moved with the old tree into the work folder.
			matches, _ := filepath.Glob(filepath.Join(root, ".out.cudapkgs-tmp-*", "tree", "toolchain"))
			for _, m := range append(matches, toolchain) {
				exec.Command("chattr", "-i", m).Run()
			}
		}
	})
	tree, stamp := trees("new")
	st, err := Write(context.Background(), dir, tree, Options{Stamp: stamp})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Leftover, "the old tree") {
		t.Errorf("Leftover = %q", st.Leftover)
	}
	if got := snapshot(t, dir); !equal(got, new) {
		t.Errorf("--out is not the new tree")
	}
	matches, _ := filepath.Glob(filepath.Join(root, ".out.cudapkgs-tmp-*", "tree", "toolchain"))
	if len(matches) != 1 {
		t.Fatalf("the old tree's toolchain: %v", matches)
	}
	chattr(t, "-i", matches[0])
	cleared = true
	recoverAfter(t, root, new)
}

// TestReadOnlyParent: the folder that holds --out cannot be written (the
// old "read-only target disk" case): the run fails before --out changes.
func TestReadOnlyParent(t *testing.T) {
	root := t.TempDir()
	parent := filepath.Join(root, "p")
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := setup(t, parent)
	before := snapshot(t, dir)
	if os.Geteuid() == 0 {
		immutable(t, parent)
	} else {
		if err := os.Chmod(parent, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(parent, 0o755) })
	}
	tree, stamp := trees("new")
	if _, err := Write(context.Background(), dir, tree, Options{Stamp: stamp}); err == nil {
		t.Fatal("no error")
	}
	if got := snapshot(t, dir); !equal(got, before) {
		t.Error("--out changed")
	}
	only(t, parent, "out")
}

// TestFullDisk: a file system too small for the new tree: the run fails
// with ENOSPC and --out is as it was, with no work folder left.
func TestFullDisk(t *testing.T) {
	root := t.TempDir()
	mount(t, root, "2m")
	dir := setup(t, root)
	before := snapshot(t, dir)
	tree, stamp := trees("new")
	tree["big.bzl"] = append(gen(""), make([]byte, 4<<20)...)
	_, err := Write(context.Background(), dir, tree, Options{Stamp: stamp})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("got %v, want no space left", err)
	}
	if got := snapshot(t, dir); !equal(got, before) {
		t.Error("--out changed")
	}
	only(t, root, "out")
}

// TestMountPoint: --out is a mount point, which cannot be swapped: the
// files are replaced in place, one by one, and Stats says so.
func TestMountPoint(t *testing.T) {
	_, new := states(t)
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mount(t, dir, "16m")
	setup(t, root)
	tree, stamp := trees("new")
	st, err := Write(context.Background(), dir, tree, Options{Stamp: stamp})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.InPlace, "is a mount point") {
		t.Errorf("InPlace = %q", st.InPlace)
	}
	got := snapshot(t, dir)
	// The mount's root has its own mode (tmpfs: 1777).
	delete(got, ".")
	want := map[string]string{}
	for k, v := range new {
		want[k] = v
	}
	delete(want, ".")
	if !equal(got, want) {
		t.Errorf("--out is not the new tree")
	}
	only(t, root, "out")
}

// TestMountInside: a folder inside --out is a mount point: the tree is
// written in place (a swap would take the mount away with the old tree,
// and removing that would go into it), and the mount's files stay.
func TestMountInside(t *testing.T) {
	root := t.TempDir()
	dir := setup(t, root)
	mnt := filepath.Join(dir, "user", "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mount(t, mnt, "1m")
	if err := os.WriteFile(filepath.Join(mnt, "data"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, stamp := trees("new")
	st, err := Write(context.Background(), dir, tree, Options{Stamp: stamp})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.InPlace, mnt+" is a mount point") {
		t.Errorf("InPlace = %q", st.InPlace)
	}
	if read(t, filepath.Join(mnt, "data")) != "data" || read(t, filepath.Join(dir, "BUILD.bazel")) != string(gen("hub new")) {
		t.Error("not the new tree with the mount's files")
	}
	only(t, root, "out")
}

// TestInPlaceKill: the in-place path (the old writer, kept for mount
// points) is not atomic: a kill midway leaves a mix, but never the old
// stamp with it, so the next run regenerates.
func TestInPlaceKill(t *testing.T) {
	root := t.TempDir()
	dir := setup(t, root)
	tree, stamp := trees("new")
	n := 0
	kill := func(s string) {
		if s == "rename" {
			n++
			if n == 20 {
				panic("killed")
			}
		}
	}
	func() {
		defer func() { recover() }()
		Write(context.Background(), dir, tree, Options{Stamp: stamp, step: kill, inPlace: true})
	}()
	if _, err := os.Stat(filepath.Join(dir, StampFile)); err == nil {
		t.Error("a stamp is left with a half-written tree")
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
