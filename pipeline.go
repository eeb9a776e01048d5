// Package cudapkgs runs cudapkgs' stages as a library. Generate is the
// whole run in one call: load the manifests, evaluate the configuration
// (defaults, a Starlark file, the caller's layers), start the plugins and
// learn the products from them, build the package sets, fix them, apply
// the configuration's overrides, emit them, stamp and write the tree.
// Evaluate and Run.Sets stop at the sets, for callers that query them. The
// command line is one caller; a Go program is another (see the Example).
package cudapkgs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/core/warning"
	"github.com/cudapkgs/cudapkgs/starlark"
)

// Inputs are what a run is made from.
type Inputs struct {
	// Manifests is a folder laid out as <product>/redistrib_<version>.json.
	// When it is "", Sources are read instead.
	Manifests string
	// Sources are merged per (product, release), the first that has a
	// release serving it (a download cache before an embedded copy).
	Sources []ManifestSource
	// Lock, when not "", is a lock file the manifests are checked against as
	// they are read: a manifest it lists must have its sha256 and size, or
	// the run is refused (source.LockMismatchError). It must exist.
	Lock string
	// WorkspaceLock, when not "" and not Lock, is a second lock file the
	// manifests are checked against the same way: WithDefaults sets it to
	// the workspace's cudapkgs.lock when a Manifests folder has a lock of
	// its own, so that pointing Manifests at a folder (the download cache)
	// does not step around the workspace's pins. It must exist.
	WorkspaceLock string
	// Workspace is the root that load() labels resolve against.
	Workspace string
	// ConfigFile is the Starlark configuration; "" means cudapkgs.star at
	// the workspace root when there is one.
	ConfigFile string
	// Layers come after the defaults and the file, later ones winning (the
	// command line's flags).
	Layers []config.Layer
	// Builtins start the built-in plugins; the configuration's plugins are
	// added to them.
	Builtins []fixup.Spec
	// PluginTimeout bounds every plugin's start (process, handshake,
	// Describe) and every call; zero is the host's defaults.
	PluginTimeout time.Duration
	// Strict makes every warning an error.
	Strict bool
	// AllowPlatformKeys are manifest platform keys the caller expects
	// although this cudapkgs does not know them (NVIDIA's next platform):
	// they are ignored like any unknown key, without the warning, so Strict
	// still fails on any other. A key cudapkgs knows is accepted and has no
	// effect.
	AllowPlatformKeys []string
	// StarlarkMemory is the memory budget of each Starlark run, in bytes
	// (starlark.DefaultMaxMemory when zero).
	StarlarkMemory int64
	// StarlarkMemoryName is how the caller's users set StarlarkMemory
	// (--starlark-memory), named when a run exhausts it; "" names none.
	StarlarkMemoryName string
	// MaxManifestBytes bounds the bytes of manifests the run reads, every
	// source together (manifest.DefaultMaxTotal when zero): each manifest
	// is at most 64 MiB, but many of them could still fill the memory.
	MaxManifestBytes int64
	// MaxManifestBytesName is how the caller's users set MaxManifestBytes
	// (--max-manifest-bytes), named when a run reaches it; "" names none.
	MaxManifestBytesName string
	// Warn, when set, is told each distinct warning once, as it is found.
	Warn func(string)
}

// ManifestSource is one source of manifests: a folder, or a file system
// laid out the same way.
type ManifestSource struct {
	// Name says where a release came from (Collection.Origin).
	Name string
	// Dir is a folder; FS, when Dir is "", opens a file system.
	Dir string
	FS  func() (fs.FS, error)
	// Digest identifies FS's content in the stamp (Generate).
	Digest string
	// Optional: a folder that is missing or holds no manifest adds
	// nothing, and one that cannot be read is a warning.
	Optional bool
	// Pins, when set, is the lock of this source's own manifests (the
	// snapshot's manifests.lock). An earlier source's copy of a release it
	// pins must have the same bytes, unless a lock of the run pins that
	// copy (source.OverrideError): an edited cache file does not replace
	// the snapshot's unseen.
	Pins *source.Lock
}

