package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/outdir"
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

After a successful run --out/` + outdir.StampFile + ` records a digest of every input (the
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
	// Hashed into the stamp with every other flag (beforeInputs), so switching
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
		var pre []byte
		before, preErr := beforeInputs(cmd, f)
		if preErr == nil {
			pre, preErr = outdir.Digest(before)
		}
		if !force && preErr == nil && outdir.UpToDate(out, pre) {
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
		st, err := outdir.Write(out, tree)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "generate: %s: %d files written, %d unchanged, %d removed\n", out, st.Written, st.Unchanged, st.Removed)
		// An installed CUDA can change under the output (an upgrade): no
		// stamp, so the next run reads it again.
		if preErr == nil && e.cfg.LocalCUDA() == "" {
			if err := outdir.WriteStamp(out, pre, afterInputs(e, f), tree); err != nil {
				// Only the fast path is lost: the next run regenerates.
				fmt.Fprintf(a.stderr, "warning: %s: %v\n", filepath.Join(out, outdir.StampFile), err)
			}
		}
		return nil
	}
	return cmd
}

// beforeInputs are the inputs known before evaluating: the running binary
// (path, size, modification time: it also serves the built-in plugins, so a
// rebuilt cudapkgs regenerates), the working folder (relative paths in
// flags), every flag but --out and --force, the resolved configuration file
// path, and every manifest folder that manifest.LoadDir reads from
// --manifests.
func beforeInputs(cmd *cobra.Command, f *configFlags) (outdir.Inputs, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return nil, err
	}
	in := outdir.Inputs{{Kind: outdir.Value, Name: "exe", Value: fmt.Sprintf("%q %d %d", exe, fi.Size(), fi.ModTime().UnixNano())}}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	in = append(in, outdir.Input{Kind: outdir.Value, Name: "wd", Value: wd})
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name == "out" || fl.Name == "force" {
			return
		}
		in = append(in, outdir.Input{Kind: outdir.Value, Name: "flag " + fl.Name, Value: fmt.Sprintf("%t %q", fl.Changed, fl.Value.String())})
	})
	root, err := f.workspaceRoot()
	if err != nil {
		return nil, err
	}
	conf := f.config
	if conf == "" {
		conf = filepath.Join(root, starlark.DefaultConfigFile)
		if _, err := os.Stat(conf); err != nil {
			conf = ""
		}
	}
	dir := f.manifests
	if dir == "" {
		if dir = defaultManifestsDir(); dir == "" {
			return nil, errors.New("no manifests folder")
		}
	}
	in = append(in,
		outdir.Input{Kind: outdir.Value, Name: "root", Value: root},
		outdir.Input{Kind: outdir.Value, Name: "config", Value: conf},
		outdir.Input{Kind: outdir.Value, Name: "manifests", Value: dir})
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() {
			in = append(in, outdir.Input{Kind: outdir.Manifests, Name: filepath.Join(dir, e.Name())})
		}
	}
	return in, nil
}

// afterInputs are what the evaluation read beyond beforeInputs: the Starlark
// modules (absolute paths, in load order), the folders of the
// configuration's own manifests, and third-party plugins as declared.
func afterInputs(e *evaluated, f *configFlags) outdir.Inputs {
	var in outdir.Inputs
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
			in = append(in, outdir.Input{Kind: outdir.File, Name: p})
		}
		for _, up := range e.file.Products() {
			d := up.Dir
			if !filepath.IsAbs(d) {
				d = filepath.Join(root, d)
			}
			in = append(in, outdir.Input{Kind: outdir.Manifests, Name: d})
		}
	}
	for _, p := range e.cfg.Plugins() {
		in = append(in, outdir.Input{Kind: outdir.Value, Name: "plugin", Value: p.SHA256 + " " + p.Path})
	}
	return in
}
