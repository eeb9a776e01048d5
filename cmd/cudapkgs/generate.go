package main

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

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/plugins/catalog"
)

func (a *app) generateCmd() *cobra.Command {
	var out, name string
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write a Bazel repository (the @cuda hub) for the package sets",
		Long: `generate builds the package sets as query does and writes a self-contained Bazel
repository to --out: a hub with one target per package (@cuda//:libcublas) that
selects, by --@cuda//:version and the target platform, the http_archive that serves
it, the archives' BUILD files, platforms, and targets that fail at analysis with the
reasons a package cannot be used. See docs/bazel.md.

The new tree is written next to --out first; --out changes only when everything
succeeded, and then only where files changed. Files of an earlier run that are no
longer produced are removed: only files whose first line is
"` + bazel.Header + `"; nothing else in --out is touched.

  cudapkgs generate --manifests DIR --out third_party/cuda --cuda 12.4.1,12.6.3`,
		Args: cobra.NoArgs,
	}
	f := addConfigFlags(cmd)
	cmd.Flags().StringVar(&out, "out", "", "folder to write the repository to (created if missing)")
	cmd.Flags().StringVar(&name, "name", "cuda", "the repository's name in the workspace (local_repository(name = ...)); prefixes the archives' repositories")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if out == "" {
			return usagef("--out is required: the folder to write the Bazel repository to")
		}
		e, err := a.evaluate(cmd.Context(), f)
		if err != nil {
			return err
		}
		sets, err := a.sets(cmd.Context(), e)
		if err != nil {
			return err
		}
		tree, err := bazel.Generate(e.cfg, sets, bazel.Options{Name: name, Toolchain: catalog.Toolchain()})
		if err != nil {
			return err
		}
		st, err := writeTree(out, tree)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "generate: %s: %d files written, %d unchanged, %d removed\n", out, st.written, st.unchanged, st.removed)
		return nil
	}
	return cmd
}

type writeStats struct{ written, unchanged, removed int }

// writeTree makes dir hold tree. The whole tree is first written to a
// temporary folder next to dir; dir is touched only once that succeeded,
// and then each changed file is renamed into place (so each file is replaced
// atomically), unchanged files are left alone, and generated files (first
// line bazel.Header) that the tree no longer has are removed.
func writeTree(dir string, tree bazel.Tree) (writeStats, error) {
	var st writeStats
	dir = filepath.Clean(dir)
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return st, fmt.Errorf("--out %s: not a folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return st, err
	}
	// Check every target path first: a folder where a file goes (or a file
	// where a folder goes) would stop the update halfway.
	for _, p := range tree.Paths() {
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
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return st, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".cudapkgs-*")
	if err != nil {
		return st, err
	}
	defer os.RemoveAll(tmp)
	for _, p := range tree.Paths() {
		full := filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return st, err
		}
		if err := os.WriteFile(full, tree[p], 0o644); err != nil {
			return st, err
		}
	}
	// The new tree is complete: update dir.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	for _, p := range tree.Paths() {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if old, err := os.ReadFile(full); err == nil && bytes.Equal(old, tree[p]) {
			st.unchanged++
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return st, err
		}
		if err := os.Rename(filepath.Join(tmp, filepath.FromSlash(p)), full); err != nil {
			return st, err
		}
		st.written++
	}
	stale, err := staleFiles(dir, tree)
	if err != nil {
		return st, err
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			return st, err
		}
		st.removed++
		// Remove folders the removal emptied, up to dir.
		for d := filepath.Dir(p); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	return st, nil
}

// staleFiles are the regular files under dir that the tree does not have
// and whose first line is bazel.Header, deepest first.
func staleFiles(dir string, tree bazel.Tree) ([]string, error) {
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
		if _, ok := tree[filepath.ToSlash(rel)]; ok {
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
	return strings.TrimRight(line, "\r\n") == bazel.Header, nil
}
