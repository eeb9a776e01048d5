package sdk

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Product declares a product: where NVIDIA publishes it, the platforms it
// serves, and per package its files, edges and capability floors. Fixer
// turns it into the plugin, as a go/analysis pass is a value: the skeleton
// every product shares (answering every package, the generic answer for a
// package NVIDIA adds later, the releases of a major nobody has described,
// edges only to packages the set has, capability judgement) is the SDK's,
// and a product with unusual rules adds Amend on top.
type Product struct {
	// Name is the product's name and its folder in a manifests tree
	// ("cudss"); the plugin is named after it unless Plugin says otherwise.
	Name   string
	Plugin string
	// Title names the product in messages ("cuDSS").
	Title string
	// Base and Path locate manifests and archives (ProductFacts); Base is
	// NVIDIABase when empty.
	Base, Path string
	// Unlisted, StripPrefix and FlatCUDA are the ProductFacts of the same
	// names.
	Unlisted    bool
	StripPrefix string
	FlatCUDA    []FlatCUDA
	// Toolkit, Toolchain, LocalHints and LocalIdentify are the toolkit's
	// ProductFacts, and Renames the Description's: the CUDA toolkit's
	// plugin is a declaration too.
	Toolkit       bool
	Toolchain     *Toolchain
	LocalHints    []LocalHint
	LocalIdentify []string
	Renames       []Rename
	// NoCUDA marks a product that needs no CUDA at all (NVPL): batches may
	// then carry no CUDA version, and Call.CUDA is zero.
	NoCUDA bool
	// Wheels are the Python package index projects the product's packages
	// also come from (ProductFacts.Wheels). A product with Wheels and no
	// Path comes from wheels only (NCCL); with both, the user picks the
	// source per product (docs/sources.md).
	Wheels []WheelProject
	// Platforms are the target platforms NVIDIA serves and the declaration
	// describes. The host marks an archive for any other platform unusable,
	// in the same words for every product (Windows archives, today).
	Platforms []string
	// Refuse are reasons for every package, NVIDIA's next included, judged
	// only where it has an archive and said after the package's own. The
	// toolkit declares no Platforms and refuses Windows itself, so that its
	// generated reasons keep their order.
	Refuse []Reason
	// Majors are the release majors the declaration describes; a release of
	// another major is unusable on every platform, with a reason, rather
	// than guessed at. Empty: every major.
	Majors []int
	// Packages are the manifest packages the declaration knows. Any other
	// package (NVIDIA's next) is served generically: the host uses the
	// archive's conventional layout and warns.
	Packages []PackageSpec
	// Amend, when set, receives the declaration's answer for a known
	// package of a described major and may change it: TensorRT's JetPack
	// builds, cuTENSOR's per-CUDA library folders. It is not called for a
	// generic package or an undescribed major.
	Amend func(c Call, p Package, r *PackageResult) error
}

// PackageSpec declares one manifest package.
type PackageSpec struct {
	// Manifest is the package's name in the manifests ("libcudss").
	Manifest string
	// Title names the package in messages when it is not the product
	// ("cudnn_jit"); Product.Title when empty.
	Title string
	// Files are the package's outputs, in this order, on every platform it
	// has an archive for; each holds for the releases of its Range.
	Files []FileSpec
	// Deps are its edges; each is returned only when the set has the
	// package it names.
	Deps []DepSpec
	// Floors are its capability floors: the first whose Range holds for
	// the release applies.
	Floors []Floor
	// StaticLinkopts are the system libraries its static libraries need.
	StaticLinkopts []string
	// Unusable are where the package cannot be used, whatever its
	// archives: a reason that holds wins over files and floors.
	Unusable []Reason
	// About says what the package is, in a few words (documentation).
	About string
}

// Range bounds releases: From inclusive, Below exclusive, both versions
// ("0.8", "2"); "" is open. Versions compare part by part, missing parts as
// zero: Below "2" holds for every 1.x.
type Range struct {
	From, Below string
}

