package pkgset

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Set is the packages of one CUDA version.
type Set struct {
	CUDA version.Version
	// Releases is the release chosen per product for this CUDA version
	// (the toolkit's is CUDA itself); a product with none is in NoRelease.
	Releases  map[string]version.Version
	NoRelease map[string]string
	// Packages sorted by name.
	Packages []*Package
	// Warnings are this set's tolerated oddities (a package no plugin knows
	// served from the conventional layout, facts extrapolated past the
	// tables), deduplicated by the caller.
	Warnings []string
	// Aliases map an old package name to the package that took it over in
	// this set, as the plugins declare (see sdk.Rename).
	Aliases map[string]string
}

// Package is one package of a set under one name. Versioned names
// (libfoo_8_9) are Packages of their own whose Alias says so.
type Package struct {
	Name    string
	Product string
	// Manifest is the package's name in its manifest; differs from Name for
	// versioned names.
	Manifest    string
	Release     version.Version // the product release (manifest) it comes from
	Version     version.Version // the package's own version
	DisplayName string
	License     string
	// Platforms maps a target platform name to the archive that serves it.
	Platforms map[string]Archive
	// Unavailable maps a target platform name to why nothing serves it, or
	// why what serves it cannot be used (the plugins' reasons; the archive
	// then stays in Platforms, so a platform can have both).
	Unavailable map[string][]string
	// Filled by the fixup stage (nil before it):
	// Files per target platform, by what they are and which machine they
	// serve; Deps resolved to names in this set; Role summarises the files.
	Files map[string][]File
	Deps  []Dep
	Role  file.Role
	// StaticLinkopts are the system libraries the static link set needs.
	StaticLinkopts []string
	// Patches per target platform: edits made to the archive when it is
	// fetched (a plugin's fixes of NVIDIA's files).
	Patches map[string][]Patch
	// Served maps a target platform to the older release that serves this
	// default name there (see ChooseDefaults); nil when the chosen release
	// serves every platform it can.
	Served map[string]Served
	// Tried maps a target platform where this default name cannot be used
	// to the older releases tried in its place, newest first, each with why
	// it was ruled out (see ChooseDefaults): the whole chain, which the
	// reasons only sum up.
	Tried map[string][]Tried
	// Generic are the platforms where no plugin knows the package: it is
	// served there from the archive's conventional layout (MarkGeneric).
	Generic map[string]bool
	// Judged maps a target platform that builds its default capabilities
	// to the defaults the package supports and was judged against, where
	// that is fewer than all of them (filled by the fixup stage). Binaries
	// still build for every default.
	Judged map[string][]string
	// Broken says the manifest entry itself could not be read (its
	// Problems); such a package has no archive anywhere, and no plugin is
	// asked about it.
	Broken bool
}

// File is one output of a package on a platform, relative to the archive
// root: the file model every stage shares.
type File = file.File

// Patch is a named set of text edits made to an archive when it is fetched.
type Patch struct {
	Name, Why string
	Edits     []Edit
}

// Edit replaces Old, which occurs exactly once, by New in the file Path.
type Edit struct {
	Path, Old, New string
}

// Dep is an edge to another package of the same set.
type Dep struct {
	Name    string // the package's name in this set
	Runtime bool   // loaded at run time rather than linked
	Static  bool   // of the static link set only
	Headers bool   // the other package's headers only
	Merge   bool   // the other package's archive is unpacked into this one's
	// Release is the release prefix the edge asked for ("9.12": a samples
	// package's own library), "" for any.
	Release   string
	Since     string // CUDA versions the edge holds for, as the plugin says
	Until     string
	Platforms []string // only these target platforms; empty for all
}

// Archive is a resolved download for one platform.
type Archive struct {
	Key          string // the manifest key that serves the platform
	Variant      string // "cuda12", or "" for unsplit archives
	URLs         []string
	RelativePath string
	// MirrorPath is what a mirror base URL is followed by: the product's
	// path and RelativePath, NVIDIA's layout below the base.
	MirrorPath  string
	SHA256      string
	Size        int64
	StripPrefix string
	// Type is the archive's format when its name does not say it to a
	// downloader ("zip" for a .whl), "" otherwise.
	Type string
}

