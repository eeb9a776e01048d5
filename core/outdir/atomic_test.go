package outdir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/buildfile"
)

// The helper process: TestMain runs Write alone when these are set, so that
// a test can kill it (SIGKILL from the test hook, or strace's).
const (
	envHelper = "CUDAPKGS_OUTDIR_HELPER" // the --out folder
	envKillAt = "CUDAPKGS_OUTDIR_KILL_AT"
	envTree   = "CUDAPKGS_OUTDIR_TREE" // old, new (default), a or b
	envSave   = "CUDAPKGS_OUTDIR_SAVE" // when set, the user's saves at the swap (savedDuring)
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envHelper); dir != "" {
		os.Exit(helper(dir))
	}
	os.Exit(m.Run())
}

// helper writes a tree into dir, killing itself with SIGKILL before the
// step numbered CUDAPKGS_OUTDIR_KILL_AT (1 is the first), or before the
// first step of that name; it prints the number of steps it took.
func helper(dir string) int {
	killAt := os.Getenv(envKillAt)
	n := 0
	kill := func(s string) {
		n++
		if s == "swap" && os.Getenv(envSave) != "" {
			for p, body := range savedDuring {
				if err := saveFile(dir, p, body); err != nil {
					fmt.Fprintln(os.Stderr, err)
				}
			}
		}
		if strconv.Itoa(n) == killAt || s == killAt {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	tree, stamp := trees(os.Getenv(envTree))
	if _, err := Write(context.Background(), dir, tree, Options{Stamp: stamp, step: kill}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(n)
	return 0
}

// savedDuring are the user's saves into --out just before the swap (so
// into the old tree): an edit of a file of theirs and a new one.
var savedDuring = map[string]string{"mine.txt": "during\n", "new.txt": "new\n"}

// saveFile saves body at dir/p as an editor does: a new file renamed over
// the old one; body "" removes the file.
func saveFile(dir, p, body string) error {
	p = filepath.Join(dir, p)
	if body == "" {
		return os.Remove(p)
	}
	if err := os.WriteFile(p+".tmp", []byte(body), 0o644); err != nil {
		return err
	}
	return os.Rename(p+".tmp", p)
}

// trees are the generations the tests write: old (what --out holds before),
// new (150 files changed, added or unchanged, 70 gone with their folder),
// and two others, a and b, for the concurrent runs.
func trees(which string) (buildfile.Tree, []byte) {
	t := buildfile.Tree{}
	switch which {
	case "old":
		t["BUILD.bazel"] = gen("hub old")
		t["generated.bzl"] = gen("old")
		for i := 0; i < 150; i++ {
			t[fmt.Sprintf("repos/r%03d.BUILD", i)] = gen(fmt.Sprintf("repo %d", i))
		}
		for i := 0; i < 20; i++ {
			t[fmt.Sprintf("toolchain/t%02d.bzl", i)] = gen(fmt.Sprintf("toolchain %d", i))
			t[fmt.Sprintf("unusable/u%02d.bzl", i)] = gen(fmt.Sprintf("unusable %d", i))
		}
	case "a", "b":
		t["BUILD.bazel"] = gen("hub " + which)
		for i := 0; i < 60; i++ {
			t[fmt.Sprintf("repos/%s%03d.BUILD", which, i)] = gen(which)
		}
		t[which+"/only.bzl"] = gen(which)
	default:
		which = "new"
		t["BUILD.bazel"] = gen("hub new")
		t["generated.bzl"] = gen("old")
		for i := 50; i < 200; i++ {
			body := fmt.Sprintf("repo %d", i)
			if i%10 == 0 {
				body += " changed"
			}
			t[fmt.Sprintf("repos/r%03d.BUILD", i)] = gen(body)
		}
		for i := 0; i < 20; i++ {
			t[fmt.Sprintf("toolchain/t%02d.bzl", i)] = gen(fmt.Sprintf("toolchain %d new", i))
		}
		t["platforms/BUILD.bazel"] = gen("platforms")
	}
	return t, gen("stamp " + which + "\n")
}

// setup makes root/out hold the old tree and the user's own files: files
// (one in a generated folder, one in a folder whose generated files all
// go), an empty folder, a symlink, a read-only file.
func setup(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, "out")
	tree, stamp := trees("old")
	if _, err := Write(context.Background(), dir, tree, Options{Stamp: stamp}); err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{"mine.txt": "mine\n", "repos/notes.md": "notes\n", "unusable/keep.txt": "keep\n"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ro.txt"), []byte("ro\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "user", "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mine.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// snapshot is everything under dir: each folder with its mode, each file
// with its mode and bytes, each symlink with its target.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	s := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			s[rel] = "folder " + fi.Mode().String()
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			s[rel] = "symlink " + target
			return err
		default:
			b, err := os.ReadFile(p)
			s[rel] = fi.Mode().String() + " " + string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// only lists what is in root, to find temporary folders left behind.
func only(t *testing.T, root string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	sort.Strings(want)
	if !cmp.Equal(got, want) {
		t.Errorf("%s holds %v, want %v", root, got, want)
	}
}

// states are the snapshots of --out before and after writing the new tree
// (without a kill).
func states(t *testing.T) (before, after map[string]string) {
	root := t.TempDir()
	dir := setup(t, root)
	before = snapshot(t, dir)
	tree, stamp := trees("new")
	st, err := Write(context.Background(), dir, tree, Options{Stamp: stamp})
	if err != nil || st != (Stats{Written: 82, Unchanged: 91, Removed: 70}) {
		t.Fatalf("%+v, %v", st, err)
	}
	after = snapshot(t, dir)
	if after["mine.txt"] == "" || after["user/empty"] == "" || after["link"] != "symlink mine.txt" || after["unusable/keep.txt"] == "" ||
		after["repos/notes.md"] == "" || after["ro.txt"] != "-r-------- ro\n" || after["user"] != "folder drwx------" {
		t.Fatalf("the user's files are not all kept: %v", after)
	}
	for _, p := range []string{"unusable/u00.bzl", "repos/r000.BUILD"} {
		if _, ok := after[p]; ok {
			t.Errorf("the stale %s is still there", p)
		}
	}
	only(t, root, "out")
	return before, after
}

// which says whether dir is exactly the old or the new tree, or fails.
func which(t *testing.T, dir string, old, new map[string]string) string {
	t.Helper()
	got := snapshot(t, dir)
	switch {
	case cmp.Equal(got, old):
		return "old"
	case cmp.Equal(got, new):
		return "new"
	}
	t.Errorf("%s is neither the old tree nor the new one; against the new one (-want +got):\n%s", dir, cmp.Diff(new, got))
	return "mixed"
}

func runHelper(t *testing.T, dir string, killAt int, prefix ...string) (*exec.Cmd, string, error) {
	t.Helper()
	return runHelperEnv(t, dir, []string{envKillAt + "=" + strconv.Itoa(killAt)}, prefix...)
}

// runHelperEnv runs the helper process writing the new tree into dir, with
// env added to its environment.
func runHelperEnv(t *testing.T, dir string, env []string, prefix ...string) (*exec.Cmd, string, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, prefix...), exe, "-test.run=^$")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(append(os.Environ(), envHelper+"="+dir), env...)
	out, err := cmd.CombinedOutput()
	return cmd, string(out), err
}

func killed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// recover checks that the next run (after a kill) writes the new tree and
// removes what the killed one left.
func recoverAfter(t *testing.T, root string, new map[string]string) {
	t.Helper()
	tree, stamp := trees("new")
	if _, err := Write(context.Background(), filepath.Join(root, "out"), tree, Options{Stamp: stamp}); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, filepath.Join(root, "out")); !cmp.Equal(got, new) {
		t.Errorf("the run after the kill: (-want +got):\n%s", cmp.Diff(new, got))
	}
	only(t, root, "out")
}

// TestKillAnywhere kills the writer with SIGKILL before 30 of its steps,
// spread over all of them (the creation of the work folder, every folder,
// link and file, the swap, the removal of the old tree), and checks each
// time that --out is exactly the old tree or exactly the new one, and that
// the next run cleans up.
func TestKillAnywhere(t *testing.T) {
	old, new := states(t)
	_, out, err := runHelper(t, setup(t, t.TempDir()), 0)
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	steps, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || steps < 100 {
		t.Fatalf("helper took %q steps", out)
	}
	// 27 points spread evenly, and the last three (the swap, the removal
	// of the old tree and of the marker).
	points := map[int]bool{steps - 2: true, steps - 1: true, steps: true}
	for i := 0; len(points) < 30; i++ {
		points[1+i*(steps-3)/27] = true
	}
	seen := map[string]int{}
	for k := 1; k <= steps; k++ {
		if !points[k] {
			continue
		}
		root := t.TempDir()
		dir := setup(t, root)
		if _, out, err := runHelper(t, dir, k); !killed(err) {
			t.Fatalf("kill at step %d of %d: the helper was not killed: %v\n%s", k, steps, err, out)
		}
		got := which(t, dir, old, new)
		seen[got]++
		if got == "mixed" {
			t.Fatalf("kill at step %d of %d: mixed tree", k, steps)
		}
		recoverAfter(t, root, new)
	}
	t.Logf("%d steps; killed at %d of them: %v", steps, len(points), seen)
	if seen["old"] == 0 || seen["new"] == 0 {
		t.Errorf("the kills never left the old tree, or never the new one: %v", seen)
	}
}

// TestKillAtRename has strace kill the writer when it enters its first,
// second, ... rename (renameat2 or other) and unlink, and checks --out each
// time.
func TestKillAtRename(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed (apt-get install strace)")
	}
	old, new := states(t)
	probe := t.TempDir()
	if _, out, err := runHelper(t, setup(t, probe), 0, "strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=getpid"); err != nil {
		t.Skipf("strace cannot trace here: %v\n%s", err, out)
	}
	seen := map[string]int{}
	for _, set := range []string{"/^rename", "unlinkat", "linkat", "mkdirat"} {
		// Every rename; a few of the others (there are hundreds).
		whens := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
		if set != "/^rename" {
			whens = []int{1, 2, 20, 100, 1000}
		}
		for _, k := range whens {
			root := t.TempDir()
			dir := setup(t, root)
			_, out, err := runHelper(t, dir, 0, "strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace="+set, "-e", fmt.Sprintf("inject=%s:signal=KILL:when=%d", set, k))
			if err == nil {
				break // fewer than k such calls
			}
			if !killed(err) {
				t.Fatalf("%s #%d: %v\n%s", set, k, err, out)
			}
			got := which(t, dir, old, new)
			seen[got]++
			if got == "mixed" {
				t.Fatalf("killed at %s #%d: mixed tree", set, k)
			}
			recoverAfter(t, root, new)
		}
	}
	t.Logf("killed by strace: %v", seen)
}

