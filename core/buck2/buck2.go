// Package buck2 turns package sets into a Buck2 cell, following the
// conventions of Buck2's prelude: one http_archive per distinct archive,
// prebuilt_cxx_library targets over its sub-targets, a hub BUCK with one
// alias per package that select()s on the target platform's OS and CPU
// constraints (config//os/constraints, config//cpu/constraints), an aarch64
// flavour (server, jetson) and a CUDA version constraint, and targets that
// fail at analysis with the reasons a package cannot be used.
//
// It is the Buck2 counterpart of core/bazel and, like it, a pure function of
// the configuration and the sets: every file is a buildtools syntax tree
// printed by build.Format, everything is sorted, and two runs over the same
// input give the same bytes.
package buck2

import (
	_ "embed"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bazelbuild/buildtools/build"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Options tune the generated cell.
type Options struct {
	// Name is the cell's name, the one a project gives it in .buckconfig's
	// [cells]; the generated .bzl refers to its own targets through it.
	// Default "cuda".
	Name string
	// Toolchain names the packages nvcc and the CUDA rules come from (the
	// built-in catalog's Toolchain). Without a Compiler, no toolchain is
	// generated.
	Toolchain Toolchain
}

// Toolchain is the same product knowledge the Bazel emitter takes: an alias,
// so the catalog's value serves both.
type Toolchain = bazel.Toolchain

// Tree maps a path relative to the cell root to the file's bytes.
type Tree = buildfile.Tree

//go:embed cuda.bzl.tmpl
var cudaBzl string

// repo is one http_archive: one distinct archive (by sha256), whatever
// number of packages, CUDA versions and platforms it serves. It is a
// package of its own, repos/<name>, so target names never clash between
// archives.
type repo struct {
	name     string
	manifest string // the package's name in its manifest: the top target
	archive  pkgset.Archive
	files    map[pkgset.File]bool
	// deps and runtime are the package's edges, by their names in the hub:
	// linked libraries, and libraries loaded at run time.
	deps, runtime map[string]bool
}

// use is what the hub's alias for one package maps one (CUDA version,
// target platform) to: a repository, or the reasons there is none.
type use struct {
	repo    *repo
	reasons []string
}

type generator struct {
	opts     Options
	sets     []*pkgset.Set
	targets  []platform.Platform
	repos    map[string]*repo // by sha256
	byName   map[string]*repo
	packages map[string]map[string]use // package -> key(version, platform) -> use
	tree     Tree
}

// Generate builds the cell's files from the configuration and the package
// sets (after the fixup plugins: Files are what the archives' BUCK files
// export).
func Generate(cfg *config.Config, sets []*pkgset.Set, opts Options) (Tree, error) {
	if opts.Name == "" {
		opts.Name = "cuda"
	}
	if !labelSafe(opts.Name) {
		return nil, fmt.Errorf("cell name %q: expected letters, digits and _, not starting with a digit", opts.Name)
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("no package sets: nothing to generate")
	}
	g := &generator{opts: opts, targets: cfg.Targets(), repos: map[string]*repo{}, byName: map[string]*repo{},
		packages: map[string]map[string]use{}, tree: Tree{}}
	g.sets = append(g.sets, sets...)
	sort.Slice(g.sets, func(i, j int) bool { return g.sets[i].CUDA.Less(g.sets[j].CUDA) })
	for i := 1; i < len(g.sets); i++ {
		if g.sets[i].CUDA.Equal(g.sets[i-1].CUDA) {
			return nil, fmt.Errorf("two package sets for CUDA %s", g.sets[i].CUDA)
		}
	}
	if err := g.collect(); err != nil {
		return nil, err
	}
	for _, r := range g.sortedRepos() {
		g.repoBuck(r)
	}
	g.platforms(cfg)
	g.hub()
	g.unusable()
	if err := g.rules(); err != nil {
		return nil, err
	}
	if g.opts.Toolchain.Compiler != "" {
		g.toolchain(cfg)
	}
	return g.tree, nil
}

func key(v version.Version, p platform.Platform) string { return v.String() + " " + p.Name() }

// collect finds the distinct archives and, per package, what serves each
// (CUDA version, platform).
func (g *generator) collect() error {
	for _, s := range g.sets {
		for _, pkg := range s.Packages {
			uses := g.packages[pkg.Name]
			if uses == nil {
				uses = map[string]use{}
				g.packages[pkg.Name] = uses
			}
			for _, t := range g.targets {
				a, ok := pkg.Platforms[t.Name()]
				reasons := pkg.Unavailable[t.Name()]
				if !ok || len(reasons) > 0 {
					if len(reasons) == 0 {
						reasons = []string{fmt.Sprintf("no archive of %s %s serves %s", pkg.Manifest, pkg.Version, t.Name())}
					}
					uses[key(s.CUDA, t)] = use{reasons: reasons}
					continue
				}
				r, err := g.repo(pkg, a)
				if err != nil {
					return fmt.Errorf("CUDA %s: %s on %s: %w", s.CUDA, pkg.Name, t.Name(), err)
				}
				for _, f := range pkg.Files[t.Name()] {
					r.files[f] = true
				}
				for _, d := range pkg.Deps {
					if len(d.Platforms) > 0 && !slices.Contains(d.Platforms, t.Name()) {
						continue
					}
					if d.Runtime {
						r.runtime[d.Name] = true
					} else {
						r.deps[d.Name] = true
					}
				}
				uses[key(s.CUDA, t)] = use{repo: r}
			}
		}
	}
	return nil
}

func (g *generator) repo(pkg *pkgset.Package, a pkgset.Archive) (*repo, error) {
	if a.SHA256 == "" {
		return nil, fmt.Errorf("archive %s has no sha256", a.RelativePath)
	}
	if len(a.URLs) == 0 {
		return nil, fmt.Errorf("archive %s has no URL", a.RelativePath)
	}
	if r, ok := g.repos[a.SHA256]; ok {
		if r.manifest != pkg.Manifest {
			return nil, fmt.Errorf("archive %s (sha256 %s) serves both %s and %s", a.RelativePath, a.SHA256, r.manifest, pkg.Manifest)
		}
		return r, nil
	}
	name := repoName(pkg, a)
	if other, ok := g.byName[name]; ok {
		return nil, fmt.Errorf("two different archives would both be package //repos/%s: %s (sha256 %s) and %s (sha256 %s)",
			name, other.archive.RelativePath, other.archive.SHA256, a.RelativePath, a.SHA256)
	}
	r := &repo{name: name, manifest: pkg.Manifest, archive: a, files: map[pkgset.File]bool{}, deps: map[string]bool{}, runtime: map[string]bool{}}
	g.repos[a.SHA256] = r
	g.byName[name] = r
	return r, nil
}

// repoName is <manifest name>_<version>_<manifest key>[_<variant>], every
// part reduced to letters, digits and _. Unlike Bazel's repositories it
// needs no hub prefix: it names a package inside the cell.
func repoName(pkg *pkgset.Package, a pkgset.Archive) string {
	parts := []string{pkg.Manifest}
	if !pkg.Version.IsZero() {
		parts = append(parts, pkg.Version.String())
	}
	parts = append(parts, a.Key)
	if a.Variant != "" {
		parts = append(parts, a.Variant)
	}
	return sanitize(strings.Join(parts, "_"))
}

func sanitize(s string) string {
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

func labelSafe(s string) bool { return s != "" && sanitize(s) == s && !(s[0] >= '0' && s[0] <= '9') }

func (g *generator) sortedRepos() []*repo {
	out := make([]*repo, 0, len(g.byName))
	for _, r := range g.byName {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// put formats a file into the tree. Buck2 trees are a fraction of the
// Bazel ones' work (no per-archive .bzl), so no worker pool.
func (g *generator) put(f *build.File) { g.tree[f.Path] = buildfile.Format(f) }

// public is Buck2's visibility for everyone: BUCK files have no package()
// default, every target says it.
func public() buildfile.KV { return buildfile.Arg("visibility", buildfile.StrList([]string{"PUBLIC"})) }

// call is buildfile.Call with the visibility appended.
func call(fn string, vis buildfile.KV, args ...buildfile.KV) *build.CallExpr {
	return buildfile.Call(fn, append(args, vis)...)
}

var headerExt = map[string]bool{".h": true, ".hh": true, ".hpp": true, ".hxx": true, ".cuh": true, ".inc": true, ".inl": true}

func sortFiles(m map[pkgset.File]bool) []pkgset.File {
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

// repoBuck writes repos/<repo>/BUCK: the http_archive (target "archive",
// one sub-target per path the other targets use) and, from the plugins'
// file lists, prebuilt_cxx_library targets over those sub-targets.
func (g *generator) repoBuck(r *repo) {
	used := map[string]bool{"archive": true, r.manifest: true, "headers": true, "static": true, "stubs": true, "bin": true, "data": true}
	unique := func(base, suffix string) string {
		n := sanitizeTarget(base)
		if used[n] {
			n += "_" + suffix
		}
		for i := 2; used[n]; i++ {
			n = fmt.Sprintf("%s_%s%d", sanitizeTarget(base), suffix, i)
		}
		used[n] = true
		return n
	}
	sub := func(p string) string { return ":archive[" + p + "]" }
	var subTargets, hdrDirs, stubs, bins, data []string
	hdrFiles := map[string]string{} // include name -> sub-target
	var libs []build.Expr
	var shared, static []string
	for _, f := range sortFiles(r.files) {
		subTargets = append(subTargets, f.Path)
		switch f.Kind {
		case "headers":
			if headerExt[path.Ext(f.Path)] {
				// A single header is included by its name, as Bazel's
				// includes = [its folder] allows.
				hdrFiles[path.Base(f.Path)] = sub(f.Path)
			} else {
				hdrDirs = append(hdrDirs, sub(f.Path))
			}
		case "shared_lib":
			base := f.SONAME
			if base == "" {
				base = path.Base(f.Path)
			}
			n := unique(libBase(base), "shared")
			args := []buildfile.KV{buildfile.Arg("name", buildfile.Str(n)),
				buildfile.Arg("preferred_linkage", buildfile.Str("shared")),
				buildfile.Arg("shared_lib", buildfile.Str(sub(f.Path)))}
			if f.SONAME != "" {
				args = append(args, buildfile.Arg("soname", buildfile.Str(f.SONAME)))
			}
			libs = append(libs, call("prebuilt_cxx_library", public(), args...))
			if f.Role != "exec" {
				shared = append(shared, ":"+n)
			}
		case "static_lib":
			n := unique(libBase(path.Base(f.Path)), "static")
			libs = append(libs, call("prebuilt_cxx_library", public(),
				buildfile.Arg("name", buildfile.Str(n)),
				buildfile.Arg("preferred_linkage", buildfile.Str("static")),
				buildfile.Arg("static_lib", buildfile.Str(sub(f.Path)))))
			if f.Role != "exec" {
				static = append(static, ":"+n)
			}
		case "stub_lib":
			stubs = append(stubs, sub(f.Path))
		case "binary":
			bins = append(bins, sub(f.Path))
		default: // data, and kinds this generator does not know yet
			data = append(data, sub(f.Path))
		}
	}
	b := buildfile.NewFile("repos/"+r.name+"/BUCK", build.TypeBuild)
	args := []buildfile.KV{
		buildfile.Arg("name", buildfile.Str("archive")),
		buildfile.Arg("sha256", buildfile.Str(r.archive.SHA256)),
	}
	if r.archive.StripPrefix != "" {
		args = append(args, buildfile.Arg("strip_prefix", buildfile.Str(r.archive.StripPrefix)))
	}
	if len(subTargets) > 0 {
		args = append(args, buildfile.Arg("sub_targets", buildfile.SortedStrList(subTargets)))
	}
	// The prelude's http_archive downloads from exactly one URL (it fails
	// analysis on more): the first, a configured mirror when there is one.
	args = append(args, buildfile.Arg("urls", buildfile.StrList(r.archive.URLs[:1])))
	b.Stmt = append(b.Stmt, call("http_archive", public(), args...))

	hasHeaders := len(hdrDirs)+len(hdrFiles) > 0
	if hasHeaders {
		args := []buildfile.KV{buildfile.Arg("name", buildfile.Str("headers"))}
		if len(hdrFiles) > 0 {
			keys := slices.Sorted(maps.Keys(hdrFiles))
			vals := make([]build.Expr, len(keys))
			for i, k := range keys {
				vals[i] = buildfile.Str(hdrFiles[k])
			}
			args = append(args, buildfile.Arg("exported_headers", buildfile.Dict(keys, vals)))
		}
		if len(hdrDirs) > 0 {
			args = append(args, buildfile.Arg("header_dirs", buildfile.SortedStrList(hdrDirs)))
		}
		if len(hdrFiles) > 0 {
			// Without it the prelude prefixes exported header names with
			// the package path (repos/<repo>/...).
			args = append(args, buildfile.Arg("header_namespace", buildfile.Str("")))
		}
		args = append(args, buildfile.Arg("header_only", buildfile.Ident("True")))
		b.Stmt = append(b.Stmt, call("prebuilt_cxx_library", public(), args...))
	}
	for _, l := range libs {
		b.Stmt = append(b.Stmt, l)
	}
	// The package's own edges go through the hub, so they follow the same
	// CUDA version and platform as the package itself.
	hubLabels := func(names map[string]bool) []string {
		var out []string
		for _, n := range slices.Sorted(maps.Keys(names)) {
			out = append(out, "//:"+n)
		}
		return out
	}
	top := func(name string, exported []string, runtime []string) {
		if hasHeaders {
			exported = append([]string{":headers"}, exported...)
		}
		args := []buildfile.KV{buildfile.Arg("name", buildfile.Str(name))}
		// Runtime edges (libraries the package dlopen()s) are private deps:
		// Buck2 has no runfiles-only edge for a C++ library, and a dep puts
		// their shared libraries next to the binary without exporting
		// their headers.
		if len(runtime) > 0 {
			args = append(args, buildfile.Arg("deps", buildfile.StrList(runtime)))
		}
		if len(exported) > 0 {
			args = append(args, buildfile.Arg("exported_deps", buildfile.StrList(exported)))
		}
		args = append(args, buildfile.Arg("header_only", buildfile.Ident("True")))
		b.Stmt = append(b.Stmt, call("prebuilt_cxx_library", public(), args...))
	}
	top(r.manifest, append(slices.Clone(shared), hubLabels(r.deps)...), hubLabels(r.runtime))
	if len(static) > 0 {
		top("static", static, nil)
	}
	for _, fg := range []struct {
		name string
		srcs []string
	}{{"stubs", stubs}, {"bin", bins}, {"data", data}} {
		if len(fg.srcs) > 0 {
			b.Stmt = append(b.Stmt, call("filegroup", public(), buildfile.Arg("name", buildfile.Str(fg.name)), buildfile.Arg("srcs", buildfile.SortedStrList(fg.srcs))))
		}
	}
	g.put(b)
}

// libBase is a library's name without .so and what follows it, or without
// its extension: libfoo.so.12 -> libfoo, libfoo_static.a -> libfoo_static.
func libBase(name string) string {
	if i := strings.Index(name, ".so"); i > 0 {
		return name[:i]
	}
	return strings.TrimSuffix(name, path.Ext(name))
}

// sanitizeTarget keeps the characters a target name may hold without
// quoting surprises.
func sanitizeTarget(s string) string {
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

// platformTarget is the name of a platform in //platforms.
func platformTarget(p platform.Platform) string { return strings.ReplaceAll(p.Name(), "-", "_") }

// versionValue is the name of a CUDA version's constraint_value in
// //platforms (cuda_12_4_1): underscores, since a dot in a target name
// reads as a file name in Buck2's messages and patterns.
func versionValue(v version.Version) string { return "cuda_" + v.Underscored(v.Parts()) }

// cpuConstraint maps a cudapkgs CPU to the prelude's constraint value; the
// prelude has no ppc64le, so the cell adds one to the prelude's cpu setting.
func cpuConstraint(cpu string) string {
	switch cpu {
	case "x86_64":
		return "config//cpu/constraints:x86_64"
	case "aarch64":
		return "config//cpu/constraints:arm64"
	}
	return "//platforms:" + sanitize(cpu)
}

// constraints are a platform's constraint values, the aarch64 flavour
// included.
func constraints(p platform.Platform) []string {
	out := []string{"config//os/constraints:" + p.OS, cpuConstraint(p.CPU)}
	if p.Flavour != platform.FlavourNone {
		out = append(out, "//platforms:"+string(p.Flavour))
	}
	return out
}

// platformList is linux-x86_64, linux-sbsa, linux-jetson and every other
// target, sorted.
func (g *generator) platformList() []platform.Platform {
	ps := append([]platform.Platform{platform.LinuxX86_64, platform.LinuxSBSA, platform.LinuxJetson}, g.targets...)
	platform.Sort(ps)
	var out []platform.Platform
	for _, p := range ps {
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

// defaultVersion is the CUDA version the plain platforms carry: the newest
// configured one, as Bazel's --@cuda//:version defaults to.
func (g *generator) defaultVersion(cfg *config.Config) version.Version {
	if cs := cfg.CUDA(); len(cs) > 0 {
		return cs[len(cs)-1]
	}
	return g.sets[len(g.sets)-1].CUDA
}

// platforms writes platforms/BUCK: the aarch64 flavour, the CUDA version
// setting with one value per generated version, and platforms: per target
// one with the default CUDA version and one per CUDA version.
func (g *generator) platforms(cfg *config.Config) {
	f := buildfile.NewFile("platforms/BUCK", build.TypeBuild)
	f.Stmt = append(f.Stmt,
		call("constraint_setting", public(), buildfile.Arg("name", buildfile.Str("aarch64_flavour"))),
		call("constraint_value", public(), buildfile.Arg("name", buildfile.Str("server")), buildfile.Arg("constraint_setting", buildfile.Str(":aarch64_flavour"))),
		call("constraint_value", public(), buildfile.Arg("name", buildfile.Str("jetson")), buildfile.Arg("constraint_setting", buildfile.Str(":aarch64_flavour"))),
		call("constraint_setting", public(), buildfile.Arg("name", buildfile.Str("cuda_version"))))
	for _, s := range g.sets {
		f.Stmt = append(f.Stmt, call("constraint_value", public(), buildfile.Arg("name", buildfile.Str(versionValue(s.CUDA))), buildfile.Arg("constraint_setting", buildfile.Str(":cuda_version"))))
	}
	ps := g.platformList()
	cpus := map[string]bool{}
	for _, p := range ps {
		if c := cpuConstraint(p.CPU); strings.HasPrefix(c, "//platforms:") {
			cpus[p.CPU] = true
		}
	}
	for _, c := range slices.Sorted(maps.Keys(cpus)) {
		f.Stmt = append(f.Stmt, call("constraint_value", public(), buildfile.Arg("name", buildfile.Str(sanitize(c))), buildfile.Arg("constraint_setting", buildfile.Str("config//cpu/constraints:cpu"))))
	}
	def := g.defaultVersion(cfg)
	for _, p := range ps {
		f.Stmt = append(f.Stmt, call("platform", public(), buildfile.Arg("name", buildfile.Str(platformTarget(p))),
			buildfile.Arg("constraint_values", buildfile.StrList(append(local(constraints(p)), ":"+versionValue(def))))))
		for _, s := range g.sets {
			f.Stmt = append(f.Stmt, call("platform", public(), buildfile.Arg("name", buildfile.Str(platformTarget(p)+"_"+versionValue(s.CUDA))),
				buildfile.Arg("constraint_values", buildfile.StrList(append(local(constraints(p)), ":"+versionValue(s.CUDA))))))
		}
	}
	g.put(f)
}

// local shortens labels of //platforms for use inside it.
func local(labels []string) []string {
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = strings.Replace(l, "//platforms:", ":", 1)
	}
	return out
}

func configSetting(v version.Version, p platform.Platform) string {
	return versionValue(v) + "_" + platformTarget(p)
}

func unusableTarget(pkg string, v version.Version, p platform.Platform) string {
	return pkg + "_" + v.Underscored(v.Parts()) + "_" + platformTarget(p)
}

func (g *generator) versions() []string {
	var out []string
	for _, s := range g.sets {
		out = append(out, s.CUDA.String())
	}
	return out
}

// hub writes the root BUCK: a config_setting per (CUDA version, target
// platform) and an alias per package.
func (g *generator) hub() {
	f := buildfile.NewFile("BUCK", build.TypeBuild)
	for _, s := range g.sets {
		for _, t := range g.targets {
			f.Stmt = append(f.Stmt, call("config_setting", public(),
				buildfile.Arg("name", buildfile.Str(configSetting(s.CUDA, t))),
				buildfile.Arg("constraint_values", buildfile.StrList(append(constraints(t), "//platforms:"+versionValue(s.CUDA))))))
		}
	}
	for _, name := range g.packageNames() {
		uses := g.packages[name]
		var keys []string
		var vals []build.Expr
		for _, s := range g.sets {
			for _, t := range g.targets {
				keys = append(keys, ":"+configSetting(s.CUDA, t))
				if u, ok := uses[key(s.CUDA, t)]; ok && u.repo != nil {
					vals = append(vals, buildfile.Str("//repos/"+u.repo.name+":"+u.repo.manifest))
				} else {
					vals = append(vals, buildfile.Str("//unusable:"+unusableTarget(name, s.CUDA, t)))
				}
			}
		}
		keys = append(keys, "DEFAULT")
		vals = append(vals, buildfile.Str("//unusable:"+name))
		f.Stmt = append(f.Stmt, call("alias", public(),
			buildfile.Arg("name", buildfile.Str(name)),
			buildfile.Arg("actual", buildfile.Positional("select", buildfile.Dict(keys, vals)))))
	}
	g.put(f)
}

func (g *generator) packageNames() []string { return slices.Sorted(maps.Keys(g.packages)) }

// unusable writes unusable/BUCK: one failing target per package and (CUDA
// version, platform) it cannot be used for, with the reasons core/bazel
// gives, and one per package for a configuration that matches no (CUDA
// version, platform).
func (g *generator) unusable() {
	f := buildfile.NewFile("unusable/BUCK", build.TypeBuild)
	f.Stmt = append(f.Stmt, buildfile.Load("//rules:cuda.bzl", "unusable"))
	// Only the cell's own aliases point here.
	vis := buildfile.Arg("visibility", buildfile.StrList([]string{"//..."}))
	cell := g.opts.Name
	var platformLabels []string
	for _, t := range g.targets {
		platformLabels = append(platformLabels, cell+"//platforms:"+platformTarget(t))
	}
	var values []string
	for _, s := range g.sets {
		values = append(values, cell+"//platforms:"+versionValue(s.CUDA))
	}
	for _, name := range g.packageNames() {
		uses := g.packages[name]
		var usable []string
		for _, s := range g.sets {
			for _, t := range g.targets {
				u, ok := uses[key(s.CUDA, t)]
				if ok && u.repo != nil {
					usable = append(usable, s.CUDA.String()+" on "+t.Name())
					continue
				}
				var msg string
				if !ok {
					msg = fmt.Sprintf("%s//:%s cannot be used with CUDA %s on %s: there is no package %s in the CUDA %s package set",
						cell, name, s.CUDA, t.Name(), name, s.CUDA)
				} else {
					msg = fmt.Sprintf("%s//:%s cannot be used with CUDA %s on %s: %s",
						cell, name, s.CUDA, t.Name(), strings.Join(u.reasons, "; "))
				}
				f.Stmt = append(f.Stmt, call("unusable", vis, buildfile.Arg("name", buildfile.Str(unusableTarget(name, s.CUDA, t))), buildfile.Arg("message", buildfile.Str(msg))))
			}
		}
		where := "it is usable nowhere"
		if len(usable) > 0 {
			where = "it is usable with CUDA " + strings.Join(usable, ", ")
		}
		msg := fmt.Sprintf("%s//:%s: the configuration matches no CUDA version and target platform this cell was generated for (it must carry one of %s and the constraints of one of %s); %s",
			cell, name, strings.Join(values, ", "), strings.Join(platformLabels, ", "), where)
		f.Stmt = append(f.Stmt, call("unusable", vis, buildfile.Arg("name", buildfile.Str(name)), buildfile.Arg("message", buildfile.Str(msg))))
	}
	g.put(f)
}

// rules writes rules/cuda.bzl from the template, with the cell's name and
// runtime library filled in, parsed and printed as buildifier would.
func (g *generator) rules() error {
	runtime := ""
	if g.opts.Toolchain.Runtime != "" {
		runtime = strconv.Quote(g.opts.Name + "//:" + g.opts.Toolchain.Runtime)
	}
	src := strings.NewReplacer("{{CELL}}", g.opts.Name, "{{RUNTIME}}", runtime).Replace(cudaBzl)
	f, err := build.ParseBzl("rules/cuda.bzl", []byte(src))
	if err != nil {
		return fmt.Errorf("rules/cuda.bzl template: %w", err)
	}
	b := append([]byte(buildfile.Header+"\n"), build.Format(f)...)
	g.tree["rules/cuda.bzl"] = b
	return nil
}

// hasFile reports whether a repository's file list has the path.
func (r *repo) hasFile(p string) bool {
	for f := range r.files {
		if f.Path == p {
			return true
		}
	}
	return false
}

// hasHeaders reports whether a repository's BUCK file has :headers.
func (r *repo) hasHeaders() bool {
	for f := range r.files {
		if f.Kind == "headers" {
			return true
		}
	}
	return false
}

// execPlatforms are the targets that can run nvcc (Linux), sorted.
func (g *generator) execPlatforms() []platform.Platform {
	var out []platform.Platform
	for _, t := range g.targets {
		if t.OS == "linux" {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// toolchain writes toolchain/BUCK. nvcc is a cuda_tool per (CUDA version,
// exec platform with a compiler archive holding bin/nvcc); nvcc_<version>
// selects among them on the execution platform's constraints, for
// attrs.exec_dep and $(exe ...). The cuda_toolchain "cuda" selects, in the
// target configuration, the CUDA version's nvcc_<version> (configured for
// the execution platform, since it is an exec_dep), the target's headers
// and its -gencode flags.
func (g *generator) toolchain(cfg *config.Config) {
	f := buildfile.NewFile("toolchain/BUCK", build.TypeBuild)
	f.Stmt = append(f.Stmt, nil) // the load, once it is known whether cuda_tool is used
	compiler := g.opts.Toolchain.Compiler
	cell := g.opts.Name
	execs := g.execPlatforms()
	for _, t := range execs {
		f.Stmt = append(f.Stmt, call("config_setting", public(),
			buildfile.Arg("name", buildfile.Str("exec_"+platformTarget(t))),
			buildfile.Arg("constraint_values", buildfile.StrList(constraints(t)))))
	}
	private := buildfile.Arg("visibility", buildfile.StrList([]string{"//..."}))
	var nvccKeys []string
	var nvccVals []build.Expr
	tools := false
	for _, s := range g.sets {
		v := s.CUDA.Underscored(s.CUDA.Parts())
		var keys, where []string
		var vals []build.Expr
		for _, t := range execs {
			u, ok := g.packages[compiler][key(s.CUDA, t)]
			if !ok || u.repo == nil || !u.repo.hasFile("bin/nvcc") {
				continue
			}
			name := "nvcc_" + v + "_" + platformTarget(t)
			tools = true
			f.Stmt = append(f.Stmt, call("cuda_tool", public(),
				buildfile.Arg("name", buildfile.Str(name)),
				buildfile.Arg("archive", buildfile.Str("//repos/"+u.repo.name+":archive")),
				buildfile.Arg("path", buildfile.Str("bin/nvcc"))))
			keys = append(keys, ":exec_"+platformTarget(t))
			vals = append(vals, buildfile.Str(":"+name))
			where = append(where, t.Name()+" ("+strings.Join(withCell(cell, constraints(t)), ", ")+")")
		}
		missing := "nvcc_" + v + "_unavailable"
		msg := fmt.Sprintf("%s//toolchain:nvcc_%s: no nvcc of CUDA %s runs on this execution platform; ", cell, v, s.CUDA)
		if len(where) == 0 {
			msg += fmt.Sprintf("%s has no nvcc for CUDA %s on any of the generated platforms", compiler, s.CUDA)
		} else {
			msg += "an execution platform needs the constraints of one of " + strings.Join(where, ", ")
		}
		f.Stmt = append(f.Stmt, call("unusable", private, buildfile.Arg("name", buildfile.Str(missing)), buildfile.Arg("message", buildfile.Str(msg))))
		f.Stmt = append(f.Stmt, call("alias", public(),
			buildfile.Arg("name", buildfile.Str("nvcc_"+v)),
			buildfile.Arg("actual", buildfile.Positional("select", buildfile.Dict(append(keys, "DEFAULT"), append(vals, buildfile.Str(":"+missing)))))))
		nvccKeys = append(nvccKeys, "//platforms:"+versionValue(s.CUDA))
		nvccVals = append(nvccVals, buildfile.Str(":nvcc_"+v))
	}

	// Per (CUDA version, target platform): version, headers, -gencode.
	var tKeys, vKeys []string
	var hVals, gVals, vVals []build.Expr
	for _, s := range g.sets {
		var headerPkgs []string
		if g.opts.Toolchain.Headers != nil {
			headerPkgs = g.opts.Toolchain.Headers(s.CUDA)
		}
		for _, t := range g.targets {
			var dirs []string
			for _, p := range headerPkgs {
				u, ok := g.packages[p][key(s.CUDA, t)]
				switch {
				case ok && u.repo != nil && u.repo.hasHeaders():
					for _, f := range sortFiles(u.repo.files) {
						if f.Kind == "headers" && !headerExt[path.Ext(f.Path)] {
							dirs = append(dirs, "//repos/"+u.repo.name+":archive["+f.Path+"]")
						}
					}
				case ok && u.repo == nil:
					dirs = append(dirs, "//unusable:"+unusableTarget(p, s.CUDA, t)) // fails with the reasons
				}
			}
			tKeys = append(tKeys, "//:"+configSetting(s.CUDA, t))
			hVals = append(hVals, buildfile.StrList(dirs))
			gVals = append(gVals, buildfile.StrList(gpu.Gencode(cfg.Capabilities(s.CUDA, t), cfg.ForwardCompat())))
		}
		vKeys = append(vKeys, "//platforms:"+versionValue(s.CUDA))
		vVals = append(vVals, buildfile.Str(s.CUDA.String()))
	}
	withDefault := func(keys []string, vals []build.Expr, def build.Expr) build.Expr {
		return buildfile.Positional("select", buildfile.Dict(append(slices.Clone(keys), "DEFAULT"), append(slices.Clone(vals), def)))
	}
	noVersion := "nvcc_unavailable"
	f.Stmt = append(f.Stmt, call("unusable", private,
		buildfile.Arg("name", buildfile.Str(noVersion)),
		buildfile.Arg("message", buildfile.Str(fmt.Sprintf("%s//toolchain:cuda: the target platform carries none of the CUDA versions this cell was generated for (%s)",
			cell, strings.Join(withCell(cell, nvccKeys), ", "))))))
	var headersDefault build.Expr = &build.ListExpr{}
	if rt := g.opts.Toolchain.Runtime; rt != "" {
		if _, ok := g.packages[rt]; ok {
			headersDefault = buildfile.StrList([]string{"//unusable:" + rt})
		}
	}
	f.Stmt = append(f.Stmt, call("cuda_toolchain", public(),
		buildfile.Arg("name", buildfile.Str("cuda")),
		buildfile.Arg("cuda_version", withDefault(vKeys, vVals, buildfile.Str(""))),
		buildfile.Arg("gencode", withDefault(tKeys, gVals, &build.ListExpr{})),
		buildfile.Arg("include_dirs", withDefault(tKeys, hVals, headersDefault)),
		buildfile.Arg("nvcc", withDefault(nvccKeys, nvccVals, buildfile.Str(":"+noVersion)))))
	// buildifier rejects unused loads: cuda_tool only where some platform
	// has an nvcc.
	symbols := []string{"cuda_toolchain", "unusable"}
	if tools {
		symbols = []string{"cuda_tool", "cuda_toolchain", "unusable"}
	}
	f.Stmt[1] = buildfile.Load("//rules:cuda.bzl", symbols...)
	g.put(f)
}

// withCell qualifies the cell's own labels (//x:y) for messages.
func withCell(cell string, labels []string) []string {
	out := make([]string, len(labels))
	for i, l := range labels {
		if strings.HasPrefix(l, "//") {
			l = cell + l
		}
		out[i] = l
	}
	return out
}

// Lint checks the generated files as buildifier would (buildfile.Lint).
func Lint(tree Tree) []string { return buildfile.Lint(tree) }