// lockFiles are the lock files the run checks its manifests against.
func (in Inputs) lockFiles() []string {
	var out []string
	for _, p := range []string{in.Lock, in.WorkspaceLock} {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// collection loads the run's manifests: the one folder, or every source
// merged. locks are the run's lock files, read (opts.Check checks them).
func (in Inputs) collection(ctx context.Context, opts manifest.LoadOptions, locks []*source.Lock, warn func(string)) (*manifest.Collection, error) {
	if in.Manifests != "" || len(in.Sources) == 0 {
		return manifest.Load(ctx, in.Manifests, opts)
	}
	var named []manifest.Named
	for i, s := range in.Sources {
		var c *manifest.Collection
		var err error
		if s.Dir != "" {
			c, err = manifest.Load(ctx, s.Dir, in.overrideCheck(opts, locks, i))
		} else {
			var fsys fs.FS
			if fsys, err = s.FS(); err == nil {
				c, err = manifest.LoadFS(ctx, fsys, "<"+s.Name+">", manifest.LoadOptions{Budget: opts.Budget})
			}
		}
		var mismatch *source.LockMismatchError
		var override *source.OverrideError
		var over *manifest.BudgetError
		switch {
		case err == nil:
			named = append(named, manifest.Named{Name: s.Name, Collection: c})
		case errors.As(err, &mismatch), errors.As(err, &override):
			// A cached manifest its lock does not pin is refused, never
			// quietly replaced by the snapshot's copy.
			return nil, err
		case errors.As(err, &over):
			// The run's limit, not a fault of one source: never a
			// warning that leaves the source out.
			return nil, err
		case s.Optional && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, manifest.ErrNoManifests)):
		case s.Optional:
			warn(fmt.Sprintf("%s: %v; not used", s.Name, err))
		default:
			return nil, err
		}
	}
	if len(named) == 0 {
		return nil, fmt.Errorf("%w in %s", manifest.ErrNoManifests, sourceNames(in.Sources))
	}
	return manifest.Merge(named...)
}

// overrideCheck is opts for the sources[i]: beyond the run's locks, a
// manifest that no lock of the run pins must have the bytes that a later
// source's Pins give its release, if any: it would replace that source's
// copy in the merge (issue 24: a tampered cached release won over the
// snapshot's unseen).
func (in Inputs) overrideCheck(opts manifest.LoadOptions, locks []*source.Lock, i int) manifest.LoadOptions {
	var later []ManifestSource
	for _, s := range in.Sources[i+1:] {
		if s.Pins != nil {
			later = append(later, s)
		}
	}
	if len(later) == 0 {
		return opts
	}
	var paths []string
	for _, l := range locks {
		paths = append(paths, l.Path)
	}
	check := opts.Check
	opts.Check = func(file, key string, data []byte) error {
		if check != nil {
			if err := check(file, key, data); err != nil {
				return err
			}
		}
		for _, l := range locks {
			if _, ok := l.Manifests[key]; ok {
				return nil // pinned, and checked above
			}
		}
		got := source.EntryFor(data)
		for _, s := range later {
			if want, ok := s.Pins.Manifests[key]; ok && want != got {
				return &source.OverrideError{File: file, Key: key, Actual: got, Source: s.Name, PinnedBy: s.Pins.Path, Expected: want, Locks: paths}
			}
		}
		return nil
	}
	return opts
}

func sourceNames(srcs []ManifestSource) string {
	var ns []string
	for _, s := range srcs {
		if s.Dir != "" {
			ns = append(ns, s.Name+" "+s.Dir)
		} else {
			ns = append(ns, s.Name)
		}
	}
	return strings.Join(ns, ", ")
}

