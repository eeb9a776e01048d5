package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/plugins/catalog"
	"github.com/cudapkgs/cudapkgs/starlark"
)

func (a *app) generateCmd() *cobra.Command {
	var out, name, format string
	var force bool
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write a Bazel repository (the @cuda hub) for the package sets",
		Long: `generate builds the package sets as query does and writes a self-contained Bazel
repository to --out: a hub with one target per package (@cuda//:libcublas) that
selects, by --@cuda//:version and the target platform, the http_archive that serves
it, the archives' BUILD files, platforms, and targets that fail at analysis with the
reasons a package cannot be used. The folder is also a Bazel module: bzlmod users
add bazel_dep(name = "cuda") with local_path_override and configure it with the
cuda module extension's tags; WORKSPACE users call cuda_repositories(). See
docs/bazel.md. --local-cuda PATH uses an installed CUDA instead of downloads for its
version and platform (docs/local-cuda.md); --format buck2 writes a Buck2 cell of the
same shape instead (docs/buck2.md).

The new tree is written next to --out first; --out changes only when everything
succeeded, and then only where files changed. Files of an earlier run that are no
longer produced are removed: only files whose first line is
"` + bazel.Header + `"; nothing else in --out is touched.

After a successful run --out/` + stampFile + ` records a digest of every input (the
manifests, the configuration files, the flags, this binary) and of every file
written. While they all still match, generate prints "up to date" and does
nothing, without starting the plugins; --force regenerates regardless.

  cudapkgs generate --manifests DIR --out third_party/cuda --cuda 12.4.1,12.6.3`,
		Args: cobra.NoArgs,
	}
	f := addConfigFlags(cmd)
	cmd.Flags().StringVar(&out, "out", "", "folder to write the repository to (created if missing)")
	cmd.Flags().StringVar(&name, "name", "cuda", "the repository's name in the workspace (local_repository(name = ...)); prefixes the archives' repositories")
	cmd.Flags().BoolVar(&force, "force", false, "regenerate even when --out is up to date with its inputs")
	// Hashed into the stamp with every other flag (preDigest), so switching
	// formats regenerates.
	cmd.Flags().StringVar(&format, "format", "bazel", "what to write: bazel (a Bazel repository) or buck2 (a Buck2 cell)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if out == "" {
			return usagef("--out is required: the folder to write the Bazel repository to")
		}
		if format != "bazel" && format != "buck2" {
			return usagef("--format %q: expected bazel or buck2", format)
		}
		// The inputs known before evaluating (flags, binary, manifests) are
		// hashed first: a manifest that changes during the run makes the
		// next run regenerate rather than trust this one's output.
		pre, preErr := preDigest(cmd, f)
		if !force && preErr == nil && upToDate(out, pre) {
			fmt.Fprintf(a.stderr, "generate: %s: up to date\n", out)
			return nil
		}
		e, err := a.evaluate(cmd.Context(), f)
		if err != nil {
			return err
		}
		sets, err := a.sets(cmd.Context(), e)
		if err != nil {
			return err
		}
		var tree bazel.Tree
		switch format {
		case "buck2":
			if e.cfg.LocalCUDA() != "" {
				return usagef("--local-cuda: not supported with --format buck2 yet (see docs/buck2.md)")
			}
			tree, err = buck2.Generate(e.cfg, sets, buck2.Options{Name: name, Toolchain: catalog.Toolchain()})
		default:
			var local *bazel.Local
			if local, err = localInstall(e, sets, a.stderr); err == nil {
				// The module extension reads an install at Bazel time with
				// the same knowledge generation uses for --local-cuda.
				var toolkit string
				for _, p := range e.products {
					if p.Toolkit {
						toolkit = p.Name
					}
				}
				tree, err = bazel.Generate(e.cfg, sets, bazel.Options{Name: name, Toolchain: catalog.Toolchain(), Local: local,
					LocalProduct: toolkit, LocalHints: catalog.LocalHints(), LocalIdentify: catalog.LocalIdentify()})
			}
		}
		if err != nil {
			return err
		}
		st, err := writeTree(out, tree)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "generate: %s: %d files written, %d unchanged, %d removed\n", out, st.written, st.unchanged, st.removed)
		// An installed CUDA can change under the output (an upgrade): no
		// stamp, so the next run reads it again.
		if preErr == nil && e.cfg.LocalCUDA() == "" {
			if err := writeStamp(out, pre, stampInputs(e, f), tree); err != nil {
				// Only the fast path is lost: the next run regenerates.
				fmt.Fprintf(a.stderr, "warning: %s: %v\n", filepath.Join(out, stampFile), err)
			}
		}
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
	// Which files change: compare with what is there, in parallel (most
	// regenerations change few files, and opening a file is the slow part).
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
			st.unchanged++
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
		if _, ok := tree[filepath.ToSlash(rel)]; ok || rel == stampFile {
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

// stampFile, directly in --out, records what the last successful run read
// and wrote. Its first line is bazel.Header, like every generated file, but
// it is never removed as stale: each successful run rewrites it.
const stampFile = ".cudapkgs-stamp"

const stampVersion = "cudapkgs stamp v1"

// stampInputsList are the inputs known only once the configuration has been
// evaluated: Starlark modules, user product folders, third-party plugins.
type stampInputsList struct {
	modules  []string // absolute paths, in load order
	products []string // folders of the configuration's own manifests
	plugins  []string // "SHA256 PATH" as declared
}

// preDigest hashes the inputs known before evaluating: the stamp format, the
// running binary (path, size, modification time: it also serves the
// built-in plugins, so a rebuilt cudapkgs regenerates), the working folder
// (relative paths in flags), every flag but --out and --force, the resolved
// configuration file path, and the path and bytes of every manifest that
// manifest.LoadDir reads from --manifests.
func preDigest(cmd *cobra.Command, f *configFlags) ([]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", stampVersion)
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(h, "exe %q %d %d\n", exe, fi.Size(), fi.ModTime().UnixNano())
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(h, "wd %q\n", wd)
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name == "out" || fl.Name == "force" {
			return
		}
		fmt.Fprintf(h, "flag %q %t %q\n", fl.Name, fl.Changed, fl.Value.String())
	})
	root, err := f.workspaceRoot()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(h, "root %q\n", root)
	conf := f.config
	if conf == "" {
		conf = filepath.Join(root, starlark.DefaultConfigFile)
		if _, err := os.Stat(conf); err != nil {
			conf = ""
		}
	}
	fmt.Fprintf(h, "config %q\n", conf)
	dir := f.manifests
	if dir == "" {
		if dir = defaultManifestsDir(); dir == "" {
			return nil, errors.New("no manifests folder")
		}
	}
	fmt.Fprintf(h, "manifests %q\n", dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if err := hashManifests(h, filepath.Join(dir, e.Name())); err != nil {
			return nil, err
		}
	}
	return h.Sum(nil), nil
}