// holds reports whether rel is in the range; check has parsed the bounds.
func (r Range) holds(rel Version) bool {
	if r.From != "" && rel.Less(MustVersion(r.From)) {
		return false
	}
	return r.Below == "" || rel.Less(MustVersion(r.Below))
}

func (r Range) check() error {
	for _, b := range []string{r.From, r.Below} {
		if b == "" {
			continue
		}
		if _, err := ParseVersion(b); err != nil {
			return err
		}
	}
	return nil
}

// ReleaseMajor stands, in a file's path, for the release's major version:
// Shared("lib/libcudnn.so", ReleaseMajor) is lib/libcudnn.so.9 for cuDNN 9.
const ReleaseMajor = "{major}"

// FileSpec is one output of a package (File), for the releases of Range
// where When holds and, when CUDA is set, only in archives for those CUDA
// majors ("12"): a wheel's files may differ per CUDA major while its
// release does not. ReleaseMajor, PackageMajor and PackageMinor in Path are
// filled in; a shared library's SONAME is its file name.
type FileSpec struct {
	Range
	When
	Path string
	Kind Kind
	Role Role
	CUDA []string
	// InWheels: the product's wheels carry this static library too
	// (NVSHMEM's device library, linked only statically). Other static
	// libraries and stubs are left out of a wheel's answer.
	InWheels bool
	// unversioned: a shared library without a SONAME major, on purpose.
	unversioned bool
}

// Header is an include folder or a header, for the target.
func Header(p string) FileSpec { return FileSpec{Path: p, Kind: Headers, Role: Target} }

// Shared is a shared library by its SONAME file, p plus "." plus its
// SONAME major ("0", or ReleaseMajor): Shared("lib/libcudss.so", "0") is
// lib/libcudss.so.0 with SONAME libcudss.so.0.
func Shared(p, soMajor string) FileSpec {
	return FileSpec{Path: p + "." + soMajor, Kind: SharedLib, Role: Target}
}

// Unversioned is a shared library whose SONAME is its file name with no
// version (libnvperf_host.so).
func Unversioned(p string) FileSpec {
	return FileSpec{Path: p, Kind: SharedLib, Role: Target, unversioned: true}
}

// Static is a static library, for the target.
func Static(p string) FileSpec { return FileSpec{Path: p, Kind: StaticLib, Role: Target} }

// Stub is a link-time stub library, never shipped.
func Stub(p string) FileSpec { return FileSpec{Path: p, Kind: StubLib, Role: Target} }

// Tool is a binary run on the build machine.
func Tool(p string) FileSpec { return FileSpec{Path: p, Kind: Binary, Role: Exec} }

// RunTool is a binary run beside the program, on the target machine.
func RunTool(p string) FileSpec { return FileSpec{Path: p, Kind: Binary, Role: Target} }

// DataFile is anything else the package holds for the target: libraries
// opened by path at run time, samples.
func DataFile(p string) FileSpec { return FileSpec{Path: p, Kind: Data, Role: Target} }

// From bounds the file to releases from v on.
func (f FileSpec) From(v string) FileSpec { f.Range.From = v; return f }

// Below bounds the file to releases below v.
func (f FileSpec) Below(v string) FileSpec { f.Range.Below = v; return f }

// Wheeled says the product's wheels carry this static library or stub too.
func (f FileSpec) Wheeled() FileSpec { f.InWheels = true; return f }

// ForCUDA bounds the file to archives for these CUDA majors: the archive's
// variant ("cuda12"), or the batch's CUDA major for an archive without one.
func (f FileSpec) ForCUDA(majors ...string) FileSpec { f.CUDA = majors; return f }

// forCUDA reports whether the file is in an archive for CUDA major m.
func (f FileSpec) forCUDA(m string) bool { return len(f.CUDA) == 0 || slices.Contains(f.CUDA, m) }

// CUDAFrom bounds the file to CUDA v and newer (When.Since).
func (f FileSpec) CUDAFrom(v string) FileSpec { f.When.Since = v; return f }

