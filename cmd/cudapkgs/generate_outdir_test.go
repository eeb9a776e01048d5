package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// TestGenerateUpToDateRemovesLeftovers: a run killed after its swap leaves
// --out complete and stamped, so the next run is up to date, and its old
// tree in a work folder beside --out. The up-to-date run removes it; one
// it cannot remove (an immutable folder in it) it names in a warning at
// every run, and the first run after that can removes it.
func TestGenerateUpToDateRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"generate", "--manifests", shared.Manifests(t), "--out", out, "--platform", "linux-x86_64", "--cuda", "12.4.1"}
	mustGenerate(t, args...)
	// What the killed run leaves: its work folder, with the marker
	// (core/outdir's text) and the old tree.
	work := filepath.Join(dir, ".out.cudapkgs-tmp-123")
	leave := func(t *testing.T) {
		t.Helper()
		if err := os.CopyFS(filepath.Join(work, "tree"), os.DirFS(out)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, ".cudapkgs-tmp"), []byte("cudapkgs generate: work folder, removed by the next run into "+out+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	holds := func(t *testing.T, want ...string) {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if len(got) != len(want) || got[0] != want[0] || len(want) == 2 && got[1] != want[1] {
			t.Errorf("%s holds %v, want %v", dir, got, want)
		}
	}
	upToDate := "generate: " + out + ": up to date\n"

	leave(t)
	if errs := mustGenerate(t, args...); errs != upToDate {
		t.Errorf("stderr = %q, want %q", errs, upToDate)
	}
	holds(t, "out")

	t.Run("immutable", func(t *testing.T) {
		leave(t)
		stuck := filepath.Join(work, "tree", "repos")
		if out, err := exec.Command("chattr", "+i", stuck).CombinedOutput(); err != nil {
			os.RemoveAll(work)
			t.Skipf("chattr +i is not possible here (needs root and a file system with attributes): %v\n%s", err, out)
		}
		cleared := false
		t.Cleanup(func() {
			if !cleared {
				exec.Command("chattr", "-i", stuck).Run()
			}
		})
		for range 2 {
			errs := mustGenerate(t, args...)
			wantOutput(t, "stderr", errs, upToDate+"warning: "+out+": a temporary folder could not be removed (the next run tries again): "+work+" (left by an earlier run): ")
		}
		holds(t, ".out.cudapkgs-tmp-123", "out")
		if out, err := exec.Command("chattr", "-i", stuck).CombinedOutput(); err != nil {
			t.Fatalf("chattr -i: %v\n%s", err, out)
		}
		cleared = true
		if errs := mustGenerate(t, args...); errs != upToDate {
			t.Errorf("stderr = %q, want %q", errs, upToDate)
		}
		holds(t, "out")
	})
}

// TestGenerateOutDot: generate --out . from the output folder (and --out
// .. from a folder in it) leaves the working folder usable: the write
// goes in place, says so, and the folder keeps its inode.
func TestGenerateOutDot(t *testing.T) {
	m := shared.Manifests(t)
	for _, tt := range []struct{ out, wd string }{{".", "out"}, {"..", "out/sub"}} {
		t.Run("--out "+tt.out, func(t *testing.T) {
			dir := t.TempDir()
			wd := filepath.Join(dir, tt.wd)
			if err := os.MkdirAll(wd, 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{"generate", "--manifests", m, "--out", tt.out, "--platform", "linux-x86_64", "--cuda", "12.4.1"}
			t.Chdir(wd)
			before, err := os.Stat(".")
			if err != nil {
				t.Fatal(err)
			}
			mustGenerate(t, args...)
			// A second run that writes: the first found an existing, empty
			// --out; this one replaces a generated tree.
			errs := mustGenerate(t, append(args[:len(args)-1], "12.4.1,12.6.3")...)
			wantOutput(t, "stderr", errs, "files replaced one by one, not all at once: "+filepath.Join(dir, "out")+" is the working folder or holds it")
			got, err := os.Getwd()
			if err != nil {
				t.Fatalf("getwd after generate: %v", err)
			}
			if fi, err := os.Stat(got); err != nil || !os.SameFile(fi, before) {
				t.Errorf("the working folder %s is not the one before: %v", got, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "out", "BUILD.bazel")); err != nil {
				t.Error(err)
			}
		})
	}
}