// TestFullDiskByStrace has strace fail the writer's writes with ENOSPC,
// one at a time: each run fails, and --out is the old tree.
func TestFullDiskByStrace(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed (apt-get install strace)")
	}
	old, new := states(t)
	for _, call := range []string{"write", "mkdirat", "linkat", "openat"} {
		for _, when := range []string{"1", "10", "100"} {
			root := t.TempDir()
			dir := setup(t, root)
			_, out, err := runHelper(t, dir, 0, "strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace="+call, "-e", "inject="+call+":error=ENOSPC:when="+when)
			if err == nil {
				continue // the call was not made that often, or not where it mattered
			}
			t.Logf("%s #%s: %s", call, when, strings.TrimSpace(out))
			// The first write may be the Go runtime's own (its netpoll
			// wake-up, when the machine is loaded) or the message itself:
			// the helper then dies with nothing said, and only the tree is
			// checked.
			if !strings.Contains(out, "no space left on device") && !(call == "write" && strings.TrimSpace(out) == "") {
				t.Errorf("%s #%s failing: %v\n%s", call, when, err, out)
			}
			if got := which(t, dir, old, new); got != "old" {
				t.Errorf("%s #%s failing with ENOSPC left the %s tree", call, when, got)
			}
			// A failure while removing the work folder can leave it: the
			// next run removes it.
			recoverAfter(t, root, new)
		}
	}
}