// CUDAThrough bounds the file to CUDA v and older, a prefix: "12" is every
// 12.x (When.Until).
func (f FileSpec) CUDAThrough(v string) FileSpec { f.When.Until = v; return f }

// OnlyOn limits the file to some target platforms.
func (f FileSpec) OnlyOn(platforms ...string) FileSpec { f.When.On = platforms; return f }

// Versions bounds the file to the package versions of r.
func (f FileSpec) Versions(r Range) FileSpec { f.When.Version = r; return f }

// DepSpec is an edge (Dep's fields of the same names) for the releases of
// Range where When holds; When's Since and Until go to the host with it,
// and On, Off and Lacks, which are a platform's, are not an edge's.
// SameRelease points it at the package of the set whose release has this
// package's major.minor (cuDNN's samples build against their own cuDNN),
// and drops it when the set has none. Platforms keeps the configured ones,
// and the edge is dropped when none is. ForwardCompat edges exist only when
// the configuration asks for forward compatibility; with OnlyFor (a
// capability's major.minor) the edge keeps a platform only where every
// capability built for is that one: a Jetson module's forward-compatibility
// libcuda must not load on another module.
type DepSpec struct {
	Range
	When
	Package                         string
	Runtime, Static, Headers, Merge bool
	SameRelease                     bool
	Platforms                       []string
	ForwardCompat                   bool
	OnlyFor                         string
}

// Floor is a capability floor: for the releases of Range, the package
// serves capability Min and newer. Says is the reason's sentence before
// "; <capabilities> are selected", with {title}, {release}, {version} and
// {min} filled in: "{title} {release} supports capabilities {min} (NVIDIA
// Pascal) and newer".
type Floor struct {
	Range
	Min  string
	Says string
}

// Call is what Amend is given besides the package: the batch, its CUDA
// version (zero for a batch without one), the package's release and the
// whole set.
type Call struct {
	Batch   *Batch
	CUDA    Version
	Release Version
	Set     Set
}

// Set answers which packages the whole set has (Batch.SetPackages), by
// manifest name.
type Set struct{ byManifest map[string][]SetPackage }

// NewSet indexes a batch's set packages.
func NewSet(all []SetPackage) Set {
	s := Set{byManifest: map[string][]SetPackage{}}
	for _, p := range all {
		s.byManifest[p.Manifest] = append(s.byManifest[p.Manifest], p)
	}
	return s
}

// Has reports whether the set has a package of that manifest name.
func (s Set) Has(manifest string) bool { return len(s.byManifest[manifest]) > 0 }

// HasRelease reports whether the set has a package of that manifest name
// whose release has the prefix ("8.9").
func (s Set) HasRelease(manifest string, prefix Version) bool {
	for _, p := range s.byManifest[manifest] {
		if v, err := ParseVersion(p.Release); err == nil && v.HasPrefix(prefix) {
			return true
		}
	}
	return false
}

// Packages are the set's packages of that manifest name, in the batch's
// order.
func (s Set) Packages(manifest string) []SetPackage { return s.byManifest[manifest] }

// Knows reports whether the declaration lists a manifest package.
func (p Product) Knows(manifest string) bool {
	return slices.ContainsFunc(p.Packages, func(s PackageSpec) bool { return s.Manifest == manifest })
}

