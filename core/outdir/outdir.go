// Package outdir writes a generated tree into the output folder and keeps
// the stamp that lets the next run skip the work when nothing changed.
//
// Write changes the folder only once the whole tree has been written next to
// it, and then only where files changed; files of an earlier run that the
// tree no longer has are removed, and only those (their first line is
// buildfile.Header). The stamp records a digest of every input of the run
// and the sha256 of every file written: UpToDate answers whether they all
// still match, without running anything else.
package outdir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/cudapkgs/cudapkgs/core/buildfile"
)

// Stats count what Write did.
type Stats struct{ Written, Unchanged, Removed int }

// Write makes dir hold tree. The whole tree is first written to a temporary
// folder next to dir; dir is touched only once that succeeded, and then each
// changed file is renamed into place (so each file is replaced atomically),
// unchanged files are left alone, and generated files (first line
// buildfile.Header) that the tree no longer has are removed, with the folders
// that removal empties.
func Write(dir string, tree buildfile.Tree) (Stats, error) {
	var st Stats
	dir = filepath.Clean(dir)
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return st, fmt.Errorf("--out %s: not a folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return st, err
	}
	// Check every target path first: a folder where a file goes (or a file
	// where a folder goes) would stop the update halfway.
	paths := tree.Paths()
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		for d := filepath.Dir(full); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
				return st, fmt.Errorf("cannot write %s: %s is not a folder", full, d)
			}
		}
		if fi, err := os.Lstat(full); err == nil && !fi.Mode().IsRegular() {
			return st, fmt.Errorf("cannot write %s: it exists and is not a regular file", full)
		}
	}
	// Which files change: compare with what is there, in parallel (most
	// regenerations change few files, and opening a file is the slow part).
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
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return st, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".cudapkgs-*")
	if err != nil {
		return st, err
	}
	defer os.RemoveAll(tmp)
	// Write every changed file aside first; only when all are written does
	// dir change, one rename per file.
	if err := makeDirs(tmp, todo); err != nil {
		return st, err
	}
	for _, p := range todo {
		g.Go(func() error {
			return os.WriteFile(filepath.Join(tmp, filepath.FromSlash(p)), tree[p], 0o644)
		})
	}
	if err := g.Wait(); err != nil {
		return st, err
	}
	if err := makeDirs(dir, todo); err != nil {
		return st, err
	}
	for _, p := range todo {
		if err := os.Rename(filepath.Join(tmp, filepath.FromSlash(p)), filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			return st, err
		}
		st.Written++
	}
	stale, err := staleFiles(dir, tree)
	if err != nil {
		return st, err
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			return st, err
		}
		st.Removed++
		// Remove folders the removal emptied, up to dir.
		for d := filepath.Dir(p); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	return st, nil
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
// and whose first line is buildfile.Header, deepest first. The stamp is
// never stale: each successful run rewrites it.
func staleFiles(dir string, tree buildfile.Tree) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
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