// hashManifests hashes the names and bytes of the redistrib_<version>.json
// files directly in dir, as manifest.LoadDir and LoadProduct pick them.
func hashManifests(h hash.Hash, dir string) error {
	files, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, fe := range files {
		if _, ok := manifest.ReleaseFromFileName(fe.Name()); !ok || fe.IsDir() {
			continue
		}
		if err := hashFile(h, filepath.Join(dir, fe.Name())); err != nil {
			return err
		}
	}
	return nil
}

func hashFile(h hash.Hash, p string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %q %d\n", p, len(b))
	h.Write(b)
	return nil
}

// stampInputs lists what the evaluation read beyond preDigest's inputs.
func stampInputs(e *evaluated, f *configFlags) stampInputsList {
	var in stampInputsList
	if e.file != nil {
		root := e.interp.Root()
		for i, m := range e.file.Modules {
			p := filepath.FromSlash(m)
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			if i == 0 {
				// The top file: --config as given, or the default one.
				p = filepath.Join(root, starlark.DefaultConfigFile)
				if f.config != "" {
					p = f.config
				}
			}
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			in.modules = append(in.modules, p)
		}
		for _, up := range e.file.Products() {
			d := up.Dir
			if !filepath.IsAbs(d) {
				d = filepath.Join(root, d)
			}
			in.products = append(in.products, d)
		}
	}
	for _, p := range e.cfg.Plugins() {
		in.plugins = append(in.plugins, p.SHA256+" "+p.Path)
	}
	return in
}

