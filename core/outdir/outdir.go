// Package outdir writes a generated tree into the output folder, bytes
// only: what the tree and the stamp hold is its callers' (package stamp
// makes the stamp).
//
// Write makes a generation visible all at once or not at all: under a lock
// on the folder that holds dir, it builds the whole new tree in a work
// folder next to dir (hard links for unchanged files and for the user's own
// files, new files for the rest, the stamp), then swaps the two folders with
// one renameat2(RENAME_EXCHANGE) and removes the old tree. Files of an
// earlier run that the tree no longer has are left out of the new tree, and
// only those (their first line is buildfile.Header). Where a swap is not
// possible, or would pull the working folder away (dir is, or holds, the
// working folder: generate --out .), the changed files are renamed into
// place one by one instead (Stats.InPlace). docs/output.md says why, and
// what each part guards.
package outdir

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/sync/errgroup"

	"github.com/cudapkgs/cudapkgs/core/buildfile"
)

// StampFile, directly in the output folder, holds Options.Stamp: what the
// last successful run read and wrote. Its first line is buildfile.Header,
// like every generated file, but Write never removes it as stale.
const StampFile = ".cudapkgs-stamp"

// Stats count what Write did.
type Stats struct {
	Written, Unchanged, Removed int
	// InPlace, when not empty, says why the files were replaced one by one
	// in dir (each atomically, the tree as a whole not): dir is a mount
	// point, or its file system cannot exchange two folders.
	InPlace string
	// Leftover, when not empty, names the temporary folders (holding an
	// old tree: this run's, or one a killed run left) that could not be
	// removed, and why. The new tree is in place; the next run, up to date
	// or not, tries again (RemoveLeftovers).
	Leftover string
}

// Options tune Write.
type Options struct {
	// Stamp, when not nil, becomes dir/StampFile in the same swap as the
	// tree (package stamp makes it), so that a stamp is never seen with
	// another run's files. When nil, the new tree has no stamp.
	Stamp []byte
	// OnWait, when not nil, is called once when another run holds the lock
	// on dir; Write then waits for it (or for ctx).
	OnWait func(lock string)

	// step, when not nil, is called before each step that changes the file
	// system, in order: the package's tests stop or disturb a run there.
	step steps
	// inPlace takes the in-place path, which otherwise only a mount point
	// does, so that the package's tests can reach it anywhere.
	inPlace bool
}

const (
	// workInfix names the work folders next to dir:
	// .<base of dir>.cudapkgs-tmp-<random>.
	workInfix = ".cudapkgs-tmp-"
	// markerFile, inside a work folder, proves it is this tool's.
	markerFile = ".cudapkgs-tmp"
	// markerText starts the marker's contents.
	markerText = "cudapkgs generate: work folder, removed by the next run into "
	// newTree is the work folder's subfolder the new tree is built in (and
	// the old tree ends up in after the swap).
	newTree = "tree"
	// placedTree, in the work folder, holds a hard link of each file build
	// put at one of the user's paths, complete or not at all (built under
	// placedTree+".tmp", then renamed): a run killed after its swap loses
	// what build returned, and the next run's rescue reads it from there.
	placedTree = "placed"
)

// steps is called before each step that changes the file system (see
// Options.step); nil calls nothing.
type steps func(step string)

func (s steps) at(step string) {
	if s != nil {
		s(step)
	}
}

// limit is how many of a write's files go at once: one by one when a step
// hook watches, so that it can stop the run at a chosen step.
func (s steps) limit(n int) int {
	if s != nil {
		return 1
	}
	return n
}

// Write makes dir hold tree (and opt.Stamp), keeping the files in dir that
// the tool does not own: anything that is not a regular file starting with
// the line buildfile.Header. Unchanged files keep their inode and
// modification time. dir is changed by one rename, or not at all, unless
// Stats.InPlace says why not.
//
// Errors name dir and the files in it, never the work folder next to it
// (a name the user never gave and that is gone after the run).
func Write(ctx context.Context, dir string, tree buildfile.Tree, opt Options) (Stats, error) {
	var work string
	st, err := write(ctx, dir, tree, opt, &work)
	if err != nil {
		err = &Error{Dir: dir, Err: hideWork(err, dir, work)}
	}
	return st, err
}