// Build makes a Set for every configured CUDA version, in parallel, from one
// shared configuration and manifest collection (both read-only here). The
// products are as the fixup host gives them (fixup.Products), which holds
// the rule that exactly one is the toolkit; Build takes the first it finds.
func Build(ctx context.Context, cfg *config.Config, coll *manifest.Collection, products []Product) ([]*Set, error) {
	i := slices.IndexFunc(products, func(p Product) bool { return p.Toolkit })
	if i < 0 {
		return nil, fmt.Errorf("no toolkit among the products: they come from fixup.Products, which gives exactly one")
	}
	toolkit := &products[i]
	cudas := cfg.CUDA()
	sets := make([]*Set, len(cudas))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i, cuda := range cudas {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			s, err := buildSet(cfg, coll, products, *toolkit, cuda)
			if err != nil {
				return fmt.Errorf("CUDA %s: %w", cuda, err)
			}
			sets[i] = s
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return sets, nil
}

type builder struct {
	cfg  *config.Config
	cuda version.Version
	set  *Set
	seen map[string]string // package name -> product, to catch collisions
	// Read from cfg once per set: they are the same for every package.
	targets []platform.Platform
	mirrors []string
	keys    []targetKeys // parallel to targets
}

// targetKeys is the manifest keys that serve a target, or why none can.
type targetKeys struct {
	keys []string
	err  error
}

func buildSet(cfg *config.Config, coll *manifest.Collection, products []Product, toolkit Product, cuda version.Version) (*Set, error) {
	b := &builder{cfg: cfg, cuda: cuda, seen: map[string]string{},
		set:     &Set{CUDA: cuda, Releases: map[string]version.Version{}, NoRelease: map[string]string{}},
		targets: cfg.Targets(), mirrors: cfg.Mirrors()}
	for _, t := range b.targets {
		keys, err := platform.Keys(t, cuda, cfg.CapabilityNames(cuda, t))
		b.keys = append(b.keys, targetKeys{keys, err})
	}
	var tk *manifest.Manifest
	for _, m := range coll.Releases(toolkit.Name) {
		if m.Release.Equal(cuda) {
			tk = m
		}
	}
	if tk == nil {
		return nil, fmt.Errorf("no %s manifest for release %s", toolkit.Name, cuda)
	}
	b.set.Releases[toolkit.Name] = tk.Release
	for i := range tk.Packages {
		if err := b.add(toolkit, tk, &tk.Packages[i], tk.Packages[i].Name); err != nil {
			return nil, err
		}
	}
	for _, p := range products {
		if p.Toolkit {
			continue
		}
		if err := b.addProduct(p, coll.Releases(p.Name)); err != nil {
			return nil, err
		}
	}
	sort.Slice(b.set.Packages, func(i, j int) bool { return b.set.Packages[i].Name < b.set.Packages[j].Name })
	return b.set, nil
}

// serves reports whether a release of a product can be used with the CUDA
// version at all (on some platform). A package that is not split by variant
// inside a release whose other packages are (samples shipped as sources only)
// serves whatever its release serves.
func (b *builder) serves(p Product, m *manifest.Manifest) bool {
	for i := range m.Packages {
		pkg := &m.Packages[i]
		if pkg.HasVariants() {
			for _, a := range pkg.Archives {
				if v, ok := a.VariantVersion(); ok && b.cuda.HasPrefix(v) {
					return true
				}
			}
			continue
		}
		if p.NoCUDA {
			return true
		}
		if p.FlatCUDA != nil {
			for _, v := range p.FlatCUDA(m.Release) {
				if b.cuda.HasPrefix(v) {
					return true
				}
			}
		}
	}
	return false
}

// addProduct chooses the release of a product for this CUDA version: the
// pinned one, else the newest that serves it on one of the targets; and adds
// versioned names (libfoo_8_9) for the newest release of every major.minor
// that serves it.
func (b *builder) addProduct(p Product, releases []*manifest.Manifest) error {
	var compatible []*manifest.Manifest
	for _, m := range releases {
		if b.serves(p, m) {
			compatible = append(compatible, m)
		}
	}
	candidates := compatible
	pin, pinned := b.cfg.Pin(p.Name, b.cuda)
	if pinned {
		candidates = nil
		for _, m := range compatible {
			if m.Release.HasPrefix(pin.Version) {
				candidates = append(candidates, m)
			}
		}
	}
	// Versioned names: newest of each major.minor, older groups first.
	groups := map[string]*manifest.Manifest{}
	for _, m := range compatible {
		groups[m.Release.MajorMinor().String()] = m // ascending: last wins
	}
	versioned := sortedGroups(groups)
	var chosen *manifest.Manifest
	for i := len(candidates) - 1; i >= 0 && chosen == nil; i-- {
		if b.coversATarget(p, candidates[i]) {
			chosen = candidates[i]
		}
	}
	if chosen == nil && len(candidates) > 0 {
		chosen = candidates[len(candidates)-1]
	}
	if chosen == nil {
		reason := b.noRelease(p, releases, pin, pinned)
		b.set.NoRelease[p.Name] = reason
		if len(releases) > 0 {
			newest := releases[len(releases)-1]
			for i := range newest.Packages {
				b.addMissing(p, &newest.Packages[i], reason)
			}
		}
	} else {
		b.set.Releases[p.Name] = chosen.Release
		for i := range chosen.Packages {
			pkg := &chosen.Packages[i]
			if err := b.add(p, chosen, pkg, pkg.Name); err != nil {
				return err
			}
		}
	}
	for _, mm := range versioned {
		for i := range mm.Packages {
			pkg := &mm.Packages[i]
			if err := b.add(p, mm, pkg, pkg.Name+"_"+mm.Release.Underscored(2)); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedGroups(groups map[string]*manifest.Manifest) []*manifest.Manifest {
	var ms []*manifest.Manifest
	for _, m := range groups {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Release.Less(ms[j].Release) })
	return ms
}

func (b *builder) noRelease(p Product, releases []*manifest.Manifest, pin config.Pin, pinned bool) string {
	if len(releases) == 0 {
		return fmt.Sprintf("the manifests hold no %s release", p.Name)
	}
	if pinned {
		return fmt.Sprintf("%s is pinned to %s (%s), and no %s %s release serves CUDA %s", p.Name, pin.Version, pin, p.Name, pin.Version, b.cuda)
	}
	return fmt.Sprintf("no %s release in the manifests serves CUDA %s (newest: %s, for %s)", p.Name, b.cuda, releases[len(releases)-1].Release, servedCUDA(p, releases[len(releases)-1]))
}

// servedCUDA describes which CUDA versions a release serves, for messages.
func servedCUDA(p Product, m *manifest.Manifest) string {
	seen := map[string]bool{}
	var vs []string
	for _, pkg := range m.Packages {
		for _, a := range pkg.Archives {
			if v, ok := a.VariantVersion(); ok && !seen[v.String()] {
				seen[v.String()] = true
				vs = append(vs, "CUDA "+v.String())
			}
		}
	}
	if len(vs) == 0 && p.NoCUDA {
		return "every CUDA version (it needs no CUDA)"
	}
	if len(vs) == 0 && p.FlatCUDA != nil {
		for _, v := range p.FlatCUDA(m.Release) {
			vs = append(vs, "CUDA "+v.String())
		}
	}
	if len(vs) == 0 {
		return "no known CUDA version"
	}
	sort.Strings(vs)
	return strings.Join(vs, ", ")
}

func (b *builder) coversATarget(p Product, m *manifest.Manifest) bool {
	for i := range m.Packages {
		for ti := range b.targets {
			if _, _, err := b.resolve(p, m, &m.Packages[i], ti); err == nil {
				return true
			}
		}
	}
	return false
}

// add puts one package under name into the set, resolving every target.
func (b *builder) add(p Product, m *manifest.Manifest, pkg *manifest.Package, name string) error {
	if prev, dup := b.seen[name]; dup {
		return fmt.Errorf("package name %s comes from both %s and %s", name, prev, p.Name)
	}
	b.seen[name] = p.Name
	out := &Package{Name: name, Product: p.Name, Manifest: pkg.Name, Release: m.Release, Version: pkg.Version,
		DisplayName: pkg.DisplayName, License: pkg.License,
		Platforms: map[string]Archive{}, Unavailable: map[string][]string{}}
	if len(pkg.Problems) > 0 {
		out.Broken = true
		for _, t := range b.targets {
			for _, pr := range pkg.Problems {
				out.Unavailable[t.Name()] = append(out.Unavailable[t.Name()], fmt.Sprintf("the manifest entry cannot be read (%s: %s); a newer cudapkgs may read it", m.File, pr))
			}
		}
		b.set.Packages = append(b.set.Packages, out)
		return nil
	}
	for ti, t := range b.targets {
		a, ok, err := b.resolve(p, m, pkg, ti)
		if err != nil {
			// No hint at an older release here: the plugins have not
			// judged it yet. ChooseDefaults serves the default name from
			// one they find usable, or lists every one it tried.
			out.Unavailable[t.Name()] = []string{err.Error()}
			continue
		}
		if ok {
			out.Platforms[t.Name()] = a
		}
	}
	b.set.Packages = append(b.set.Packages, out)
	return nil
}

// addMissing records a package of a product that has no release for this
// CUDA version, so it keeps its place with the reason.
func (b *builder) addMissing(p Product, pkg *manifest.Package, reason string) {
	if _, dup := b.seen[pkg.Name]; dup {
		return
	}
	b.seen[pkg.Name] = p.Name
	out := &Package{Name: pkg.Name, Product: p.Name, Manifest: pkg.Name, DisplayName: pkg.DisplayName, License: pkg.License,
		Platforms: map[string]Archive{}, Unavailable: map[string][]string{}}
	for _, t := range b.targets {
		out.Unavailable[t.Name()] = []string{reason}
	}
	b.set.Packages = append(b.set.Packages, out)
}

// resolve finds the archive of pkg that serves target number ti for this
// CUDA version, or says why there is none.
func (b *builder) resolve(p Product, m *manifest.Manifest, pkg *manifest.Package, ti int) (Archive, bool, error) {
	t, keys, err := b.targets[ti], b.keys[ti].keys, b.keys[ti].err
	if err != nil {
		return Archive{}, false, err
	}
	variants := pkg.HasVariants()
	for _, key := range keys {
		variant := ""
		if variants {
			v, ok := pkg.VariantFor(key, b.cuda)
			if !ok {
				continue
			}
			variant = v
		} else if !p.Toolkit && !b.serves(p, m) {
			return Archive{}, false, fmt.Errorf("%s %s does not serve CUDA %s (its archives hold %s)", pkg.Name, pkg.Version, b.cuda, servedCUDA(p, m))
		}
		a, ok := pkg.Archive(key, variant)
		if !ok {
			continue
		}
		out := Archive{Key: key, Variant: variant, URLs: p.URLs(b.mirrors, a.RelativePath), RelativePath: a.RelativePath,
			MirrorPath: p.MirrorPath(a.RelativePath),
			SHA256:     a.SHA256, Size: a.Size, StripPrefix: p.stripPrefix(pkg, a), Type: ArchiveType(a.RelativePath)}
		if a.URL != "" {
			// A file the manifest locates itself (a wheel on a package
			// index): NVIDIA's layout below a mirror does not hold it.
			out.URLs, out.MirrorPath = []string{a.URL}, ""
		}
		return out, true, nil
	}
	return Archive{}, false, b.missing(p, m, pkg, t, keys[0])
}

// missing explains why pkg has no archive under key for this CUDA version.
func (b *builder) missing(p Product, m *manifest.Manifest, pkg *manifest.Package, t platform.Platform, key string) error {
	err := b.missingArchive(p, m, pkg, key)
	if t.Jetson() && key != manifest.LinuxAarch64 {
		return fmt.Errorf("%w (CUDA %s serves %s through the %s archives)", err, b.cuda, t, key)
	}
	return err
}

func (b *builder) missingArchive(p Product, m *manifest.Manifest, pkg *manifest.Package, key string) error {
	if p.Toolkit {
		return fmt.Errorf("%s %s has no %s archive in CUDA %s", pkg.Name, pkg.Version, key, m.Release)
	}
	if pkg.HasVariants() {
		var vs []string
		for _, a := range pkg.Archives {
			if a.Platform == key {
				vs = append(vs, a.Variant)
			}
		}
		if len(vs) > 0 {
			return fmt.Errorf("%s %s has no %s archive for CUDA %s (%s has %s)", pkg.Name, pkg.Version, key, b.cuda, key, strings.Join(vs, ", "))
		}
	}
	return fmt.Errorf("%s %s has no %s archive", pkg.Name, pkg.Version, key)
}

// Package returns the package with the given name.
func (s *Set) Package(name string) (*Package, bool) {
	i := sort.Search(len(s.Packages), func(i int) bool { return s.Packages[i].Name >= name })
	if i < len(s.Packages) && s.Packages[i].Name == name {
		return s.Packages[i], true
	}
	return nil, false
}