// TestConcurrent runs two writers into one --out at once, 20 times: both
// succeed, and --out is exactly one's tree with its own stamp.
func TestConcurrent(t *testing.T) {
	want := map[string]map[string]string{}
	for _, w := range []string{"a", "b"} {
		dir := filepath.Join(t.TempDir(), "out")
		tree, stamp := trees(w)
		if _, err := Write(context.Background(), dir, tree, Options{Stamp: stamp}); err != nil {
			t.Fatal(err)
		}
		want[w] = snapshot(t, dir)
	}
	seen := map[string]int{}
	for i := 0; i < 20; i++ {
		root := t.TempDir()
		dir := filepath.Join(root, "out")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, w := range []string{"a", "b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tree, stamp := trees(w)
				_, errs[j] = Write(context.Background(), dir, tree, Options{Stamp: stamp})
			}()
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("round %d: %v, %v", i, errs[0], errs[1])
		}
		got := snapshot(t, dir)
		switch {
		case cmp.Equal(got, want["a"]):
			seen["a"]++
		case cmp.Equal(got, want["b"]):
			seen["b"]++
		default:
			t.Fatalf("round %d: neither a's tree nor b's (-a +got):\n%s", i, cmp.Diff(want["a"], got))
		}
		only(t, root, "out")
	}
	t.Logf("last writer: %v", seen)
}