// key combines preDigest with the bytes of the evaluation's own inputs.
func (in stampInputsList) key(pre []byte) (string, error) {
	h := sha256.New()
	h.Write(pre)
	for _, m := range in.modules {
		if err := hashFile(h, m); err != nil {
			return "", err
		}
	}
	for _, d := range in.products {
		fmt.Fprintf(h, "product %q\n", d)
		if err := hashManifests(h, d); err != nil {
			return "", err
		}
	}
	for _, p := range in.plugins {
		fmt.Fprintf(h, "plugin %q\n", p)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeStamp records the inputs and the sha256 of every generated file. It
// is written next to its final place and renamed, so it is whole or absent.
func writeStamp(out string, pre []byte, in stampInputsList, tree bazel.Tree) error {
	key, err := in.key(pre)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n# %s: the inputs and outputs of the last run; while they match, generate does nothing (--force: regenerate).\n", bazel.Header, stampVersion)
	fmt.Fprintf(&b, "key %s\n", key)
	for _, m := range in.modules {
		fmt.Fprintf(&b, "module %s\n", strconv.Quote(m))
	}
	for _, d := range in.products {
		fmt.Fprintf(&b, "product %s\n", strconv.Quote(d))
	}
	for _, p := range in.plugins {
		fmt.Fprintf(&b, "plugin %s\n", strconv.Quote(p))
	}
	for _, p := range tree.Paths() {
		sum := sha256.Sum256(tree[p])
		fmt.Fprintf(&b, "out %s %s\n", hex.EncodeToString(sum[:]), strconv.Quote(p))
	}
	tmp, err := os.CreateTemp(out, stampFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(out, stampFile))
}

// upToDate reports whether out holds a stamp whose key matches the inputs as
// they are now and whose every listed file still has the recorded bytes. Any
// doubt (no stamp, unreadable input or output, a line it does not know)
// answers false: the normal path then runs.
func upToDate(out string, pre []byte) bool {
	data, err := os.ReadFile(filepath.Join(out, stampFile))
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 3 || lines[0] != bazel.Header || lines[1] != "# "+stampVersion+": the inputs and outputs of the last run; while they match, generate does nothing (--force: regenerate)." {
		return false
	}
	var in stampInputsList
	var key string
	type output struct{ sum, path string }
	var outs []output
	for _, l := range lines[2:] {
		kind, rest, _ := strings.Cut(l, " ")
		switch kind {
		case "key":
			key = rest
		case "module", "product", "plugin":
			s, err := strconv.Unquote(rest)
			if err != nil {
				return false
			}
			switch kind {
			case "module":
				in.modules = append(in.modules, s)
			case "product":
				in.products = append(in.products, s)
			default:
				in.plugins = append(in.plugins, s)
			}
		case "out":
			sum, q, _ := strings.Cut(rest, " ")
			p, err := strconv.Unquote(q)
			if err != nil || !filepath.IsLocal(filepath.FromSlash(p)) {
				return false
			}
			outs = append(outs, output{sum, p})
		default:
			return false
		}
	}
	if key == "" || len(outs) == 0 {
		return false
	}
	if now, err := in.key(pre); err != nil || now != key {
		return false
	}
	for _, o := range outs {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(o.path)))
		if err != nil {
			return false
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != o.sum {
			return false
		}
	}
	return true
}
