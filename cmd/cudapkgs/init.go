package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/core/workspace"
	"github.com/cudapkgs/cudapkgs/starlark"
)

// defaultInitOut is where init writes the repository, relative to the
// workspace root.
const defaultInitOut = "third_party/cuda"

func (a *app) initCmd() *cobra.Command {
	var out, name string
	var force bool
	cmd := &cobra.Command{
		Use: "init",
		Example: `  cudapkgs init --cuda 12.4.1
  cudapkgs init --manifests DIR --cuda 12.6.3 --platform linux-x86_64 --out third_party/cuda`,
		Short: "Set up a Bazel workspace: cudapkgs.star, the @cuda repository, and MODULE.bazel (or WORKSPACE)",
		Long: `init sets up the Bazel workspace it is run in (the nearest folder up with MODULE.bazel,
WORKSPACE, WORKSPACE.bazel or cudapkgs.star, else the current folder; or --workspace):

 1. writes cudapkgs.star at the workspace root, a commented configuration
    with the options given as flags set and every other one shown (kept as
    it is when it exists);
 2. generates the repository as generate does, into --out (default
    ` + defaultInitOut + ` below the workspace root), with the same flags;
 3. adds to MODULE.bazel what is missing of bazel_dep(name = "cuda"),
    local_path_override(module_name = "cuda", path = "` + defaultInitOut + `") and
    cuda = use_extension("@cuda//:extensions.bzl", "cuda"); or, in a workspace
    with a WORKSPACE file and no MODULE.bazel, local_repository(name = "cuda", ...),
    load("@cuda//:repositories.bzl", "cuda_repositories") and cuda_repositories().
    With neither file it creates MODULE.bazel.

The edit is made on the file's syntax tree (buildtools): a file that does not
parse, or that already points the module elsewhere, is refused before anything
is written. Running init again changes nothing.

  cudapkgs init --cuda 12.4.1
  cudapkgs init --manifests DIR --cuda 12.4.1,12.6.3 --platform linux-x86_64,linux-sbsa`,
		Args: cobra.NoArgs,
	}
	f := addConfigFlags(cmd)
	cmd.Flags().StringVar(&out, "out", "", "folder to write the repository to (default: "+defaultInitOut+" below the workspace root)")
	cmd.Flags().StringVar(&name, "name", "cuda", "the repository's and module's name in the workspace")
	cmd.Flags().BoolVar(&force, "force", false, "regenerate even when the repository is up to date with its inputs")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.init(cmd, f, out, name, force)
	}
	return cmd
}

func (a *app) init(cmd *cobra.Command, f *configFlags, out, name string, force bool) error {
	root, err := f.workspaceRoot()
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(root, filepath.FromSlash(defaultInitOut))
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	// The path MODULE.bazel or WORKSPACE gives: relative to the workspace
	// root when inside it.
	repoPath := filepath.ToSlash(absOut)
	if rel, err := filepath.Rel(root, absOut); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		repoPath = filepath.ToSlash(rel)
	}
	// First what can fail without writing anything: the file to edit must
	// parse and must not point the module elsewhere.
	plan, err := workspace.Plan(root, workspace.Repo{Name: name, Path: repoPath})
	if err != nil {
		return err
	}
	star := f.config
	if star == "" {
		star = filepath.Join(root, starlark.DefaultConfigFile)
	}
	wroteStar := false
	if _, err := os.Stat(star); errors.Is(err, os.ErrNotExist) {
		text, err := starTemplate(f, root, absOut)
		if err != nil {
			return err
		}
		if err := outdir.WriteFile(star, []byte(text)); err != nil {
			return err
		}
		wroteStar = true
	} else if err != nil {
		return err
	}
	upToDate, err := a.generate(cmd, f, absOut, name, cudapkgs.Bazel, force)
	if err != nil {
		if wroteStar {
			// Nothing half-done: the configuration goes with the repository.
			os.Remove(star)
		}
		return err
	}
	if err := plan.Write(); err != nil {
		return err
	}

	show := func(p string) string {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
		return p
	}
	if wroteStar {
		fmt.Fprintf(a.stdout, "%s: written\n", show(star))
	} else {
		fmt.Fprintf(a.stdout, "%s: exists, kept\n", show(star))
	}
	if upToDate {
		fmt.Fprintf(a.stdout, "%s: up to date\n", show(absOut))
	} else {
		fmt.Fprintf(a.stdout, "%s: generated\n", show(absOut))
	}
	switch {
	case !plan.Changed():
		fmt.Fprintf(a.stdout, "%s: already uses @%s, unchanged\n", show(plan.Path), name)
	case !plan.Exists:
		fmt.Fprintf(a.stdout, "%s: created with %s\n", show(plan.Path), strings.Join(plan.Added, "; "))
	default:
		fmt.Fprintf(a.stdout, "%s: added %s\n", show(plan.Path), strings.Join(plan.Added, "; "))
	}
	fmt.Fprintf(a.stdout, "next: load(\"@%s//rules:cuda.bzl\", \"cuda_binary\") in a BUILD file, then bazel build (docs/bazel.md)\n", name)
	return nil
}

