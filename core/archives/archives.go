// Package archives finds the distinct archives behind package sets, and
// what serves each package where.
//
// Both emitters (core/bazel, core/buck2) declare one download per distinct
// archive, whatever number of packages, CUDA versions and platforms it
// serves, and map every (package, CUDA version, target platform) to one of
// those downloads or to the reasons there is none. Collect works that out
// once, the same way for both, so the two trees can only differ in how they
// write it.
package archives

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Archive is one distinct archive (by sha256) and the union of what the
// packages it serves say about it.
type Archive struct {
	// Name is <prefix>_<manifest name>_<version>_<manifest key>[_<variant>]
	// reduced to letters, digits and _: unique among the Index's archives.
	Name string
	// Manifest is the package's name in its manifest: one archive never
	// serves two (Collect fails), so the emitters name its top target so.
	Manifest string
	Version  version.Version
	Archive  pkgset.Archive
	// Files is the union of the packages' files on every platform the
	// archive serves.
	Files map[pkgset.File]bool
	// Deps and Runtime are the packages' edges, by their names in the sets,
	// on the platforms the archive serves: linked libraries, and libraries
	// loaded at run time.
	Deps, Runtime map[string]bool
	// StaticDeps are edges of the static link set only, and StaticLinkopts
	// the system libraries it needs.
	StaticDeps, StaticLinkopts map[string]bool
	// HeaderDeps are edges to other packages' headers only.
	HeaderDeps map[string]bool
	// MergeDeps are the packages whose archive is unpacked into this one's
	// repository, and Merged those archives, resolved per CUDA version and
	// platform the archive serves (Collect). Their files are in Files.
	MergeDeps map[string]bool
	Merged    []*Archive
	// Patches are edited into the archive when it is fetched, by name.
	Patches map[string]pkgset.Patch
	// CUDA and Platforms are the CUDA versions (Version.String) and target
	// platforms (Platform.Name) the archive serves.
	CUDA, Platforms map[string]bool
	// Generic says no plugin knows the package: the emitters serve the
	// archive's conventional layout (pkgset.MarkGeneric).
	Generic bool
}

// SortedFiles is Files in SortFiles order.
func (a *Archive) SortedFiles() []pkgset.File { return SortFiles(a.Files) }

// HasFile reports whether the archive's file list has the path.
func (a *Archive) HasFile(p string) bool {
	for f := range a.Files {
		if f.Path == p {
			return true
		}
	}
	return false
}