// Error is a failure to write the folder; Dir is the folder as the caller
// gave it.
type Error struct {
	Dir string
	Err error
}

func (e *Error) Error() string {
	if abs, err := filepath.Abs(e.Dir); err == nil && strings.HasPrefix(e.Err.Error(), abs+": ") {
		return e.Dir + ": " + strings.TrimPrefix(e.Err.Error(), abs+": ")
	}
	return e.Dir + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// hiddenError is an error whose message names dir where the original named
// the work folder; it unwraps to the original, so callers can still branch.
type hiddenError struct {
	msg string
	err error
}

func (e *hiddenError) Error() string { return e.msg }
func (e *hiddenError) Unwrap() error { return e.err }

// hideWork rewrites the work folder's paths in err's message: its new tree
// becomes dir (where those files were going), the folder itself "a
// temporary folder in <dir's parent>".
func hideWork(err error, dir, work string) error {
	msg := err.Error()
	abs, aerr := filepath.Abs(dir)
	if aerr != nil {
		return err
	}
	parent := filepath.Dir(abs)
	if work != "" {
		msg = strings.ReplaceAll(msg, filepath.Join(work, newTree), dir)
		msg = strings.ReplaceAll(msg, work, "a temporary folder in "+parent)
	}
	// A work folder that could not be made has a name only its error saw.
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Path, workInfix) {
		msg = strings.ReplaceAll(msg, pe.Op+" "+pe.Path, "creating a temporary folder in "+parent)
	}
	if msg == err.Error() {
		return err
	}
	return &hiddenError{msg: msg, err: err}
}

// resolve is dir as Write uses it: absolute, and a symlinked --out
// replaced by the folder it names (the link stays, the folder gets the
// tree).
func resolve(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return filepath.EvalSymlinks(dir)
	}
	return dir, nil
}