// ConfigPath is the configuration file the run reads, "" when none.
func (in Inputs) ConfigPath() string {
	if in.ConfigFile != "" {
		return in.ConfigFile
	}
	p := filepath.Join(in.Workspace, starlark.DefaultConfigFile)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// ConfigError is a configuration the command line (or another caller's
// layer) got wrong, as opposed to a file or the data.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// StarlarkError is a failure in the configuration file: syntax, a builtin's
// refusal, an override. Error gives file:line:col, message and backtrace.
type StarlarkError struct{ Err error }

func (e *StarlarkError) Error() string { return strings.TrimRight(starlark.FormatError(e.Err), "\n") }
func (e *StarlarkError) Unwrap() error { return e.Err }

// Run is one evaluated configuration with its plugins started. Close it.
type Run struct {
	Collection *manifest.Collection
	Config     *config.Config
	// Products are the plugins' products and the configuration's own, the
	// toolkit first.
	Products []pkgset.Product
	Toolkit  fixup.Toolkit
	Interp   *starlark.Interp
	// File is the configuration file; nil without one.
	File *starlark.File
	// SetBy names, per option of config.Table, the layer that set it last
	// ("" for none: the option has its default).
	SetBy map[string]string
	// Unfixed are the configuration's own products: no plugin fixes them.
	Unfixed []string
	// Warnings holds every warning of the run; RunWarnings, after Sets,
	// those that belong to no one package set.
	Warnings    *warning.List
	RunWarnings []string

	in   Inputs
	host *fixup.Host
	// merged blames errors about options found after the configuration
	// is built (an installed CUDA) on the layer that set them.
	merged config.Merged
	// budget counts every manifest byte the run reads, the configuration's
	// own products' too.
	budget *manifest.Budget
}

// Evaluate loads the manifests and the configuration, starts the plugins
// (their Describe answers say which products there are; a built-in
// described in process waits until Sets needs it) and validates the
// configuration against what the manifests offer. Zero fields of in mean
// what Inputs.WithDefaults says.
func Evaluate(ctx context.Context, in Inputs) (*Run, error) {
	in, err := in.WithDefaults()
	if err != nil {
		return nil, err
	}
	return evaluate(ctx, in)
}

// evaluate is Evaluate of inputs with their defaults applied.
func evaluate(ctx context.Context, in Inputs) (_ *Run, err error) {
	r := &Run{Warnings: &warning.List{}, in: in, budget: manifest.NewBudget(in.MaxManifestBytes, in.MaxManifestBytesName)}
	opts := manifest.LoadOptions{Budget: r.budget}
	var locks []*source.Lock
	for _, path := range in.lockFiles() {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("reading lock file: %w", err)
		}
		lock, err := source.ReadLockContext(ctx, path)
		if err != nil {
			return nil, err
		}
		locks = append(locks, lock)
	}
	if len(locks) > 0 {
		opts.Check = func(file, key string, data []byte) error {
			for _, l := range locks {
				if err := l.Check(file, key, data); err != nil {
					return err
				}
			}
			return nil
		}
	}
	coll, err := in.collection(ctx, opts, locks, r.warn)
	if err != nil {
		return nil, err
	}
	for _, w := range coll.Warnings() {
		if w.PlatformKey != "" && slices.Contains(in.AllowPlatformKeys, w.PlatformKey) {
			continue
		}
		r.warn(w.String())
	}
	merged, err := r.start(ctx)
	if err != nil {
		return nil, err
	}
	r.merged = merged
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	products, err := r.host.Products()
	if err != nil {
		return nil, err
	}
	r.Products, r.Toolkit = products.List, products.Toolkit
	if r.File != nil && len(r.File.Products()) > 0 {
		if coll, r.Products, err = addUserProducts(ctx, coll, r.Products, r.File.Products(), r.budget); err != nil {
			return nil, err
		}
	}
	// A product offered both ways is read from the source the user picked
	// (the sources option), so that its releases, pins and archives are
	// that source's only.
	picked, err := merged.Sources(pkgset.Sources(r.Products))
	if err != nil {
		return nil, r.blame(err)
	}
	if len(picked) > 0 {
		coll = coll.Keep(func(m *manifest.Manifest) bool {
			src, ok := picked[m.Product]
			return !ok || m.FromWheels() == (src == config.SourceWheels)
		})
	}
	avail := pkgset.Available(coll, r.Products)
	for _, name := range coll.Products() {
		if _, known := avail.Releases[name]; !known {
			r.warn(fmt.Sprintf("%s: product folder %q is not a known product (%s); ignored", filepath.Dir(coll.Releases(name)[0].File), name, productNames(r.Products)))
		}
	}
	if r.Config, err = merged.Build(avail); err != nil {
		return nil, r.blame(err)
	}
	// Facts past cudapkgs' tables: the newest entry serves, and says so
	// (Sets files these under their set).
	for _, v := range r.Config.CUDA() {
		for _, w := range gpu.Warnings(v) {
			r.warn(w)
		}
	}
	r.Collection = coll
	return r, nil
}