// Check reports the first mistake of a declaration: a missing name, a
// package declared twice, a bound or floor that is not a version, a file
// without a path or kind, a shared library with no SONAME major.
func (p Product) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("product %q: %s", p.Name, fmt.Sprintf(format, args...))
	}
	if p.Name == "" || p.Title == "" {
		return bad("expected a Name and a Title")
	}
	seen := map[string]bool{}
	for _, ps := range p.Packages {
		if ps.Manifest == "" || seen[ps.Manifest] {
			return bad("package %q: expected a manifest name, declared once", ps.Manifest)
		}
		seen[ps.Manifest] = true
		for _, f := range ps.Files {
			switch {
			case f.Path == "" || !slices.Contains(Kinds(), f.Kind) || (f.Role != Exec && f.Role != Target):
				return bad("package %s: file %q: expected a path, a kind and the role exec or target", ps.Manifest, f.Path)
			case f.Kind == SharedLib && !strings.Contains(path.Base(f.Path), ".so.") && !f.unversioned:
				return bad("package %s: shared library %q: expected a SONAME major (Shared) or none (Unversioned)", ps.Manifest, f.Path)
			}
			if err := f.check(); err != nil {
				return bad("package %s: file %q: %v", ps.Manifest, f.Path, err)
			}
			for _, m := range f.CUDA {
				if n, err := strconv.Atoi(m); err != nil || n <= 0 || strconv.Itoa(n) != m {
					return bad("package %s: file %q: CUDA major %q: expected a number such as \"12\"", ps.Manifest, f.Path, m)
				}
			}
			if err := f.validate(); err != nil {
				return bad("package %s: file %q: %v", ps.Manifest, f.Path, err)
			}
		}
		for _, d := range ps.Deps {
			if d.Package == "" {
				return bad("package %s: an edge without a package", ps.Manifest)
			}
			if err := d.check(); err != nil {
				return bad("package %s: edge to %s: %v", ps.Manifest, d.Package, err)
			}
			if err := d.validate(); err != nil {
				return bad("package %s: edge to %s: %v", ps.Manifest, d.Package, err)
			}
			if len(d.On) > 0 || len(d.Off) > 0 || d.Lacks != "" {
				return bad("package %s: edge to %s: On, Off and Lacks are a platform's; an edge names its Platforms", ps.Manifest, d.Package)
			}
			if d.OnlyFor != "" {
				if _, err := ParseVersion(d.OnlyFor); err != nil {
					return bad("package %s: edge to %s: OnlyFor: %v", ps.Manifest, d.Package, err)
				}
			}
		}
		for _, fl := range ps.Floors {
			if _, err := ParseVersion(fl.Min); err != nil {
				return bad("package %s: floor: %v", ps.Manifest, err)
			}
			if err := fl.check(); err != nil {
				return bad("package %s: floor: %v", ps.Manifest, err)
			}
			if fl.Says == "" {
				return bad("package %s: floor %s: expected what it says (Says)", ps.Manifest, fl.Min)
			}
		}
		for _, r := range ps.Unusable {
			if err := checkReason(r); err != nil {
				return bad("package %s: reason %q: %v", ps.Manifest, r.Says, err)
			}
		}
	}
	for _, r := range p.Refuse {
		if err := checkReason(r); err != nil {
			return bad("refusal %q: %v", r.Says, err)
		}
	}
	return nil
}

// Fixer builds the plugin. A declaration is code: Fixer panics with
// Check's message on a mistake, which the plugin's first test finds.
func (p Product) Fixer() Fixer {
	if err := p.Check(); err != nil {
		panic(err)
	}
	d := declared{p: p, specs: map[string]*PackageSpec{}}
	for i := range p.Packages {
		d.specs[p.Packages[i].Manifest] = &p.Packages[i]
	}
	return d
}

type declared struct {
	p     Product
	specs map[string]*PackageSpec
}

func (d declared) Describe() Description {
	name := d.p.Plugin
	if name == "" {
		name = d.p.Name
	}
	base := d.p.Base
	if base == "" && (d.p.Path != "" || len(d.p.Wheels) == 0) {
		// A wheel-only product has no NVIDIA folder to locate.
		base = NVIDIABase
	}
	return Description{Name: name, Products: []string{d.p.Name}, Renames: d.p.Renames, Facts: []ProductFacts{{
		Product: d.p.Name, Unlisted: d.p.Unlisted, Base: base, Path: d.p.Path, FlatCUDA: d.p.FlatCUDA,
		StripPrefix: d.p.StripPrefix, Platforms: d.p.Platforms, NoCUDA: d.p.NoCUDA, Wheels: slices.Clone(d.p.Wheels),
		Toolkit: d.p.Toolkit, Toolchain: d.p.Toolchain, LocalHints: d.p.LocalHints, LocalIdentify: d.p.LocalIdentify,
	}}}
}

