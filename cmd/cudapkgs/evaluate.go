package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/core/warning"
	"github.com/cudapkgs/cudapkgs/plugins/catalog"
	"github.com/cudapkgs/cudapkgs/starlark"
)

// configFlags are the command-line layer of the configuration. Only flags the
// user set are applied, so an unset flag never overrides an earlier layer.
type configFlags struct {
	cmd           *cobra.Command
	manifests     string
	cuda          []string
	capabilities  []string
	forwardCompat bool
	exec          string
	targets       []string
	pins          []string
	mirrors       []string
	plugins       []string
	pluginTimeout time.Duration
	config        string
	workspace     string
	localCUDA     string
	localComps    []string
	strict        bool
}

func addConfigFlags(cmd *cobra.Command) *configFlags {
	f := &configFlags{cmd: cmd}
	fl := cmd.Flags()
	fl.StringVar(&f.manifests, "manifests", "", "folder of manifests laid out as <product>/redistrib_<version>.json (default: the download cache, if it exists)")
	fl.StringSliceVar(&f.cuda, "cuda", nil, "CUDA versions: a release (12.4.1) or a prefix meaning its newest release (12.4, 12); default: every release in the manifests")
	fl.StringSliceVar(&f.capabilities, "capabilities", nil, "GPU compute capabilities (8.0,9.0a); default: each CUDA version's defaults")
	fl.BoolVar(&f.forwardCompat, "forward-compat", false, "embed PTX for the newest capability so newer GPUs can JIT it")
	fl.StringVar(&f.exec, "exec", "", "platform builds run on (default linux-x86_64)")
	fl.StringSliceVar(&f.targets, "platform", nil, "target platforms: linux-x86_64, linux-sbsa, linux-jetson (alias linux-aarch64), linux-ppc64le, windows-x86_64 (default: linux-x86_64,linux-sbsa,linux-jetson)")
	fl.StringArrayVar(&f.pins, "pin", nil, "pin a product's release: cudnn=8.9, or for one CUDA version cudnn@12.2=8.9 (repeatable)")
	fl.StringArrayVar(&f.mirrors, "mirror", nil, "base URL with NVIDIA's layout, tried before NVIDIA (repeatable, in order)")
	fl.StringArrayVar(&f.plugins, "plugin", nil, "third-party fixup plugin: PATH=SHA256 of its binary (repeatable); one that claims a built-in product replaces the built-in for it")
	fl.DurationVar(&f.pluginTimeout, "plugin-timeout", 30*time.Second, "deadline of every plugin call")
	fl.StringVar(&f.localCUDA, "local-cuda", "", "root of an installed CUDA to use instead of downloads for its version and platform: /usr (Debian's nvidia-cuda-toolkit), /usr/local/cuda, or a folder of unpacked archives (see docs/local-cuda.md)")
	fl.StringSliceVar(&f.localComps, "local-components", nil, "components to take from --local-cuda, each required (default: every component the install has, the toolkit's compiler and runtime required)")
	fl.StringVar(&f.config, "config", "", "Starlark configuration file (default: cudapkgs.star at the workspace root, when there is one); flags win over it")
	fl.BoolVar(&f.strict, "strict", false, "treat every warning (a manifest shape this cudapkgs does not know, a refused manifest, an unknown product folder, facts past its tables) as an error")
	fl.StringVar(&f.workspace, "workspace", "", "workspace root for load() labels and the default configuration (default: the nearest folder up from here with MODULE.bazel, WORKSPACE, WORKSPACE.bazel or cudapkgs.star, else here)")
	return f
}

func (f *configFlags) Name() string { return "flags" }

func (f *configFlags) Apply(o *config.Options) error {
	ch := f.cmd.Flags().Changed
	if ch("cuda") {
		o.CUDA = f.cuda
	}
	if ch("capabilities") {
		o.Capabilities = f.capabilities
	}
	if ch("forward-compat") {
		v := f.forwardCompat
		o.ForwardCompat = &v
	}
	if ch("exec") {
		v := f.exec
		o.Exec = &v
	}
	if ch("platform") {
		o.Targets = f.targets
	}
	if ch("local-cuda") {
		v := f.localCUDA
		if v != "" {
			abs, err := filepath.Abs(v)
			if err != nil {
				return fmt.Errorf("--local-cuda %s: %w", v, err)
			}
			v = abs
		}
		o.LocalCUDA = &v
	}
	if ch("local-components") {
		o.LocalComponents = f.localComps
	}
	if ch("pin") {
		o.Pins = append(o.Pins, f.pins...)
	}
	if ch("mirror") {
		o.Mirrors = f.mirrors
	}
	if ch("plugin") {
		o.Plugins = f.plugins
	}
	return nil
}