// starTemplate is the commented cudapkgs.star init writes: a section per
// configuration builtin of config.Table, with the option's doc as its
// comment, set to the value of its flag when the flag was given, else
// showing the option's example commented out.
func starTemplate(f *configFlags, root, out string) (string, error) {
	var given config.Options
	if err := f.Apply(&given); err != nil {
		return "", err
	}
	regen := "cudapkgs generate --out " + filepath.ToSlash(out)
	if rel, err := filepath.Rel(root, out); err == nil && !strings.HasPrefix(rel, "..") {
		regen = "cudapkgs generate --out " + filepath.ToSlash(rel)
	}
	var b strings.Builder
	b.WriteString(`# cudapkgs.star: the configuration of cudapkgs (written by ` + "`cudapkgs init`" + `).
#
# cudapkgs query, generate and eval read it from the workspace root; flags given
# on their command line win over it. Every call is optional: an option this file
# does not set keeps its default. The builtins are in docs/starlark.md, the
# options in docs/configuration.md. After a change, regenerate the repository
# (from the workspace root):
#
#   ` + regen + `
`)
	comment := func(text string) {
		for _, line := range strings.Split(text, "\n") {
			b.WriteString("# " + line + "\n")
		}
	}
	written := map[string]bool{} // builtins with their section
	for _, opt := range config.Table() {
		if written[opt.Builtin] {
			continue // set by the call of the option before it (local_cuda's components)
		}
		written[opt.Builtin] = true
		b.WriteString("\n")
		comment(opt.Doc)
		if !opt.IsSet(&given) {
			comment(opt.Example)
			continue
		}
		call, err := starCall(opt, given, root)
		if err != nil {
			return "", err
		}
		b.WriteString(call + "\n")
	}
	b.WriteString(`
# Overrides change a package the way a Nix overlay does (docs/starlark.md):
#
# def no_gds(pkg):
#     return {"unusable": {"linux-sbsa": "GPUDirect Storage is not deployed here"}}
#
# override("libcufile", no_gds)
`)
	return b.String(), nil
}

// starCall is the builtin call that sets opt to its value in o, the
// options the flags gave.
func starCall(opt config.Option, o config.Options, root string) (string, error) {
	list := func(xs []string) string {
		q := make([]string, len(xs))
		for i, x := range xs {
			q[i] = strconv.Quote(x)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	switch opt.Name {
	case "pins":
		var calls []string
		for _, p := range o.Pins {
			spec, release, ok := strings.Cut(p, "=")
			if !ok {
				return "", usagef("--pin %q: expected PRODUCT=VERSION or PRODUCT@CUDA=VERSION", p)
			}
			product, cuda, scoped := strings.Cut(spec, "@")
			if scoped {
				calls = append(calls, fmt.Sprintf("pin(%s, %s, cuda = %s)", strconv.Quote(product), strconv.Quote(release), strconv.Quote(cuda)))
			} else {
				calls = append(calls, fmt.Sprintf("pin(%s, %s)", strconv.Quote(product), strconv.Quote(release)))
			}
		}
		return strings.Join(calls, "\n"), nil
	case "plugins":
		var calls []string
		for _, p := range o.Plugins {
			i := strings.LastIndex(p, "=")
			if i < 0 {
				return "", usagef("--plugin %q: expected PATH=SHA256", p)
			}
			calls = append(calls, fmt.Sprintf("plugin(path = %s, sha256 = %s)", strconv.Quote(p[:i]), strconv.Quote(p[i+1:])))
		}
		return strings.Join(calls, "\n"), nil
	case "local_cuda":
		// A relative path in the file is relative to the workspace root;
		// the flag's is relative to where the command runs (Apply made it
		// absolute).
		path := *o.LocalCUDA
		if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
			path = filepath.ToSlash(rel)
		}
		if o.LocalComponents != nil {
			return fmt.Sprintf("local_cuda(%s, components = %s)", strconv.Quote(path), list(o.LocalComponents)), nil
		}
		return fmt.Sprintf("local_cuda(%s)", strconv.Quote(path)), nil
	}
	switch {
	case opt.List != nil:
		return fmt.Sprintf("%s(%s)", opt.Builtin, list(*opt.List(&o))), nil
	case opt.Bool != nil && **opt.Bool(&o):
		return opt.Builtin + "(True)", nil
	case opt.Bool != nil:
		return opt.Builtin + "(False)", nil
	case opt.String != nil:
		return fmt.Sprintf("%s(%s)", opt.Builtin, strconv.Quote(**opt.String(&o))), nil
	}
	return "", fmt.Errorf("option %s: no builtin call", opt.Name)
}
