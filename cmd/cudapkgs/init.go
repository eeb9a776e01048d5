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

// starTemplate is the commented cudapkgs.star init writes: every
// configuration builtin, set to the value of its flag when the flag was
// given, else shown commented out with an example.
func starTemplate(f *configFlags, root, out string) (string, error) {
	set := map[string]string{} // option name -> the call(s), when its flag was given
	for _, opt := range config.Table() {
		if !f.cmd.Flags().Changed(opt.Flag) {
			continue
		}
		var v any
		switch p := f.options[opt.Name].(type) {
		case *[]string:
			v = *p
		case *bool:
			v = *p
		case *string:
			v = *p
		}
		call, err := starCall(opt, v, f, root)
		if err != nil {
			return "", err
		}
		set[opt.Name] = call
	}
	regen := "cudapkgs generate --out " + defaultInitOut
	if rel, err := filepath.Rel(root, out); err == nil && !strings.HasPrefix(rel, "..") {
		regen = "cudapkgs generate --out " + filepath.ToSlash(rel)
	} else {
		regen = "cudapkgs generate --out " + filepath.ToSlash(out)
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
	section := func(comment, name, example string) {
		b.WriteString("\n")
		for _, line := range strings.Split(comment, "\n") {
			b.WriteString("# " + line + "\n")
		}
		if call, ok := set[name]; ok {
			b.WriteString(call + "\n")
			return
		}
		for _, line := range strings.Split(example, "\n") {
			b.WriteString("# " + line + "\n")
		}
	}
	section("CUDA versions: releases, or prefixes meaning their newest release.\nDefault: every CUDA release in the manifests.",
		"cuda", `cuda_versions(["12.4.1", "12.6"])`)
	section("GPU compute capabilities to build for. Default: each CUDA version's defaults.",
		"capabilities", `capabilities(["8.0", "9.0a"])`)
	section("Embed PTX for the newest capability, so that newer GPUs can compile it at run time.",
		"forward_compat", `forward_compat(True)`)
	section("The platform builds run on. Default: linux-x86_64.",
		"exec", `exec_platform("linux-x86_64")`)
	section("The platforms to build for: linux-x86_64, linux-sbsa (server ARM), linux-jetson,\nlinux-ppc64le, windows-x86_64, windows-arm64 (Windows: no archive usable yet). Default: linux-x86_64, linux-sbsa, linux-jetson.",
		"targets", `target_platforms(["linux-x86_64", "linux-sbsa", "linux-jetson"])`)
	section("Which release of a product serves the default names (@cuda//:cudnn), for all CUDA\nversions or those with a prefix. Default: the newest compatible release.",
		"pins", "pin(\"cudnn\", \"8.9\")\npin(\"cudnn\", \"9\", cuda = \"12.6\")")
	section("Mirrors with NVIDIA's layout, tried before NVIDIA's servers.",
		"mirrors", `mirrors(["https://mirror.example.com/nvidia"])`)
	section("An installed CUDA used instead of downloads for its version (docs/local-cuda.md).",
		"local_cuda", `local_cuda("/usr/local/cuda")`)
	section("A fixup plugin of your own and its program's sha256 (docs/plugin-authoring.md).",
		"plugins", `plugin(path = "tools/fixup-acme", sha256 = "<sha256 of the program>")`)
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

// starCall is the builtin call that sets opt to v, the value its flag gave.
func starCall(opt config.Option, v any, f *configFlags, root string) (string, error) {
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
		for _, p := range v.([]string) {
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
		for _, p := range v.([]string) {
			i := strings.LastIndex(p, "=")
			if i < 0 {
				return "", usagef("--plugin %q: expected PATH=SHA256", p)
			}
			calls = append(calls, fmt.Sprintf("plugin(path = %s, sha256 = %s)", strconv.Quote(p[:i]), strconv.Quote(p[i+1:])))
		}
		return strings.Join(calls, "\n"), nil
	case "local_cuda":
		// A relative path in the file is relative to the workspace root; the
		// flag's is relative to where the command runs.
		path, err := filepath.Abs(v.(string))
		if err != nil {
			return "", err
		}
		if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
			path = filepath.ToSlash(rel)
		}
		if f.cmd.Flags().Changed("local-components") {
			return fmt.Sprintf("local_cuda(%s, components = %s)", strconv.Quote(path), list(*f.options["local_components"].(*[]string))), nil
		}
		return fmt.Sprintf("local_cuda(%s)", strconv.Quote(path)), nil
	case "local_components":
		return "", nil // with local_cuda
	}
	switch x := v.(type) {
	case []string:
		return fmt.Sprintf("%s(%s)", opt.Builtin, list(x)), nil
	case bool:
		if x {
			return opt.Builtin + "(True)", nil
		}
		return opt.Builtin + "(False)", nil
	case string:
		return fmt.Sprintf("%s(%s)", opt.Builtin, strconv.Quote(x)), nil
	}
	return "", fmt.Errorf("option %s: no builtin call for %T", opt.Name, v)
}