func (d declared) Fixup(ctx context.Context, b *Batch) (*Result, error) {
	c := Call{Batch: b, Set: NewSet(b.SetPackages)}
	if b.CUDA != "" || !d.p.NoCUDA {
		v, err := ParseVersion(b.CUDA)
		if err != nil {
			return nil, fmt.Errorf("batch CUDA version: %w", err)
		}
		c.CUDA = v
	}
	return EachPackage(ctx, b, d.p.Name, func(p Package) (PackageResult, error) {
		rel, err := ParseVersion(p.Release)
		if err != nil {
			return PackageResult{Name: p.Name}, fmt.Errorf("release: %w", err)
		}
		spec, ok := d.specs[p.Manifest]
		if !ok {
			// NVIDIA's next package: served from the conventional layout.
			return d.generic(c, p), nil
		}
		r := PackageResult{Name: p.Name, Platforms: map[string]PlatformResult{}}
		if len(d.p.Majors) > 0 && !slices.Contains(d.p.Majors, rel.Major()) {
			why := fmt.Sprintf("the %s plugin describes %s %s, not %s %s: its files and dependencies are not described",
				d.Describe().Name, d.p.Title, majors(d.p.Majors), d.p.Title, p.Release)
			for _, a := range p.Archives {
				r.Platforms[a.Platform] = PlatformResult{Unusable: []string{why}}
			}
			return r, nil
		}
		c := c
		c.Release = rel
		if err := d.answer(c, spec, p, &r); err != nil {
			return r, err
		}
		if d.p.Amend != nil {
			if err := d.p.Amend(c, p, &r); err != nil {
				return r, err
			}
		}
		return r, nil
	})
}

// generic is the answer for a package the declaration does not list: the
// conventional layout where it has an archive, unless the product refuses
// that archive.
func (d declared) generic(c Call, p Package) PackageResult {
	r := Generic(p)
	if len(d.p.Refuse) == 0 {
		return r
	}
	fill := filler(d.p.Title, p)
	version, _ := ParseVersion(p.Version)
	for plat := range r.Platforms {
		if why := reasons(d.p.Refuse, scene{cuda: c.CUDA, version: version, platform: plat, cfg: c.Batch.Config}, fill); len(why) > 0 {
			r.Platforms[plat] = PlatformResult{Unusable: why}
		}
	}
	return r
}