// evaluated is what query and eval work from: one collection, one frozen
// configuration.
type evaluated struct {
	coll          *manifest.Collection
	cfg           *config.Config
	products      []pkgset.Product
	pluginTimeout time.Duration
	interp        *starlark.Interp
	file          *starlark.File // nil without a configuration file
	unfixed       []string       // the configuration's own products: no plugin needed
	warnings      *warning.List  // printed once each as they are added
	runWarnings   []string       // those not of one set (a.sets fills it)
	strict        bool
}

// warn records a warning and prints it the first time it is seen.
func (a *app) warn(e *evaluated, msg string) {
	if e.warnings.Add(msg) {
		fmt.Fprintf(a.stderr, "warning: %s\n", msg)
	}
}

func (a *app) evaluate(ctx context.Context, f *configFlags) (*evaluated, error) {
	dir := f.manifests
	if dir == "" {
		dir = defaultManifestsDir()
		if dir == "" {
			return nil, usagef("--manifests is required: no download cache found (run `cudapkgs manifests fetch` or give a folder)")
		}
	}
	coll, err := manifest.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	e := &evaluated{warnings: &warning.List{}, strict: f.strict}
	for _, w := range coll.Warnings() {
		a.warn(e, w.String())
	}
	in, file, err := f.starlarkConfig(ctx)
	if err != nil {
		return nil, err
	}
	products := catalog.Products()
	var unfixed []string
	if file != nil && len(file.Products()) > 0 {
		if coll, products, err = addUserProducts(coll, products, file.Products()); err != nil {
			return nil, err
		}
		for _, up := range file.Products() {
			unfixed = append(unfixed, up.Name)
		}
	}
	avail := pkgset.Available(coll, products)
	for _, name := range coll.Products() {
		if _, known := avail.Releases[name]; !known {
			a.warn(e, fmt.Sprintf("%s: product folder %q is not a known product (%s); ignored", filepath.Join(dir, name), name, productNames(products)))
		}
	}
	layers := []config.Layer{config.Defaults{}}
	if file != nil {
		layers = append(layers, file)
	}
	cfg, err := config.Evaluate(avail, append(layers, f)...)
	if err != nil {
		if file != nil && !f.setByFlag(err) {
			return nil, file.Explain(err)
		}
		return nil, usageError{err}
	}
	// Facts past cudapkgs' tables: the newest entry serves, and says so
	// (eval builds no sets; a.sets files these under their set).
	for _, v := range cfg.CUDA() {
		for _, w := range gpu.Warnings(v) {
			a.warn(e, w)
		}
	}
	if f.pluginTimeout <= 0 {
		return nil, usagef("--plugin-timeout %v: expected a positive duration such as 30s", f.pluginTimeout)
	}
	e.coll, e.cfg, e.products, e.pluginTimeout, e.interp, e.file, e.unfixed = coll, cfg, products, f.pluginTimeout, in, file, unfixed
	return e, nil
}

// sets builds the package sets and runs the fixup plugins over them.
func (a *app) sets(ctx context.Context, e *evaluated) ([]*pkgset.Set, error) {
	sets, err := pkgset.Build(ctx, e.cfg, e.coll, e.products)
	if err != nil {
		return nil, err
	}
	h, err := a.startPlugins(ctx, e.cfg, fixup.Options{CallTimeout: e.pluginTimeout, Unfixed: e.unfixed})
	if err != nil {
		return nil, err
	}
	defer h.Close()
	if err := h.Apply(ctx, e.cfg, sets); err != nil {
		return nil, err
	}
	if e.file != nil {
		if err := e.file.ApplyOverrides(ctx, sets); err != nil {
			return nil, starlarkError{err}
		}
	}
	ofOneSet := map[string]bool{}
	for _, s := range sets {
		pkgset.GenericWhereEmpty(s, e.unfixed)
		// A set's own warnings name its CUDA version themselves.
		s.Warnings = append(gpu.Warnings(s.CUDA), s.Warnings...)
		for _, w := range s.Warnings {
			a.warn(e, w)
			ofOneSet[w] = true
		}
	}
	e.runWarnings = nil
	for _, w := range e.warnings.All() {
		if !ofOneSet[w] {
			e.runWarnings = append(e.runWarnings, w)
		}
	}
	if err := e.warnings.Check(e.strict); err != nil {
		return nil, err
	}
	return sets, nil
}