// start evaluates the configuration file and layers (no manifests needed)
// and starts the plugins they name with the built-ins; a built-in whose
// spec describes it in process (BuiltinSpecs) is started only when Sets
// has a batch of its products.
func (r *Run) start(ctx context.Context) (config.Merged, error) {
	in := r.in
	var err error
	if r.Interp, err = starlark.NewInterp(in.Workspace); err != nil {
		return config.Merged{}, err
	}
	r.Interp.MaxMemory, r.Interp.MaxMemoryName = in.StarlarkMemory, in.StarlarkMemoryName
	if path := in.ConfigPath(); path != "" {
		if r.File, err = r.Interp.EvalConfig(ctx, path); err != nil {
			return config.Merged{}, &StarlarkError{err}
		}
	}
	layers := []config.Layer{config.Defaults{}}
	if r.File != nil {
		layers = append(layers, r.File)
		for _, up := range r.File.Products() {
			r.Unfixed = append(r.Unfixed, up.Name)
		}
	}
	merged, err := config.Merge(append(layers, in.Layers...)...)
	if err != nil {
		return config.Merged{}, r.blame(err)
	}
	r.SetBy = merged.SetByAll()
	plugins, err := merged.Plugins()
	if err != nil {
		return config.Merged{}, r.blame(err)
	}
	specs := slices.Clone(in.Builtins)
	for _, p := range plugins {
		specs = append(specs, fixup.Spec{Name: filepath.Base(p.Path), Command: []string{p.Path}, SHA256: p.SHA256})
	}
	if r.host, err = fixup.Start(ctx, specs, fixup.Options{StartTimeout: in.PluginTimeout, CallTimeout: in.PluginTimeout, Unfixed: r.Unfixed}); err != nil {
		return config.Merged{}, err
	}
	return merged, nil
}

// Plugins starts the plugins a configuration names, with the built-ins
// (every one of them, although a run starts a built-in only for its
// products' packages: this shows that each starts and answers), describes
// them and stops them. It reads no manifest.
func Plugins(ctx context.Context, in Inputs) ([]fixup.Info, error) {
	in, err := in.WithDefaults()
	if err != nil {
		return nil, err
	}
	r := &Run{Warnings: &warning.List{}, in: in}
	if _, err := r.start(ctx); err != nil {
		return nil, err
	}
	defer r.Close()
	if err := r.host.StartAll(ctx); err != nil {
		return nil, err
	}
	return r.Plugins(), nil
}

// Products starts the plugins a configuration names, with the built-ins,
// and returns the products they describe, as Evaluate learns them (so
// `manifests fetch` knows a third party's product by its layout), then
// stops them; the built-ins described in process are not started. It reads
// no manifest.
func Products(ctx context.Context, in Inputs) (fixup.Products, error) {
	r := &Run{Warnings: &warning.List{}, in: in}
	if _, err := r.start(ctx); err != nil {
		return fixup.Products{}, err
	}
	defer r.Close()
	return r.host.Products()
}