func write(ctx context.Context, dir string, tree buildfile.Tree, opt Options, workp *string) (st Stats, err error) {
	dir, err = resolve(dir)
	if err != nil {
		return st, err
	}
	if err := checkPaths(dir, tree); err != nil {
		return st, err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return st, err
	}
	unlock, err := lock(ctx, parent, opt.OnWait)
	if err != nil {
		return st, err
	}
	defer unlock()
	// Under the lock, from here on: another run may have changed dir while
	// this one waited.
	exists := false
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return st, fmt.Errorf("%s: not a folder", dir)
		}
		exists = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return st, err
	}
	if err := checkPaths(dir, tree); err != nil {
		return st, err
	}
	s := opt.step
	stuck := removeLeftovers(s, parent, filepath.Base(dir))
	if exists {
		stuck = append(stuck, removeLeftovers(s, dir, "")...)
	}
	// What could not be removed is said at every run until it is gone.
	defer func() {
		if err != nil {
			return
		}
		if st.Leftover != "" {
			stuck = append(stuck, st.Leftover)
		}
		st.Leftover = strings.Join(stuck, "; ")
	}()
	var wd []fs.FileInfo
	if exists {
		wd = workingChain()
	}
	switch why := mountPoint(dir); {
	case why != "":
		return writeInPlace(s, dir, tree, opt.Stamp, why, wd)
	case exists && onChain(wd, dir):
		// A swap would leave this process, and the shell that started it
		// (generate --out .), in the removed old tree.
		return writeInPlace(s, dir, tree, opt.Stamp, dir+" is the working folder or holds it (a swap would leave the working folder in the removed old tree; run from outside it for an all-at-once write)", wd)
	case opt.inPlace:
		return writeInPlace(s, dir, tree, opt.Stamp, "forced", wd)
	}
	work, err := makeWork(s, parent, filepath.Base(dir), dir)
	if err != nil {
		return st, err
	}
	*workp = work
	// Until the swap, removing the work folder undoes everything.
	swapped := false
	defer func() {
		if !swapped {
			removeWork(s, work)
		}
	}()
	todo, placed, err := build(ctx, s, dir, exists, filepath.Join(work, newTree), tree, opt.Stamp, &st)
	var em *errMount
	if errors.As(err, &em) {
		removeWork(s, work)
		swapped = true
		return writeInPlace(s, dir, tree, opt.Stamp, em.why, wd)
	}
	if err != nil {
		return Stats{}, err
	}
	if exists {
		recordPlaced(s, work, placed)
	}
	s.at("swap")
	err = exchange(filepath.Join(work, newTree), dir, exists)
	var noEx *noExchangeError
	var mnt *mountError
	switch {
	case err == nil:
	case errors.As(err, &noEx):
		// The file system (or the OS) cannot exchange folders: the new tree
		// is complete on the same file system, so rename its changed files
		// into place one by one.
		st.InPlace = fmt.Sprintf("the file system of %s cannot exchange two folders (%v)", dir, noEx.err)
		return st, replaceFiles(s, filepath.Join(work, newTree), dir, todo, tree, opt.Stamp, &st, wd)
	case errors.As(err, &mnt):
		// A mount point that mountPoint did not see: start again in place.
		removeWork(s, work)
		swapped = true
		return writeInPlace(s, dir, tree, opt.Stamp, fmt.Sprintf("%s is a mount point (%v)", dir, mnt.err), wd)
	default:
		return Stats{}, fmt.Errorf("replacing %s with the new tree: %w", dir, err)
	}
	swapped = true
	if !exists {
		// The work folder is empty but for its marker.
		removeWork(s, work)
		return st, nil
	}
	rescue(s, filepath.Join(work, newTree), dir, tree, placed)
	if err := removeWork(s, work); err != nil {
		st.Leftover = fmt.Sprintf("%s (the old tree): %v", work, err)
	}
	return st, nil
}

// noExchangeError: the file system of dir, or the OS, cannot swap two
// folders in one step (some network and FUSE file systems; Windows). The
// caller falls back to replacing files one by one, each atomically.
type noExchangeError struct{ err error }

func (e *noExchangeError) Error() string { return e.err.Error() }

// mountError: dir, or the folder next to it, is on another mount, so the
// swap cannot happen; the caller writes in place.
type mountError struct{ err error }

func (e *mountError) Error() string { return e.err.Error() }

// errMount is a mount point inside dir, found while building.
type errMount struct{ why string }

func (e *errMount) Error() string { return e.why }

// rescue moves back into dir the user's files that were created or
// replaced in the old tree while this run built the new one (after it
// linked them): anything but the tree's paths, a generated file or the
// stamp. The newest save wins, and the order of events, not modification
// times (which cp -p and some editors set back), says which is newest: a
// file in the old tree was saved before the swap, and one in dir that is
// not what build placed there (placed, by slash path) was saved after it.
// So a file moves back only over build's own link, or to a path that has
// none and never had one (RENAME_NOREPLACE); a path the user removed from
// dir after the swap stays removed. Errors are ignored: what cannot be
// moved stays in the old tree, which is then removed, as if saved a moment
// later.
func rescue(s steps, oldTree, dir string, tree buildfile.Tree, placed map[string]fs.FileInfo) {
	filepath.WalkDir(oldTree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(oldTree, p)
		if err != nil || rel == StampFile {
			return nil
		}
		slash := filepath.ToSlash(rel)
		if _, ok := tree[slash]; ok {
			return nil
		}
		if d.Type().IsRegular() {
			if gen, err := generated(p); err != nil || gen {
				return nil
			}
		}
		s.at("rescue")
		was, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		to := filepath.Join(dir, rel)
		put := placed[slash]
		now, err := os.Lstat(to)
		switch {
		case err == nil && os.SameFile(was, now):
			// Not saved during the run (or saved in place, into the
			// inode both trees share).
		case err == nil && (put == nil || !os.SameFile(put, now)):
			// Saved (or made a folder) in dir after the swap: newer.
		case err == nil:
			// build's link of the file as it was before the save.
			s.at("rescue move")
			settle(s, p, to, put, was)
		case !errors.Is(err, fs.ErrNotExist) || put != nil:
			// Removed from dir after the swap (build had put it there),
			// or its folder is no longer one.
		default:
			// New during the run: moved back unless the user made one at
			// that path after the swap.
			s.at("rescue move")
			if os.MkdirAll(filepath.Dir(to), 0o755) == nil {
				renameNoReplace(p, to)
			}
		}
		return nil
	})
}