// TestConcurrentProcesses: the same with two processes, and the second
// waits for the first (OnWait).
func TestConcurrentProcesses(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	unlock, err := lock(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelper+"="+dir, envTree+"=a")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The helper cannot write while the lock is held.
	waited := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		tree, stamp := trees("b")
		_, err := Write(context.Background(), dir, tree, Options{Stamp: stamp, OnWait: func(l string) { waited <- l }})
		done <- err
	}()
	if l := <-waited; l != root {
		t.Errorf("waited for %s, want %s", l, root)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a writer wrote while another held the lock")
	}
	unlock()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := snapshot(t, dir)
	if got[StampFile] != "-rw-r--r-- "+string(gen("stamp a\n")) && got[StampFile] != "-rw-r--r-- "+string(gen("stamp b\n")) {
		t.Errorf("stamp %q", got[StampFile])
	}
	// The stamp and the files are one run's.
	w := strings.TrimSuffix(strings.TrimPrefix(got[StampFile], "-rw-r--r-- "+string(gen("stamp "))), "\n")
	tree, _ := trees(w)
	for p := range got {
		if fi, err := os.Stat(filepath.Join(dir, p)); err == nil && fi.Mode().IsRegular() && p != StampFile {
			if _, ok := tree[p]; !ok {
				t.Errorf("%s is not %s's", p, w)
			}
		}
	}
	only(t, root, "out")
}