// blame attributes a configuration error (config.Merged.Blame has named
// the layer, and the file's position when the file set it): the file's
// when the file set the option last; else the caller's layers'.
func (r *Run) blame(err error) error {
	var oe *config.OptionError
	if r.File != nil && errors.As(err, &oe) && oe.Layer == r.File.Name() {
		return err
	}
	var le *config.LayerError
	if r.File != nil && errors.As(err, &le) && le.Layer == r.File.Name() {
		return err
	}
	return &ConfigError{err}
}

func (r *Run) warn(msg string) {
	if r.Warnings.Add(msg) && r.in.Warn != nil {
		r.in.Warn(msg)
	}
}

// CheckWarnings is an error, with Strict, when there was any warning.
func (r *Run) CheckWarnings() error { return r.Warnings.Check(r.in.Strict) }

// Plugins describes the running plugins.
func (r *Run) Plugins() []fixup.Info { return r.host.Plugins() }

// Close stops the plugins.
func (r *Run) Close() {
	if r.host != nil {
		r.host.Close()
	}
}

// Sets builds the package sets, has the plugins fix them and applies the
// configuration's overrides. With Strict, any warning ends the run.
func (r *Run) Sets(ctx context.Context) ([]*pkgset.Set, error) {
	sets, err := pkgset.Build(ctx, r.Config, r.Collection, r.Products)
	if err != nil {
		return nil, err
	}
	if sets, err = r.host.Apply(ctx, r.Config, sets); err != nil {
		return nil, err
	}
	if r.File != nil {
		if sets, err = r.File.ApplyOverrides(ctx, sets, r.inSomeRelease); err != nil {
			return nil, &StarlarkError{err}
		}
	}
	ofOneSet := map[string]bool{}
	for _, s := range sets {
		pkgset.GenericWhereEmpty(s, r.Unfixed)
		// A set's own warnings name its CUDA version themselves.
		s.Warnings = append(gpu.Warnings(s.CUDA), s.Warnings...)
		for _, w := range s.Warnings {
			r.warn(w)
			ofOneSet[w] = true
		}
	}
	r.RunWarnings = nil
	for _, w := range r.Warnings.All() {
		if !ofOneSet[w] {
			r.RunWarnings = append(r.RunWarnings, w)
		}
	}
	if err := r.CheckWarnings(); err != nil {
		return nil, err
	}
	return sets, nil
}

// inSomeRelease: a release of one of the run's products has a package of
// that name, or one its versioned names give (cudnn_8_9), so a set of a CUDA
// version the configuration did not select may hold it.
func (r *Run) inSomeRelease(name string) bool {
	for _, p := range r.Products {
		for _, m := range r.Collection.Releases(p.Name) {
			for _, pkg := range m.Packages {
				if pkg.Name == name || pkg.Name+"_"+m.Release.Underscored(2) == name {
					return true
				}
			}
		}
	}
	return false
}

// addUserProducts reads the manifests of the products the configuration
// declares and adds them to the collection and the product list.
func addUserProducts(ctx context.Context, coll *manifest.Collection, products []pkgset.Product, ups []starlark.UserProduct, budget *manifest.Budget) (*manifest.Collection, []pkgset.Product, error) {
	var all []*manifest.Manifest
	for _, up := range ups {
		if len(coll.Releases(up.Name)) > 0 || slices.ContainsFunc(products, func(p pkgset.Product) bool { return p.Name == up.Name }) {
			return nil, nil, fmt.Errorf("%s: product(%q): there already is a product %s", up.Pos, up.Name, up.Name)
		}
		ms, err := manifest.LoadProductContext(ctx, up.Dir, up.Name, budget)
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

func productNames(ps []pkgset.Product) string {
	var ns []string
	for _, p := range ps {
		ns = append(ns, p.Name)
	}
	return strings.Join(ns, ", ")
}