// HasKind reports whether the archive has a file of the kind (headers,
// data, ...): the emitters write a target per kind only where there is one.
func (a *Archive) HasKind(kind file.Kind) bool {
	for f := range a.Files {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// CUDAVersions are the CUDA versions the archive serves, oldest first (by
// version, not as strings: 12.10 after 12.9).
func (a *Archive) CUDAVersions() []string {
	vs := make([]version.Version, 0, len(a.CUDA))
	for s := range a.CUDA {
		vs = append(vs, version.MustParse(s))
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Less(vs[j]) })
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// Use is what one package maps one (CUDA version, target platform) to: an
// archive, or (Archive nil) the reasons there is none.
type Use struct {
	Archive *Archive
	Reasons []string
	// Instead, where Archive is nil, names the newest release of the same
	// package (another of its names in the set: libfoo_9_1, or the default
	// libfoo) that can be used there, "" for none.
	Instead string
}

// Index is the result of Collect.
type Index struct {
	sets     []*pkgset.Set
	targets  []platform.Platform
	archives []*Archive                // sorted by name
	packages map[string]map[string]Use // package -> key(CUDA version, platform) -> use
}

// Collect finds the distinct archives behind the sets on the target
// platforms and, per package, what serves each (CUDA version, platform).
// prefix starts every archive's name (a Bazel repository is global to the
// workspace, so it carries the hub's name); "" for none.
//
// It fails on what no emitter can declare: no sets, two sets for one CUDA
// version, an archive without a sha256 or a URL, one archive serving two
// manifest names (its top target would need both names), and two archives
// that would get the same name.
func Collect(sets []*pkgset.Set, targets []platform.Platform, prefix string) (*Index, error) {
	if len(sets) == 0 {
		return nil, fmt.Errorf("no package sets: nothing to generate")
	}
	// A copy: the caller's slice keeps its order.
	ix := &Index{sets: slices.Clone(sets), targets: slices.Clone(targets), packages: map[string]map[string]Use{}}
	sort.Slice(ix.sets, func(i, j int) bool { return ix.sets[i].CUDA.Less(ix.sets[j].CUDA) })
	for i := 1; i < len(ix.sets); i++ {
		if ix.sets[i].CUDA.Equal(ix.sets[i-1].CUDA) {
			return nil, fmt.Errorf("two package sets for CUDA %s", ix.sets[i].CUDA)
		}
	}
	c := collector{prefix: prefix, bySHA: map[string]*Archive{}, byName: map[string]*Archive{}}
	for _, s := range ix.sets {
		for _, pkg := range s.Packages {
			uses := ix.packages[pkg.Name]
			if uses == nil {
				uses = map[string]Use{}
				ix.packages[pkg.Name] = uses
			}
			for _, t := range ix.targets {
				u, err := c.use(s.CUDA, pkg, t)
				if err != nil {
					return nil, fmt.Errorf("CUDA %s: %s on %s: %w", s.CUDA, pkg.Name, t.Name(), err)
				}
				uses[key(s.CUDA, t)] = u
			}
		}
	}
	for _, s := range ix.sets {
		ix.findInstead(s)
	}
	// An old name a package took over in some sets (a rename a plugin
	// declared) is served there by the new package, so one label works
	// across versions.
	for _, s := range ix.sets {
		for _, old := range slices.Sorted(maps.Keys(s.Aliases)) {
			uses := ix.packages[old]
			if uses == nil {
				uses = map[string]Use{}
				ix.packages[old] = uses
			}
			for _, t := range ix.targets {
				if u, ok := ix.packages[s.Aliases[old]][key(s.CUDA, t)]; ok {
					uses[key(s.CUDA, t)] = u
				}
			}
		}
	}
	ix.archives = slices.SortedFunc(maps.Values(c.byName), func(a, b *Archive) int { return strings.Compare(a.Name, b.Name) })
	ix.resolveMerges()
	return ix, nil
}

// findInstead names, for each use of a package of s without an archive,
// the newest other name of the same package that has one on that
// platform. It runs here, after the plugins and the overrides, so it names
// only what the generated tree serves.
func (ix *Index) findInstead(s *pkgset.Set) {
	byPkg := map[string][]*pkgset.Package{}
	for _, p := range s.Packages {
		if !p.Release.IsZero() {
			byPkg[p.Product+"\x00"+p.Manifest] = append(byPkg[p.Product+"\x00"+p.Manifest], p)
		}
	}
	for _, t := range ix.targets {
		k := key(s.CUDA, t)
		for _, p := range s.Packages {
			u := ix.packages[p.Name][k]
			if u.Archive != nil || p.Release.IsZero() {
				continue
			}
			var best *pkgset.Package
			var bestRel version.Version
			for _, q := range byPkg[p.Product+"\x00"+p.Manifest] {
				if q == p || ix.packages[q.Name][k].Archive == nil {
					continue
				}
				rel := q.Release
				if sv, ok := q.Served[t.Name()]; ok {
					rel = sv.Release
				}
				// Newest first; of two names for one release, the versioned
				// one, which says which release it is.
				if best == nil || bestRel.Less(rel) || (bestRel.Equal(rel) && q.Name != q.Manifest) {
					best, bestRel = q, rel
				}
			}
			if best != nil {
				u.Instead = best.Name
				ix.packages[p.Name][k] = u
			}
		}
	}
}

// resolveMerges finds, for each archive with merge edges, the archives that
// serve the merged packages wherever it is used, and gives it their files:
// the repository holds both, so its targets do. A merged package unusable
// somewhere adds nothing there (its own target says why).
func (ix *Index) resolveMerges() {
	for _, r := range ix.archives {
		if len(r.MergeDeps) == 0 {
			continue
		}
		deps := slices.Sorted(maps.Keys(r.MergeDeps))
		seen := map[string]bool{}
		for _, s := range ix.sets {
			if !r.CUDA[s.CUDA.String()] {
				continue
			}
			for _, t := range ix.targets {
				if !r.Platforms[t.Name()] {
					continue
				}
				for _, dep := range deps {
					u, ok := ix.packages[dep][key(s.CUDA, t)]
					if !ok || u.Archive == nil || seen[u.Archive.Name] {
						continue
					}
					seen[u.Archive.Name] = true
					r.Merged = append(r.Merged, u.Archive)
					for f := range u.Archive.Files {
						r.Files[f] = true
					}
				}
			}
		}
		slices.SortFunc(r.Merged, func(a, b *Archive) int { return strings.Compare(a.Name, b.Name) })
	}
}

// collector holds Collect's lookups, which the Index has no use for.
type collector struct {
	prefix string
	bySHA  map[string]*Archive
	byName map[string]*Archive
}

// use finds what serves pkg of CUDA cuda on t, and adds the package's files
// and edges on t to that archive.
func (c *collector) use(cuda version.Version, pkg *pkgset.Package, t platform.Platform) (Use, error) {
	a, ok := pkg.Platforms[t.Name()]
	// A platform can have an archive and reasons (a plugin's): the reasons
	// win, the archive is not used there.
	reasons := pkg.Unavailable[t.Name()]
	if !ok || len(reasons) > 0 {
		if len(reasons) == 0 {
			reasons = []string{fmt.Sprintf("no archive of %s %s serves %s", pkg.Manifest, pkg.Version, t.Name())}
		}
		return Use{Reasons: reasons}, nil
	}
	ver := pkg.Version
	if sv, ok := pkg.Served[t.Name()]; ok {
		// An older release serves the default name here: its archive is
		// named and versioned as that release's.
		ver = sv.Version
	}
	r, err := c.archive(pkg, a, ver)
	if err != nil {
		return Use{}, err
	}
	r.CUDA[cuda.String()] = true
	r.Platforms[t.Name()] = true
	r.Generic = r.Generic || pkg.Generic[t.Name()]
	for _, f := range pkg.Files[t.Name()] {
		r.Files[f] = true
	}
	for _, d := range pkg.Deps {
		if len(d.Platforms) > 0 && !slices.Contains(d.Platforms, t.Name()) {
			continue
		}
		switch {
		case d.Runtime:
			r.Runtime[d.Name] = true
		case d.Static:
			r.StaticDeps[d.Name] = true
		case d.Headers:
			r.HeaderDeps[d.Name] = true
		case d.Merge:
			r.MergeDeps[d.Name] = true
		default:
			r.Deps[d.Name] = true
		}
	}
	for _, o := range pkg.StaticLinkopts {
		r.StaticLinkopts[o] = true
	}
	for _, pa := range pkg.Patches[t.Name()] {
		r.Patches[pa.Name] = pa
	}
	return Use{Archive: r}, nil
}

// archive is the Archive for a, new or (same sha256) the one seen before.
func (c *collector) archive(pkg *pkgset.Package, a pkgset.Archive, ver version.Version) (*Archive, error) {
	if a.SHA256 == "" {
		return nil, fmt.Errorf("archive %s has no sha256", a.RelativePath)
	}
	if len(a.URLs) == 0 {
		return nil, fmt.Errorf("archive %s has no URL", a.RelativePath)
	}
	if r, ok := c.bySHA[a.SHA256]; ok {
		if r.Manifest != pkg.Manifest {
			return nil, fmt.Errorf("archive %s (sha256 %s) serves both %s and %s", a.RelativePath, a.SHA256, r.Manifest, pkg.Manifest)
		}
		return r, nil
	}
	name := name(c.prefix, pkg.Manifest, ver, a)
	if other, ok := c.byName[name]; ok {
		return nil, fmt.Errorf("two different archives would both be named %s: %s (sha256 %s) and %s (sha256 %s)",
			name, other.Archive.RelativePath, other.Archive.SHA256, a.RelativePath, a.SHA256)
	}
	r := &Archive{Name: name, Manifest: pkg.Manifest, Version: ver, Archive: a, Files: map[pkgset.File]bool{},
		Deps: map[string]bool{}, Runtime: map[string]bool{}, StaticDeps: map[string]bool{}, StaticLinkopts: map[string]bool{}, HeaderDeps: map[string]bool{},
		MergeDeps: map[string]bool{}, Patches: map[string]pkgset.Patch{},
		CUDA: map[string]bool{}, Platforms: map[string]bool{}}
	c.bySHA[a.SHA256] = r
	c.byName[name] = r
	return r, nil
}

// name is [<prefix>_]<manifest name>_<version>_<manifest key>[_<variant>],
// every part reduced to letters, digits and _.
func name(prefix, manifest string, ver version.Version, a pkgset.Archive) string {
	var parts []string
	if prefix != "" {
		parts = append(parts, prefix)
	}
	parts = append(parts, manifest)
	if !ver.IsZero() {
		parts = append(parts, ver.String())
	}
	parts = append(parts, a.Key)
	if a.Variant != "" {
		parts = append(parts, a.Variant)
	}
	return Sanitize(strings.Join(parts, "_"))
}

func key(v version.Version, p platform.Platform) string { return v.String() + " " + p.Name() }

// Sets are the package sets, oldest CUDA version first.
func (ix *Index) Sets() []*pkgset.Set { return slices.Clone(ix.sets) }

// Versions are the sets' CUDA versions (Version.String), oldest first.
func (ix *Index) Versions() []string {
	out := make([]string, len(ix.sets))
	for i, s := range ix.sets {
		out[i] = s.CUDA.String()
	}
	return out
}

// DefaultVersion is the CUDA version a build gets unless it says
// otherwise: the newest of the configured versions, else the newest set.
func (ix *Index) DefaultVersion(configured []version.Version) version.Version {
	if len(configured) > 0 {
		return configured[len(configured)-1]
	}
	return ix.sets[len(ix.sets)-1].CUDA
}

// Targets are the target platforms, in the order Collect was given them.
func (ix *Index) Targets() []platform.Platform { return slices.Clone(ix.targets) }

// ExecTargets are the targets that can run an archive's build tools
// (Linux), sorted by name: a build's execution platform is one of them.
func (ix *Index) ExecTargets() []platform.Platform {
	var out []platform.Platform
	for _, t := range ix.targets {
		if t.OS == "linux" {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Archives are the distinct archives, sorted by name.
func (ix *Index) Archives() []*Archive { return slices.Clone(ix.archives) }

// Packages are the names of the packages of all sets, sorted.
func (ix *Index) Packages() []string { return slices.Sorted(maps.Keys(ix.packages)) }

// HasPackage reports whether any set has the package.
func (ix *Index) HasPackage(name string) bool {
	_, ok := ix.packages[name]
	return ok
}

// Use is what serves the package with CUDA cuda on p; ok is false where the
// CUDA version's set has no such package (or cuda, p were not collected).
func (ix *Index) Use(pkg string, cuda version.Version, p platform.Platform) (u Use, ok bool) {
	u, ok = ix.packages[pkg][key(cuda, p)]
	return u, ok
}

// Cell is what serves one package with one CUDA version on one target
// platform.
type Cell struct {
	Package  string
	CUDA     version.Version
	Platform platform.Platform
	Use
	// InSet is false where the CUDA version's set has no such package.
	InSet bool
}

// Cells are a package's cells, one per (set, target): the sets oldest
// first, within a set the targets in Collect's order, so that every
// emitter's select() lists them alike.
func (ix *Index) Cells(pkg string) []Cell {
	out := make([]Cell, 0, len(ix.sets)*len(ix.targets))
	for _, s := range ix.sets {
		for _, t := range ix.targets {
			u, ok := ix.Use(pkg, s.CUDA, t)
			out = append(out, Cell{Package: pkg, CUDA: s.CUDA, Platform: t, Use: u, InSet: ok})
		}
	}
	return out
}

// MaxMessage is the most bytes a generated failure message has: what a
// user reads in an analysis error. Everything longer (every reason, every
// release tried) is in the JSON of the query the message names.
const MaxMessage = 400

// Unusable is the message of a cell without an archive: hub+package (the
// package as the user names it, @cuda//:libfoo) cannot be used there; why,
// in as many of the reasons as fit, the first always (cut short when it
// alone is too long); the other name of the package that can be used
// instead; and the command whose JSON has every reason and every release
// tried. queryFlags are the configuration flags that command needs (see
// QueryFlags). At most MaxMessage bytes.
func (c Cell) Unusable(hub, queryFlags string) string {
	head := fmt.Sprintf("%s%s cannot be used with CUDA %s on %s: ", hub, c.Package, c.CUDA, c.Platform.Name())
	if !c.InSet {
		return head + fmt.Sprintf("there is no package %s in the CUDA %s package set", c.Package, c.CUDA)
	}
	tail := ""
	if c.Instead != "" {
		tail = "; use " + hub + c.Instead + " instead"
	}
	tail += fmt.Sprintf(" (every reason: cudapkgs query --cuda %s --platform %s --package %s%s --format json)", c.CUDA, c.Platform.Name(), c.Package, queryFlags)
	return head + fitReasons(c.Reasons, MaxMessage-len(head)-len(tail)) + tail
}

// fitReasons joins as many whole reasons as fit in room bytes, with a count
// of those left out; the first is always there, cut at a word when it alone
// does not fit.
func fitReasons(reasons []string, room int) string {
	if len(reasons) == 0 {
		return "no reason was given"
	}
	more := func(n int) string {
		if n == 0 {
			return ""
		}
		return fmt.Sprintf("; %d more", n)
	}
	out := ""
	for i, r := range reasons {
		next := r
		if i > 0 {
			next = out + "; " + r
		}
		if len(next)+len(more(len(reasons)-i-1)) > room {
			if i > 0 {
				return out + more(len(reasons)-i)
			}
			return cut(r, room-len(more(len(reasons)-1))) + more(len(reasons)-1)
		}
		out = next
	}
	return out
}

// cut shortens s to at most n bytes, at a space, ending in "...".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 3 {
		return ""
	}
	s = s[:n-3]
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	// Not in the middle of a character.
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return strings.TrimRight(s, " ,;:") + "..."
}

// QueryFlags are the configuration flags of the query an unusable
// message names, beyond the cell's own: the capabilities the user chose
// (which the reasons depend on), none when the defaults apply.
func QueryFlags(explicitCapabilities []string) string {
	if len(explicitCapabilities) == 0 {
		return ""
	}
	return " --capabilities " + strings.Join(explicitCapabilities, ",")
}

// Usable says where a package has an archive, for the message of a
// configuration that matches none of the cells: every (CUDA version,
// platform) when there are two at most, else how many and the newest.
func (ix *Index) Usable(pkg string) string {
	var usable []string
	for _, c := range ix.Cells(pkg) {
		if c.Archive != nil {
			usable = append(usable, "CUDA "+c.CUDA.String()+" on "+c.Platform.Name())
		}
	}
	switch n := len(usable); {
	case n == 0:
		return "it is usable nowhere"
	case n <= 2:
		return "it is usable with " + strings.Join(usable, " and ")
	default:
		return fmt.Sprintf("it is usable in %d (CUDA version, platform) pairs, the last %s", n, usable[n-1])
	}
}

// Summary names a list for a message: every item when there are four at
// most, else how many, the first and the last.
func Summary(items []string) string {
	if len(items) <= 4 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%d of them, %s to %s", len(items), items[0], items[len(items)-1])
}

// Fit cuts a message to MaxMessage bytes (at a word, ending in "...").
func Fit(msg string) string { return cut(msg, MaxMessage) }

// UnusableTarget names the target that fails, with the reasons, where pkg
// cannot be used with CUDA cuda on p: libfoo_12_6_3_linux_x86_64. Both
// emitters write those into a package of their own, //unusable.
func UnusableTarget(pkg string, cuda version.Version, p platform.Platform) string {
	return pkg + "_" + cuda.Underscored(cuda.Parts()) + "_" + PlatformTarget(p)
}

// Select lists the branches of a package's select(): per cell, key(c) and
// what the cell resolves to, served(c.Archive) where an archive serves it
// and its //unusable target elsewhere; last defaultKey and //unusable:<pkg>,
// which fails for a configuration that matches no cell.
func (ix *Index) Select(pkg string, key func(Cell) string, served func(*Archive) string, defaultKey string) (keys, labels []string) {
	for _, c := range ix.Cells(pkg) {
		keys = append(keys, key(c))
		if c.Archive != nil {
			labels = append(labels, served(c.Archive))
		} else {
			labels = append(labels, "//unusable:"+UnusableTarget(pkg, c.CUDA, c.Platform))
		}
	}
	return append(keys, defaultKey), append(labels, "//unusable:"+pkg)
}

// HasKind reports whether some archive serving the package has a file of
// the kind (static_lib, stub_lib): the emitters give such packages a hub
// target for it (<name>_static, <name>_stubs).
func (ix *Index) HasKind(pkg string, kind file.Kind) bool {
	for _, c := range ix.Cells(pkg) {
		if c.Archive != nil && c.Archive.HasKind(kind) {
			return true
		}
	}
	return false
}

// Sanitize replaces every character but letters, digits and _ by _: what
// both build systems accept in a repository, package or target name.
func Sanitize(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// LabelSafe reports whether s can name a repository or cell as it is:
// letters, digits and _, not starting with a digit.
func LabelSafe(s string) bool { return s != "" && Sanitize(s) == s && !(s[0] >= '0' && s[0] <= '9') }

// SortFiles lists the files by path, then kind, role and SONAME, so that a
// generated file never depends on map order.
func SortFiles(m map[pkgset.File]bool) []pkgset.File {
	files := slices.Collect(maps.Keys(m))
	sort.Slice(files, func(i, j int) bool {
		a, b := files[i], files[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Role != b.Role {
			return a.Role < b.Role
		}
		return a.SONAME < b.SONAME
	})
	return files
}

// IsHeaderFile reports whether a headers entry is one header rather than a
// folder of them, by its extension: the emitters export the two differently.
func IsHeaderFile(p string) bool {
	switch path.Ext(p) {
	case ".h", ".hh", ".hpp", ".hxx", ".cuh", ".inc", ".inl":
		return true
	}
	return false
}

// LibBase is a library's name without .so and what follows it, or without
// its extension: libfoo.so.12 -> libfoo, libfoo_static.a -> libfoo_static.
func LibBase(name string) string {
	if i := strings.Index(name, ".so"); i > 0 {
		return name[:i]
	}
	return strings.TrimSuffix(name, path.Ext(name))
}

// TargetName keeps the characters a target name may hold without quoting
// surprises (letters, digits, _-.+) and replaces the others by _.
func TargetName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-.+", c) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// TargetNames hands out an archive's target names: one per library, none
// taken twice or taken from the fixed ones (the top target, headers, ...).
type TargetNames struct{ used map[string]bool }

// NewTargetNames reserves the fixed names.
func NewTargetNames(reserved ...string) *TargetNames {
	n := &TargetNames{used: map[string]bool{}}
	for _, r := range reserved {
		n.used[r] = true
	}
	return n
}

// Unique is TargetName(base), or, where that is taken, base_suffix, then
// base_suffix2, base_suffix3, ...
func (n *TargetNames) Unique(base, suffix string) string {
	s := TargetName(base)
	if n.used[s] {
		s += "_" + suffix
	}
	for i := 2; n.used[s]; i++ {
		s = fmt.Sprintf("%s_%s%d", TargetName(base), suffix, i)
	}
	n.used[s] = true
	return s
}

// PlatformTarget is the name of a platform's target in //platforms: its
// name with _ for -.
func PlatformTarget(p platform.Platform) string { return strings.ReplaceAll(p.Name(), "-", "_") }

// IsWheel reports whether the archive is a wheel from a Python package
// index (docs/wheels.md): what Python loads, without static libraries.
func (a *Archive) IsWheel() bool { return strings.HasSuffix(a.Archive.RelativePath, ".whl") }

// WheelWithoutStatic reports whether some archive serving the package is a
// wheel with no static library, and the package's product: its static link
// set (<pkg>_static) must then fail there with WheelStaticMessage rather than
// link the shared library in its place. A package of that name (pkg_static)
// wins, as for every kind alias.
func (ix *Index) WheelWithoutStatic(pkg string) (product string, ok bool) {
	if ix.HasPackage(pkg + "_static") {
		return "", false
	}
	for _, c := range ix.Cells(pkg) {
		if c.Archive != nil && c.Archive.IsWheel() && !c.Archive.HasKind(file.StaticLib) {
			ok = true
			break
		}
	}
	if !ok {
		return "", false
	}
	for _, s := range ix.sets {
		if p, found := s.Package(pkg); found {
			return p.Product, true
		}
	}
	return "", true
}

// WheelStaticTarget is the unusable target a wheel archive without static
// libraries resolves <pkg>_static to.
func WheelStaticTarget(pkg string) string { return pkg + "_static" }

// WheelStaticMessage says why hub+pkg_static cannot be used where the
// archive is a wheel, and how to get a static library: NVIDIA's manifests.
func WheelStaticMessage(hub, pkg, product string) string {
	return Fit(fmt.Sprintf("%s%s_static cannot be used: %s comes from a Python package index's wheels (the wheels source), and its wheels carry no static library; "+
		"link %s%s (shared) instead, or pick NVIDIA's manifests, whose archives have it, where they serve %s: product_sources([\"%s=nvidia\"]) in cudapkgs.star or --source %s=nvidia (docs/wheels.md)",
		hub, pkg, product, hub, pkg, product, product, product))
}