// TestWaitCancelled: a writer waiting for the lock stops with the context.
func TestWaitCancelled(t *testing.T) {
	root := t.TempDir()
	unlock, err := lock(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	tree, _ := trees("a")
	_, err = Write(ctx, filepath.Join(root, "out"), tree, Options{OnWait: func(string) { cancel() }})
	if err == nil || !strings.Contains(err.Error(), "waiting for the lock on "+root) {
		t.Fatalf("got %v", err)
	}
	only(t, root)
}

// TestLeftovers: the next run removes the work folders killed runs left
// next to --out and inside it, and nothing else.
func TestLeftovers(t *testing.T) {
	root := t.TempDir()
	dir := setup(t, root)
	mk := func(p string, marker bool, files ...string) {
		t.Helper()
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if marker {
			if err := os.WriteFile(filepath.Join(p, markerFile), []byte(markerText+dir+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(p, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, f), []byte(f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk(filepath.Join(root, ".out.cudapkgs-tmp-1"), true, "tree/repos/x.BUILD") // ours: removed
	mk(filepath.Join(root, ".out.cudapkgs-tmp-2"), false)                      // ours, empty: removed
	mk(filepath.Join(root, ".out.cudapkgs-tmp-3"), false, "tree/x")            // no marker: kept
	mk(filepath.Join(root, ".other.cudapkgs-tmp-4"), true, "tree/x")           // another --out's: kept
	mk(filepath.Join(dir, ".cudapkgs-tmp-5"), true, "repos/x.BUILD")           // in place, ours: removed
	mk(filepath.Join(dir, ".cudapkgs-tmp-6"), false, "mine")                   // no marker: the user's, kept
	mk(filepath.Join(root, ".out.cudapkgs-tmp-9"), false)                      // a short marker alone: removed
	if err := os.WriteFile(filepath.Join(root, ".out.cudapkgs-tmp-9", markerFile), []byte(markerText[:5]), 0o644); err != nil {
		t.Fatal(err)
	}
	mk(filepath.Join(root, ".out.cudapkgs-tmp-10"), false, "tree/x") // a short marker with more: kept
	if err := os.WriteFile(filepath.Join(root, ".out.cudapkgs-tmp-10", markerFile), []byte(markerText[:5]), 0o644); err != nil {
		t.Fatal(err)
	}
	mk(filepath.Join(root, "target"), true, "tree/x")                                        // named otherwise: kept
	if err := os.Symlink("target", filepath.Join(root, ".out.cudapkgs-tmp-7")); err != nil { // a symlink: kept
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".out.cudapkgs-tmp-8"), []byte(markerText), 0o644); err != nil { // a file: kept
		t.Fatal(err)
	}
	tree, stamp := trees("new")
	if _, err := Write(context.Background(), dir, tree, Options{Stamp: stamp}); err != nil {
		t.Fatal(err)
	}
	only(t, root, "out", ".out.cudapkgs-tmp-3", ".out.cudapkgs-tmp-10", ".other.cudapkgs-tmp-4", "target", ".out.cudapkgs-tmp-7", ".out.cudapkgs-tmp-8")
	if _, err := os.Stat(filepath.Join(dir, ".cudapkgs-tmp-5")); err == nil {
		t.Error("the in-place leftover is still in --out")
	}
	if _, err := os.Stat(filepath.Join(dir, ".cudapkgs-tmp-6", "mine")); err != nil {
		t.Errorf("the user's folder is gone: %v", err)
	}
}

// TestSavedDuringRun: files the user creates or saves (by rename) in --out
// while the new tree is being built are in --out afterwards.
func TestSavedDuringRun(t *testing.T) {
	root := t.TempDir()
	dir := setup(t, root)
	saved := false
	save := func(s string) {
		if s != "swap" || saved {
			return
		}
		saved = true
		for p, c := range map[string]string{"new.txt": "new\n", "newdir/x.txt": "x\n"} {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
			os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
		}
		// An editor's save: a new file renamed over the old one.
		os.WriteFile(filepath.Join(dir, "mine.tmp"), []byte("edited\n"), 0o644)
		os.Rename(filepath.Join(dir, "mine.tmp"), filepath.Join(dir, "mine.txt"))
	}
	tree, stamp := trees("new")
	if _, err := Write(context.Background(), dir, tree, Options{Stamp: stamp, step: save}); err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{"new.txt": "new\n", "newdir/x.txt": "x\n", "mine.txt": "edited\n", "BUILD.bazel": string(gen("hub new"))} {
		if got := read(t, filepath.Join(dir, p)); got != c {
			t.Errorf("%s = %q, want %q", p, got, c)
		}
	}
	only(t, root, "out")
}

// TestSymlinkedOut: a symlink --out stays a symlink to the folder, which
// gets the new tree.
func TestSymlinkedOut(t *testing.T) {
	root := t.TempDir()
	real := setup(t, root)
	link := filepath.Join(root, "link")
	if err := os.Symlink("out", link); err != nil {
		t.Fatal(err)
	}
	tree, stamp := trees("new")
	if _, err := Write(context.Background(), link, tree, Options{Stamp: stamp}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("--out is no longer a symlink: %v", err)
	}
	if read(t, filepath.Join(real, "BUILD.bazel")) != string(gen("hub new")) {
		t.Error("the folder the link names does not have the new tree")
	}
	only(t, root, "link", "out")
}