// rescueRounds bounds settle's rounds, each caused by a save into dir
// within microseconds of the previous one; keptSuffix names the file that
// settle keeps beside its path when saves keep coming.
const (
	rescueRounds = 8
	keptSuffix   = ".cudapkgs-saved"
)

// settle puts cur (the old tree's file at p) at to in place of prev (build's
// link there), by exchanging the two: nothing is overwritten, and what
// comes back to p says whether the user saved to in the meantime. If what
// comes back is not prev, it is a save made after cur was checked, so newer
// than cur, and it is exchanged back in, and so on. After rescueRounds
// such rounds both files are kept: the one at p goes beside to, named
// with keptSuffix.
func settle(s steps, p, to string, prev, cur fs.FileInfo) {
	for round := 1; ; round++ {
		if err := exchangeFiles(p, to); err != nil {
			return
		}
		back, err := os.Lstat(p)
		if err != nil || os.SameFile(back, prev) {
			return
		}
		if round == rescueRounds {
			renameNoReplace(p, to+keptSuffix)
			return
		}
		prev, cur = cur, back
		s.at("rescue move")
	}
}

// checkPaths refuses a tree whose files cannot be written in dir: a folder
// where a file goes, or a file where a folder goes.
func checkPaths(dir string, tree buildfile.Tree) error {
	for _, p := range tree.Paths() {
		full := filepath.Join(dir, filepath.FromSlash(p))
		for d := filepath.Dir(full); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
				return fmt.Errorf("cannot write %s: %s is not a folder", full, d)
			}
		}
		if fi, err := os.Lstat(full); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("cannot write %s: it exists and is not a regular file", full)
		}
	}
	p := filepath.Join(dir, StampFile)
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("cannot write %s: it exists and is not a regular file", p)
	}
	return nil
}

// lock takes an exclusive flock on the folder that holds dir (which, unlike
// dir, keeps its inode across the swap, and exists on the first run too).
func lock(ctx context.Context, parent string, onWait func(string)) (func(), error) {
	fl := flock.New(parent, flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", parent, err)
	}
	if !ok {
		if onWait != nil {
			onWait(parent)
		}
		if _, err := fl.TryLockContext(ctx, 50*time.Millisecond); err != nil {
			fl.Close()
			return nil, fmt.Errorf("waiting for the lock on %s: %w", parent, err)
		}
	}
	return func() { fl.Close() }, nil
}

// workName is the start of the names of work folders for dir's base name
// base next to dir (.<base>.cudapkgs-tmp-), or inside dir (base "":
// .cudapkgs-tmp-).
func workName(base string) string {
	if base == "" {
		return workInfix
	}
	return "." + base + workInfix
}

// makeWork creates an empty work folder in parent, named for base (see
// workName), with its marker.
func makeWork(s steps, parent, base, dir string) (string, error) {
	s.at("mkdir work")
	work, err := os.MkdirTemp(parent, workName(base)+"*")
	if err != nil {
		return "", err
	}
	s.at("marker")
	if err := os.WriteFile(filepath.Join(work, markerFile), []byte(markerText+dir+"\n"), 0o644); err != nil {
		os.Remove(filepath.Join(work, markerFile))
		os.Remove(work)
		return "", err
	}
	return work, nil
}