// addUserProducts reads the manifests of the products the configuration
// declares and adds them to the collection and the product list.
func addUserProducts(coll *manifest.Collection, products []pkgset.Product, ups []starlark.UserProduct) (*manifest.Collection, []pkgset.Product, error) {
	var all []*manifest.Manifest
	for _, up := range ups {
		if len(coll.Releases(up.Name)) > 0 || slices.ContainsFunc(products, func(p pkgset.Product) bool { return p.Name == up.Name }) {
			return nil, nil, fmt.Errorf("%s: product(%q): there already is a product %s", up.Pos, up.Name, up.Name)
		}
		ms, err := manifest.LoadProduct(up.Dir, up.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: product(%q): %w", up.Pos, up.Name, err)
		}
		all = append(all, ms...)
		var flat []version.Version
		for _, c := range up.CUDA {
			flat = append(flat, version.MustParse(c)) // checked by product()
		}
		p := pkgset.Product{Name: up.Name, Base: up.Base, Path: up.Path}
		if len(flat) > 0 {
			p.FlatCUDA = func(version.Version) []version.Version { return flat }
		}
		products = append(products, p)
	}
	c, err := coll.With(all)
	return c, products, err
}

// starlarkError prints a Starlark failure as file:line:col, message and
// backtrace.
type starlarkError struct{ err error }

func (e starlarkError) Error() string { return strings.TrimRight(starlark.FormatError(e.err), "\n") }
func (e starlarkError) Unwrap() error { return e.err }

// flagFor names the flag that sets a configuration option.
func flagFor(option string) (string, bool) {
	switch option {
	case "cuda", "capabilities", "exec":
		return option, true
	case "forward_compat":
		return "forward-compat", true
	case "targets":
		return "platform", true
	case "pins":
		return "pin", true
	case "mirrors":
		return "mirror", true
	case "plugins":
		return "plugin", true
	}
	return "", false
}

// setByFlag reports whether an "option X: ..." error is about an option a
// flag set: flags win, so the file is not to blame.
func (f *configFlags) setByFlag(err error) bool {
	rest, ok := strings.CutPrefix(err.Error(), "option ")
	if !ok {
		return false
	}
	opt, _, _ := strings.Cut(rest, ":")
	flag, ok := flagFor(opt)
	return ok && f.cmd.Flags().Changed(flag)
}

// workspaceRoot is --workspace, or the nearest folder up from here that
// looks like a workspace.
func (f *configFlags) workspaceRoot() (string, error) {
	if f.workspace != "" {
		return filepath.Abs(f.workspace)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		for _, marker := range []string{"MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel", starlark.DefaultConfigFile} {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return dir, nil
			}
		}
		if filepath.Dir(dir) == dir {
			return wd, nil
		}
	}
}

// starlarkConfig evaluates the configuration file, if there is one: --config,
// else cudapkgs.star at the workspace root.
func (f *configFlags) starlarkConfig(ctx context.Context) (*starlark.Interp, *starlark.File, error) {
	root, err := f.workspaceRoot()
	if err != nil {
		return nil, nil, err
	}
	in, err := starlark.NewInterp(root)
	if err != nil {
		return nil, nil, err
	}
	path := f.config
	if path == "" {
		path = filepath.Join(root, starlark.DefaultConfigFile)
		if _, err := os.Stat(path); err != nil {
			return in, nil, nil
		}
	}
	file, err := in.EvalConfig(ctx, path)
	if err != nil {
		return nil, nil, starlarkError{err}
	}
	return in, file, nil
}

func productNames(ps []pkgset.Product) string {
	var ns []string
	for _, p := range ps {
		ns = append(ns, p.Name)
	}
	return strings.Join(ns, ", ")
}

// defaultManifestsDir is the download cache when it holds manifests.
func defaultManifestsDir() string {
	dir, err := source.DefaultCacheDir()
	if err != nil {
		return ""
	}
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir
	}
	return ""
}