// answer is the declaration's answer for a known package.
func (d declared) answer(c Call, spec *PackageSpec, p Package, r *PackageResult) error {
	rel := c.Release
	cfg := c.Batch.Config
	version, err := ParseVersion(p.Version)
	if err != nil && usesVersion(spec) {
		return fmt.Errorf("version: %w", err)
	}
	edge := scene{cuda: c.CUDA, version: version, cfg: cfg}
	for _, ds := range spec.Deps {
		if !ds.holds(rel) || !ds.applies(edge) || ds.ForwardCompat && !cfg.ForwardCompat {
			continue
		}
		dep := Dep{Package: ds.Package, Since: ds.Since, Until: ds.Until, Runtime: ds.Runtime, Static: ds.Static,
			Headers: ds.Headers, Merge: ds.Merge}
		if ds.SameRelease {
			own := rel.Truncate(2)
			if !c.Set.HasRelease(ds.Package, own) {
				continue
			}
			dep.Release = own.String()
		} else if !c.Set.Has(ds.Package) && !d.renamedIn(c, ds.Package) {
			continue
		}
		for _, pl := range ds.Platforms {
			if (len(cfg.Targets) == 0 || slices.Contains(cfg.Targets, pl)) &&
				(ds.OnlyFor == "" || onlyCapability(cfg, cfg.Capabilities[pl], ds.OnlyFor)) {
				dep.Platforms = append(dep.Platforms, pl)
			}
		}
		if len(ds.Platforms) > 0 && len(dep.Platforms) == 0 {
			continue
		}
		r.Deps = append(r.Deps, dep)
	}
	r.StaticLinkopts = slices.Clone(spec.StaticLinkopts)
	batchCUDA, _, _ := strings.Cut(c.Batch.CUDA, ".")
	title := spec.Title
	if title == "" {
		title = d.p.Title
	}
	fill := filler(title, p)
	floor := func(caps []string) []string {
		for _, fl := range spec.Floors {
			if !fl.holds(rel) {
				continue
			}
			below := cfg.Below(caps, MustVersion(fl.Min))
			if below == "" {
				return nil
			}
			says := strings.NewReplacer("{title}", title, "{release}", p.Release, "{version}", p.Version, "{min}", fl.Min).Replace(fl.Says)
			return []string{says + "; " + below}
		}
		return nil
	}
	archives := map[string]Archive{}
	for _, a := range p.Archives {
		archives[a.Platform] = a
	}
	for _, plat := range targetsOf(cfg, p) {
		sc := scene{cuda: c.CUDA, version: version, platform: plat, cfg: cfg}
		why := reasons(spec.Unusable, sc, fill)
		a, served := archives[plat]
		if served {
			why = append(why, reasons(d.p.Refuse, sc, fill)...)
		}
		if len(why) > 0 {
			r.Platforms[plat] = PlatformResult{Unusable: why}
			continue
		}
		if !served {
			continue // the host's reasons for having no archive stand
		}
		cuda := strings.TrimPrefix(a.Variant, "cuda")
		if a.Variant == "" {
			cuda = batchCUDA
		}
		// A product's own wheels carry what Python loads: no static
		// library and no stub unless the file says so, so naming them
		// would point the build at missing files. A product without
		// declared wheels (the toolkit, whose CUDA 13 wheels do carry
		// libcudart_static.a) is answered as its files say.
		wheel := len(d.p.Wheels) > 0 && strings.HasSuffix(a.RelativePath, ".whl")
		var files []File
		for _, f := range spec.Files {
			if !f.holds(rel) || !f.applies(sc) || !f.forCUDA(cuda) ||
				(wheel && (f.Kind == StaticLib || f.Kind == StubLib) && !f.InWheels) {
				continue
			}
			out := File{Path: expandPath(f.Path, rel, version), Kind: f.Kind, Role: f.Role}
			if f.Kind == SharedLib {
				out.SONAME = path.Base(out.Path)
			}
			files = append(files, out)
		}
		pr := PlatformResult{Files: files}
		pr.Unusable, pr.Judged = cfg.JudgeCapabilities(plat, floor)
		r.Platforms[plat] = pr
	}
	return nil
}

// renamedIn reports whether a package the set lacks has a successor there:
// the host follows the product's renames to it.
func (d declared) renamedIn(c Call, manifest string) bool {
	for _, rn := range d.p.Renames {
		if rn.Replaces == manifest && WithinCUDA(c.CUDA, rn.Since, "") && c.Set.Has(rn.Package) {
			return true
		}
	}
	return false
}

// usesVersion reports whether a package's rows read its own version.
func usesVersion(spec *PackageSpec) bool {
	for _, f := range spec.Files {
		if f.Version != (Range{}) || strings.Contains(f.Path, PackageMajor) || strings.Contains(f.Path, PackageMinor) {
			return true
		}
	}
	for _, ds := range spec.Deps {
		if ds.Version != (Range{}) {
			return true
		}
	}
	for _, rs := range spec.Unusable {
		if rs.Version != (Range{}) {
			return true
		}
	}
	return false
}

// majors writes the described majors for a message: "0.x", "8.x and 9.x".
func majors(ms []int) string {
	var out []string
	for _, m := range ms {
		out = append(out, strconv.Itoa(m)+".x")
	}
	if len(out) == 1 {
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
}