// ours reports whether p is one of this tool's work folders: a real folder
// holding the marker. A run killed while writing the marker leaves it
// short: a short marker counts when it is all the folder holds (removing
// that loses nothing), and so does an empty folder (see removeLeftovers).
func ours(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() {
		return false
	}
	f, err := os.Open(filepath.Join(p, markerFile))
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	b := make([]byte, len(markerText))
	n, err := io.ReadFull(f, b)
	if err == nil {
		return string(b) == markerText
	}
	if !strings.HasPrefix(markerText, string(b[:n])) {
		return false
	}
	entries, err := os.ReadDir(p)
	return err == nil && len(entries) == 1
}

// removeLeftovers removes the work folders that killed runs left in dir:
// those named .<base>.cudapkgs-tmp-* (base "": named .cudapkgs-tmp-*, the
// in-place path's, inside --out) that hold the marker, and empty ones of
// that name. Anything else is left alone. It returns, for the caller to
// report, each of the tool's folders that could not be removed and why
// (an immutable folder in an old tree): they are out of the way, and every
// run tries again.
func removeLeftovers(s steps, dir, base string) []string {
	prefix := workName(base)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var stuck []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if !ours(p) {
			os.Remove(p) // only if empty
			continue
		}
		if base != "" && private(p) {
			// A run killed after its swap left the old tree here, with
			// what the user saved during that run. Only from a folder of
			// this user's that no one else can write: in a shared folder
			// (/tmp) anyone can make one with the marker, and what it
			// holds must not reach --out.
			if placed := readPlaced(p); placed != nil {
				rescue(s, filepath.Join(p, newTree), filepath.Join(dir, base), nil, placed)
			}
		}
		if err := removeWork(s, p); err != nil {
			stuck = append(stuck, fmt.Sprintf("%s (left by an earlier run): %v", p, err))
		}
	}
	return stuck
}

// recordPlaced links into work's placedTree each file build placed at one
// of the user's paths (see placedTree). Without the record, complete, a
// later run's rescue moves nothing back (see readPlaced); so a link that
// fails drops the whole record.
func recordPlaced(s steps, work string, placed map[string]fs.FileInfo) {
	s.at("placed")
	tmp := filepath.Join(work, placedTree+".tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return
	}
	for rel := range placed {
		to := filepath.Join(tmp, filepath.FromSlash(rel))
		if os.MkdirAll(filepath.Dir(to), 0o700) != nil || os.Link(filepath.Join(work, newTree, filepath.FromSlash(rel)), to) != nil {
			os.RemoveAll(tmp)
			return
		}
	}
	if os.Rename(tmp, filepath.Join(work, placedTree)) != nil {
		os.RemoveAll(tmp)
	}
}

// readPlaced is the record recordPlaced left in a killed run's work
// folder, as build returned it, or nil when there is none: the run was
// killed before it (its tree is the new one, never swapped in, and nothing
// in it is the user's alone), or the record failed (nothing then tells the
// user's saves in the old tree from files they removed since, and the
// tree is removed as it is).
func readPlaced(work string) map[string]fs.FileInfo {
	root := filepath.Join(work, placedTree)
	if fi, err := os.Lstat(root); err != nil || !fi.IsDir() {
		return nil
	}
	placed := map[string]fs.FileInfo{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		placed[filepath.ToSlash(rel)] = fi
		return nil
	})
	if err != nil {
		return nil
	}
	return placed
}

// RemoveLeftovers removes the work folders that killed runs left next to
// dir and inside it, as Write does first, for a run that finds dir up to
// date and writes nothing: a run killed after its swap leaves the old tree
// in one, and nothing else would remove it. It returns what could not be
// removed and why ("" when nothing), for the caller to warn about.
//
// It takes the lock on the folder that holds dir without waiting: when
// another run holds it, the folders may be that run's, and it removes them
// itself. A lock that cannot be taken at all (flock refused on NFS) leaves
// the folders too; a run that writes says why.
func RemoveLeftovers(dir string) string {
	dir, err := resolve(dir)
	if err != nil {
		return ""
	}
	parent := filepath.Dir(dir)
	fl := flock.New(parent, flock.SetFlag(os.O_RDONLY))
	if ok, err := fl.TryLock(); err != nil || !ok {
		return ""
	}
	defer fl.Close()
	stuck := removeLeftovers(nil, parent, filepath.Base(dir))
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		stuck = append(stuck, removeLeftovers(nil, dir, "")...)
	}
	return strings.Join(stuck, "; ")
}

// workingChain is this process's working folder and every folder above it,
// found by walking "..", not by name, so that symlinks in the path that
// getwd reports do not hide one. Empty when the working folder is gone.
func workingChain() []fs.FileInfo {
	var chain []fs.FileInfo
	p := "."
	for range 1024 {
		fi, err := os.Stat(p)
		if err != nil || len(chain) > 0 && os.SameFile(fi, chain[len(chain)-1]) {
			break // gone, or the root (its ".." is itself)
		}
		chain = append(chain, fi)
		p = filepath.Join(p, "..")
	}
	return chain
}

// onChain reports whether the folder p is one of chain's (workingChain).
func onChain(chain []fs.FileInfo, p string) bool {
	if len(chain) == 0 {
		return false
	}
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	for _, c := range chain {
		if os.SameFile(fi, c) {
			return true
		}
	}
	return false
}

// removeWork removes a work folder, its marker last, so that a run killed
// while removing it leaves a folder the next run still recognises.
func removeWork(s steps, work string) error {
	entries, err := os.ReadDir(work)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == markerFile {
			continue
		}
		s.at("remove old")
		if err := os.RemoveAll(filepath.Join(work, e.Name())); err != nil {
			return err
		}
	}
	s.at("remove marker")
	if err := os.Remove(filepath.Join(work, markerFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Remove(work)
}

// old is what build finds in dir.
type old struct {
	dirs  map[string]fs.FileMode // every folder, by slash path ("" is dir)
	empty []string               // folders with nothing in them
	keep  []string               // non-folders that stay: the user's and unchanged ones
	stale int                    // generated files the tree no longer has
}

// scan walks dir (when it exists) and sorts its contents.
func scan(dir string, tree buildfile.Tree) (*old, error) {
	o := &old{dirs: map[string]fs.FileMode{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		if d.IsDir() {
			if rel != "" && !strings.Contains(rel, "/") && strings.HasPrefix(d.Name(), workInfix) && ours(p) {
				return fs.SkipDir // an in-place leftover that could not be removed
			}
			if rel != "" {
				if why := mountPoint(p); why != "" {
					// Hard links cannot reach it, and the old tree's
					// removal would go into it.
					return &errMount{why}
				}
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			o.dirs[rel] = fi.Mode().Perm()
			if f, err := os.Open(p); err == nil {
				_, rerr := f.Readdirnames(1)
				f.Close()
				if rerr == io.EOF && rel != "" {
					o.empty = append(o.empty, rel)
				}
			}
			return nil
		}
		if rel == StampFile {
			return nil
		}
		if _, ok := tree[rel]; ok {
			return nil // compared below
		}
		if d.Type().IsRegular() {
			gen, err := generated(p)
			if err != nil {
				return err
			}
			if gen {
				o.stale++
				return nil
			}
		}
		o.keep = append(o.keep, rel)
		return nil
	})
	return o, err
}

// build makes at root the new tree: tree's files (hard links to dir's when
// the bytes are the same), the user's files from dir (hard links), its
// empty folders, and the stamp. It returns the tree's paths that changed,
// and what it put at each of the user's paths (by slash path), which
// rescue needs to tell a file saved after the swap from its own link.
func build(ctx context.Context, s steps, dir string, exists bool, root string, tree buildfile.Tree, stamp []byte, st *Stats) ([]string, map[string]fs.FileInfo, error) {
	o := &old{dirs: map[string]fs.FileMode{}}
	if exists {
		var err error
		if o, err = scan(dir, tree); err != nil {
			return nil, nil, err
		}
	}
	st.Removed = o.stale
	// Which files change: compare with what is there, in parallel (most
	// regenerations change few files, and opening a file is the slow part).
	paths := tree.Paths()
	changed := make([]bool, len(paths))
	var g errgroup.Group
	g.SetLimit(8)
	if exists {
		for i, p := range paths {
			g.Go(func() error {
				old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				changed[i] = err != nil || !bytes.Equal(old, tree[p])
				return nil
			})
		}
		_ = g.Wait()
	} else {
		for i := range changed {
			changed[i] = true
		}
	}
	var todo, link []string
	for i, p := range paths {
		if changed[i] {
			todo = append(todo, p)
			st.Written++
		} else {
			link = append(link, p)
			st.Unchanged++
		}
	}
	link = append(link, o.keep...)
	// Folders first, parents before children, with the modes they had.
	need := map[string]bool{}
	add := func(d string) {
		for ; d != "" && !need[d]; d = pathDir(d) {
			need[d] = true
		}
	}
	for _, p := range todo {
		add(pathDir(p))
	}
	for _, p := range link {
		add(pathDir(p))
	}
	for _, d := range o.empty {
		add(d)
	}
	dirs := make([]string, 0, len(need))
	for d := range need {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	mode := func(d string) fs.FileMode {
		if m, ok := o.dirs[d]; ok {
			return m
		}
		return 0o755
	}
	s.at("mkdir")
	if err := os.Mkdir(root, 0o755); err != nil {
		return nil, nil, err
	}
	if err := os.Chmod(root, mode("")); err != nil {
		return nil, nil, err
	}
	for _, d := range dirs {
		s.at("mkdir")
		p := filepath.Join(root, filepath.FromSlash(d))
		if err := os.Mkdir(p, 0o755); err != nil {
			return nil, nil, err
		}
		if m := mode(d); m != 0o755 {
			if err := os.Chmod(p, m); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	// Then the files.
	g.SetLimit(s.limit(8))
	for _, p := range link {
		g.Go(func() error {
			s.at("link")
			return linkOrCopy(filepath.Join(dir, filepath.FromSlash(p)), filepath.Join(root, filepath.FromSlash(p)))
		})
	}
	for _, p := range todo {
		g.Go(func() error {
			s.at("write")
			return os.WriteFile(filepath.Join(root, filepath.FromSlash(p)), tree[p], 0o644)
		})
	}
	if stamp != nil {
		g.Go(func() error {
			s.at("stamp")
			return os.WriteFile(filepath.Join(root, StampFile), stamp, 0o644)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	placed := make(map[string]fs.FileInfo, len(o.keep))
	for _, p := range o.keep {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, nil, err
		}
		placed[p] = fi
	}
	return todo, placed, ctx.Err()
}

// pathDir is path.Dir for slash paths relative to the tree, "" for the top.
func pathDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

// linkOrCopy hard-links from to to (the same inode: same bytes, mode and
// modification time); where the file system refuses (an immutable file,
// protected hard links), it copies the file with its mode and times, or the
// symlink.
func linkOrCopy(from, to string) error {
	err := os.Link(from, to)
	if err == nil {
		return nil
	}
	fi, serr := os.Lstat(from)
	if serr != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, rerr := os.Readlink(from)
		if rerr != nil {
			return err
		}
		return os.Symlink(target, to)
	case fi.Mode().IsRegular():
		b, rerr := os.ReadFile(from)
		if rerr != nil {
			return err
		}
		if werr := os.WriteFile(to, b, fi.Mode().Perm()); werr != nil {
			return werr
		}
		if cerr := os.Chmod(to, fi.Mode().Perm()); cerr != nil {
			return cerr
		}
		return os.Chtimes(to, fi.ModTime(), fi.ModTime())
	}
	return fmt.Errorf("keeping %s in the new tree: %w", from, err)
}

// writeInPlace is the path for a dir that cannot be swapped (a mount
// point): the changed files are written to a work folder inside dir and
// renamed into place one by one (each file changes atomically, the tree
// does not), after the old stamp is removed so that a run killed midway
// leaves no stamp and the next run regenerates.
//
// wd is the working folder and the folders above it (workingChain): a
// folder among them that the removal of stale files empties stays.
func writeInPlace(s steps, dir string, tree buildfile.Tree, stamp []byte, why string, wd []fs.FileInfo) (Stats, error) {
	st := Stats{InPlace: why}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	paths := tree.Paths()
	changed := make([]bool, len(paths))
	var g errgroup.Group
	g.SetLimit(8)
	for i, p := range paths {
		g.Go(func() error {
			old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			changed[i] = err != nil || !bytes.Equal(old, tree[p])
			return nil
		})
	}
	_ = g.Wait()
	var todo []string
	for i, p := range paths {
		if changed[i] {
			todo = append(todo, p)
		} else {
			st.Unchanged++
		}
	}
	work, err := makeWork(s, dir, "", dir)
	if err != nil {
		return st, err
	}
	defer removeWork(s, work)
	if err := makeDirs(work, todo); err != nil {
		return st, err
	}
	g.SetLimit(s.limit(8))
	for _, p := range todo {
		g.Go(func() error {
			s.at("write")
			return os.WriteFile(filepath.Join(work, filepath.FromSlash(p)), tree[p], 0o644)
		})
	}
	if err := g.Wait(); err != nil {
		return st, err
	}
	return st, replaceFiles(s, work, dir, todo, tree, stamp, &st, wd)
}

// replaceFiles renames the files todo from stage into dir, removes the
// stale generated files and the folders that removal empties, and puts the
// stamp in place last. A folder on wd (the working folder or above it)
// stays, emptied or not, so that the process keeps a working folder.
func replaceFiles(s steps, stage, dir string, todo []string, tree buildfile.Tree, stamp []byte, st *Stats, wd []fs.FileInfo) error {
	s.at("remove stamp")
	if err := os.Remove(filepath.Join(dir, StampFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := makeDirs(dir, todo); err != nil {
		return err
	}
	st.Written = 0
	for _, p := range todo {
		s.at("rename")
		if err := os.Rename(filepath.Join(stage, filepath.FromSlash(p)), filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			return err
		}
		st.Written++
	}
	stale, err := staleFiles(dir, tree)
	if err != nil {
		return err
	}
	st.Removed = 0
	for _, p := range stale {
		s.at("remove")
		if err := os.Remove(p); err != nil {
			return err
		}
		st.Removed++
		// Remove folders the removal emptied, up to dir.
		for d := filepath.Dir(p); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			if onChain(wd, d) || os.Remove(d) != nil {
				break
			}
		}
	}
	if stamp == nil {
		return nil
	}
	s.at("stamp")
	tmp := filepath.Join(stage, StampFile)
	if err := os.WriteFile(tmp, stamp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, StampFile))
}

// makeDirs creates, under root, the folders the paths need, each once.
func makeDirs(root string, paths []string) error {
	seen := map[string]bool{}
	for _, p := range paths {
		d := filepath.Dir(filepath.Join(root, filepath.FromSlash(p)))
		if seen[d] {
			continue
		}
		seen[d] = true
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// staleFiles are the regular files under dir that the tree does not have
// and whose first line is buildfile.Header, deepest first, leaving out the
// stamp and this tool's work folders.
func staleFiles(dir string, tree buildfile.Tree) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && filepath.Dir(p) == dir && strings.HasPrefix(d.Name(), workInfix) && ours(p) {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if _, ok := tree[filepath.ToSlash(rel)]; ok || rel == StampFile {
			return nil
		}
		gen, err := generated(p)
		if err != nil {
			return err
		}
		if gen {
			out = append(out, p)
		}
		return nil
	})
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out, err
}

// generated reports whether the file's first line is buildfile.Header.
func generated(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return false, nil
	}
	return strings.TrimRight(line, "\r\n") == buildfile.Header, nil
}
