package bazel

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bazelbuild/buildtools/build"

	"github.com/cudapkgs/cudapkgs/core/archives"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/rules"
)

// The repository's setup is split in two: what was generated is data
// (generated.bzl), and one Starlark implementation (//rules:setup.bzl,
// copied from rules/) turns it into repositories for both entry points,
// the WORKSPACE macro (repositories.bzl) and the module extension
// (extensions.bzl). So WORKSPACE and bzlmod users get the same settings
// with the same checks and messages.

// repositories writes repositories.bzl, the WORKSPACE entry point, and
// repos/BUILD.bazel, which exports the archives' BUILD files.
func (g *generator) repositories() {
	f := buildfile.NewFile("repositories.bzl", build.TypeBzl)
	macro := g.opts.Name + "_repositories"
	f.Stmt = append(f.Stmt,
		buildfile.Docstring("WORKSPACE: "+macro+"() declares the archives behind @"+g.opts.Name+" (see //rules:setup.bzl for its arguments)."),
		&build.LoadStmt{Module: buildfile.Str("//rules:setup.bzl"), From: []*build.Ident{buildfile.Ident("cuda_repositories")},
			To: []*build.Ident{buildfile.Ident("_cuda_repositories")}, ForceCompact: true},
		&build.AssignExpr{LHS: buildfile.Ident(macro), Op: "=", RHS: buildfile.Ident("_cuda_repositories")})
	g.put(f)

	var files []string
	for _, r := range g.ix.Archives() {
		files = append(files, r.Name+".BUILD")
	}
	b := buildfile.NewFile("repos/BUILD.bazel", build.TypeBuild)
	if len(files) > 0 {
		b.Stmt = append(b.Stmt, buildfile.Positional("exports_files", buildfile.SortedStrList(files)))
	}
	g.put(b)
}

// The bazel_dep floors of the generated module: what Bazel 9 needs, where
// the C++ rules, CcInfo and cc_common are rules_cc's alone (Bazel 9.0.0's
// own bazel_tools asks for rules_cc 0.2.14; 0.2.x is the line that carries
// the Starlark C++ rules), and platforms 1.0.0, its first stable release.
// Minimal version selection lets a root module's newer releases win; an
// override (Debian's copies, --override_module) replaces them outright,
// which is how the offline tiers run them on Bazel 7 (docs/bazel.md).
const (
	RulesCCVersion   = "0.2.14"
	PlatformsVersion = "1.0.0"
)

// module writes MODULE.bazel: the generated repository is a Bazel module
// too. Its own use_repo lists every archive (the hub's aliases point at
// them); a user's MODULE.bazel needs none.
func (g *generator) module() {
	f := buildfile.NewFile("MODULE.bazel", build.TypeBuild)
	repos := []string{g.opts.Name + "_config"}
	for _, r := range g.ix.Archives() {
		repos = append(repos, r.Name)
	}
	use := &build.CallExpr{X: buildfile.Ident("use_repo"), List: []build.Expr{buildfile.Ident("cuda")}, ForceMultiLine: true}
	for _, r := range repos {
		use.List = append(use.List, buildfile.Str(r))
	}
	f.Stmt = append(f.Stmt,
		buildfile.Call("module", buildfile.Arg("name", buildfile.Str(g.opts.Name))),
		buildfile.Call("bazel_dep", buildfile.Arg("name", buildfile.Str("platforms")), buildfile.Arg("version", buildfile.Str(PlatformsVersion))),
		buildfile.Call("bazel_dep", buildfile.Arg("name", buildfile.Str("rules_cc")), buildfile.Arg("version", buildfile.Str(RulesCCVersion))),
		&build.AssignExpr{LHS: buildfile.Ident("cuda"), Op: "=", RHS: buildfile.Positional("use_extension", buildfile.Str("//:extensions.bzl"), buildfile.Str("cuda"))},
		use,
		buildfile.Positional("register_toolchains", buildfile.Str("//toolchain:all")))
	g.put(f)
}

// generatedData writes generated.bzl: everything //rules:setup.bzl needs
// to know about what was generated.
func (g *generator) generatedData(cfg *config.Config) {
	f := buildfile.NewFile("generated.bzl", build.TypeBzl)
	assign := func(name string, v build.Expr) {
		f.Stmt = append(f.Stmt, &build.AssignExpr{LHS: buildfile.Ident(name), Op: "=", RHS: v})
	}
	f.Stmt = append(f.Stmt, buildfile.Docstring("What cudapkgs generate wrote into @"+g.opts.Name+": data for //rules:setup.bzl."))
	assign("NAME", buildfile.Str(g.opts.Name))
	assign("VERSIONS", buildfile.StrList(g.ix.Versions()))
	assign("DEFAULT_VERSION", buildfile.Str(g.ix.DefaultVersion(cfg.CUDA()).String()))
	var plats []string
	for _, t := range g.targets {
		plats = append(plats, t.Name())
	}
	assign("PLATFORMS", buildfile.SortedStrList(plats))
	// Empty: the -gencode defaults generated per CUDA version and platform.
	assign("CAPABILITIES", &build.ListExpr{})
	assign("LOCAL", g.localData())
	g.localSearchData(assign)

	var hcKeys []string
	var hcVals []build.Expr
	for _, s := range g.sets {
		hc, err := gpu.HostCompilersFor(s.CUDA)
		if err != nil {
			continue
		}
		hcKeys = append(hcKeys, s.CUDA.String())
		hcVals = append(hcVals, buildfile.Dict([]string{"clang", "gcc"}, []build.Expr{intPair(hc.ClangMin, hc.ClangMax), intPair(hc.GCCMin, hc.GCCMax)}))
	}
	assign("HOST_COMPILERS", buildfile.Dict(hcKeys, hcVals))

	// What the generation tolerated, per CUDA version (facts extrapolated
	// past cudapkgs' tables, packages served from the conventional layout):
	// kept in the hub so that whoever reads the committed files sees it.
	var wKeys []string
	var wVals []build.Expr
	for _, s := range g.sets {
		if len(s.Warnings) > 0 {
			wKeys = append(wKeys, s.CUDA.String())
			wVals = append(wVals, buildfile.StrList(s.Warnings))
		}
	}
	assign("WARNINGS", buildfile.Dict(wKeys, wVals))

	pinnable := g.pinnable
	var pKeys []string
	var pVals []build.Expr
	for _, product := range slices.Sorted(maps.Keys(pinnable)) {
		p := pinnable[product]
		var rKeys []string
		var rVals []build.Expr
		for _, s := range g.sets {
			if rs, ok := p.releases[s.CUDA.String()]; ok {
				rKeys = append(rKeys, s.CUDA.String())
				rVals = append(rVals, buildfile.StrList(rs))
			}
		}
		pKeys = append(pKeys, product)
		pVals = append(pVals, buildfile.Dict([]string{"packages", "releases"}, []build.Expr{buildfile.SortedStrList(p.packages), buildfile.Dict(rKeys, rVals)}))
	}
	assign("PINNABLE", buildfile.Dict(pKeys, pVals))

	searchable := g.localSearchable()
	var aKeys []string
	var aVals []build.Expr
	for _, r := range g.ix.Archives() {
		aKeys = append(aKeys, r.Name)
		keys := []string{"component", "cuda"}
		vals := []build.Expr{buildfile.Str(r.Manifest), buildfile.StrList(r.CUDAVersions())}
		if searchable[r.Archive.SHA256] {
			deps, files := localArchiveData(r)
			keys = append(keys, "deps", "files")
			vals = append(vals, deps, files)
		}
		keys = append(keys, "key")
		vals = append(vals, buildfile.Str(r.Archive.Key))
		if len(r.Merged) > 0 {
			// Unpacked into this repository too (cuda_archive in setup.bzl).
			var names []string
			for _, m := range r.Merged {
				names = append(names, m.Name)
			}
			keys = append(keys, "merge")
			vals = append(vals, buildfile.StrList(names))
		}
		keys = append(keys, "mirror_path")
		vals = append(vals, buildfile.Str(r.Archive.MirrorPath))
		if len(r.Patches) > 0 {
			keys = append(keys, "patches")
			vals = append(vals, patchList(r.Patches))
		}
		keys = append(keys, "platforms", "sha256", "strip_prefix", "targets")
		vals = append(vals,
			buildfile.SortedStrList(slices.Collect(maps.Keys(r.Platforms))),
			buildfile.Str(r.Archive.SHA256),
			buildfile.Str(r.Archive.StripPrefix),
			buildfile.SortedStrList(g.buildTargets[r.Name]))
		if r.Archive.Type != "" {
			// A wheel, which Bazel does not know by its .whl name.
			keys = append(keys, "type")
			vals = append(vals, buildfile.Str(r.Archive.Type))
		}
		keys = append(keys, "urls", "version")
		vals = append(vals,
			buildfile.StrList(r.Archive.URLs), // mirrors first: keep the order
			buildfile.Str(r.Version.String()))
		aVals = append(aVals, buildfile.Dict(keys, vals))
	}
	assign("ARCHIVES", buildfile.Dict(aKeys, aVals))
	g.put(f)
}

// patchList is an archive's patches in name order, each {"name", "why",
// "edits": [[path, old, new], ...]}, as cuda_archive applies them.
func patchList(patches map[string]pkgset.Patch) *build.ListExpr {
	out := &build.ListExpr{ForceMultiLine: true}
	for _, n := range slices.Sorted(maps.Keys(patches)) {
		p := patches[n]
		edits := &build.ListExpr{ForceMultiLine: true}
		for _, e := range p.Edits {
			edits.List = append(edits.List, buildfile.StrList([]string{e.Path, e.Old, e.New}))
		}
		out.List = append(out.List, buildfile.Dict([]string{"edits", "name", "why"}, []build.Expr{edits, buildfile.Str(p.Name), buildfile.Str(p.Why)}))
	}
	return out
}

func intPair(a, b int) *build.ListExpr {
	return &build.ListExpr{List: []build.Expr{&build.LiteralExpr{Token: strconv.Itoa(a)}, &build.LiteralExpr{Token: strconv.Itoa(b)}}}
}

// localData is LOCAL: the installed CUDA generation read, per archive it
// replaces, the install's file for each of the archive's paths.
func (g *generator) localData() build.Expr {
	l := g.opts.Local.Install
	if l == nil || len(l.Archives) == 0 {
		return &build.DictExpr{}
	}
	var names, comps []string
	var vals []build.Expr
	for _, r := range g.ix.Archives() {
		files, ok := l.Archives[r.Archive.SHA256]
		if !ok {
			continue
		}
		names = append(names, r.Name)
		if !slices.Contains(comps, r.Manifest) {
			comps = append(comps, r.Manifest)
		}
		var fk []string
		var fv []build.Expr
		for _, rel := range slices.Sorted(maps.Keys(files)) {
			fk = append(fk, rel)
			fv = append(fv, buildfile.Str(files[rel]))
		}
		vals = append(vals, buildfile.Dict(fk, fv))
	}
	return buildfile.Dict([]string{"archives", "components", "path"},
		[]build.Expr{buildfile.Dict(names, vals), buildfile.SortedStrList(comps), buildfile.Str(l.Path)})
}

// localSearchData writes what the module extension needs to read an
// installed CUDA at Bazel time the way generation does (rules/local.bzl):
// the layout table itself (one table, so the two readers cannot drift),
// the version hints, the components that identify a release, and the
// components the toolchain cannot do without.
func (g *generator) localSearchData(assign func(string, build.Expr)) {
	layouts, err := build.ParseBzl("layouts.bzl", []byte("X = "+localcuda.Starlark(localcuda.Layouts())))
	if err != nil {
		// The table is a constant of the core: a syntax error is a bug.
		panic(fmt.Sprintf("localcuda.Starlark: %v", err))
	}
	assign("LOCAL_LAYOUTS", layouts.Stmt[0].(*build.AssignExpr).RHS)
	var hints []build.Expr
	for _, h := range g.opts.Local.Hints {
		hints = append(hints, buildfile.Dict([]string{"component", "key", "kind", "rel"},
			[]build.Expr{buildfile.Str(h.Component), buildfile.Str(h.Key), buildfile.Str(h.Kind), buildfile.Str(h.Rel)}))
	}
	assign("LOCAL_HINTS", &build.ListExpr{List: hints, ForceMultiLine: len(hints) > 0})
	assign("LOCAL_IDENTIFY", buildfile.StrList(g.opts.Local.Identify))
	// The redist layout's folder names hold the platform key, itself with a
	// '-': it is found by name, as localcuda does.
	assign("LOCAL_PLATFORM_KEYS", buildfile.StrList(manifest.PlatformKeys()))
	var required []string
	for _, c := range []string{g.opts.Toolchain.Compiler, g.opts.Toolchain.Runtime} {
		if c != "" && !slices.Contains(required, c) {
			required = append(required, c)
		}
	}
	assign("LOCAL_REQUIRED", buildfile.StrList(required))
}

// localSearchable returns the sha256 of the archives an install can stand
// in for: the toolkit product's, on Linux platforms (installs are Linux
// only), under their manifest names (a versioned name is another
// product's).
func (g *generator) localSearchable() map[string]bool {
	out := map[string]bool{}
	if g.opts.Local.Product == "" {
		return out
	}
	for _, s := range g.sets {
		for _, pkg := range s.Packages {
			if pkg.Product != g.opts.Local.Product || pkg.Name != pkg.Manifest {
				continue
			}
			for p, a := range pkg.Platforms {
				if strings.HasPrefix(p, "linux-") {
					out[a.SHA256] = true
				}
			}
		}
	}
	return out
}

// localArchiveData is an archive's edges (linked and loaded at run time
// alike: an install's component should not depend on a download of one the
// install has) and its files, path -> kind, for the extension's search.
func localArchiveData(r *archives.Archive) (deps, files build.Expr) {
	var names []string
	for d := range r.Deps {
		names = append(names, d)
	}
	for d := range r.Runtime {
		if !slices.Contains(names, d) {
			names = append(names, d)
		}
	}
	var fk []string
	var fv []build.Expr
	for _, f := range r.SortedFiles() {
		if slices.Contains(fk, f.Path) {
			continue
		}
		fk = append(fk, f.Path)
		fv = append(fv, buildfile.Str(string(f.Kind)))
	}
	return buildfile.SortedStrList(names), buildfile.Dict(fk, fv)
}

type pinnableProduct struct {
	packages []string
	releases map[string][]string // CUDA version -> major.minor releases with versioned names
}

// pinnable finds the products that have versioned names (libfoo_8_9): their
// default names can be pinned to one of them when the repositories are
// declared. Generate computes it once; the hub and generated.bzl read it.
func pinnable(sets []*pkgset.Set) map[string]*pinnableProduct {
	out := map[string]*pinnableProduct{}
	for _, s := range sets {
		for _, pkg := range s.Packages {
			if pkg.Name == pkg.Manifest || !strings.HasPrefix(pkg.Name, pkg.Manifest+"_") {
				continue
			}
			p := out[pkg.Product]
			if p == nil {
				p = &pinnableProduct{releases: map[string][]string{}}
				out[pkg.Product] = p
			}
			if !slices.Contains(p.packages, pkg.Manifest) {
				p.packages = append(p.packages, pkg.Manifest)
			}
			// The versioned name's suffix is its release's major.minor.
			mm := pkg.Release.MajorMinor().String()
			if rs := p.releases[s.CUDA.String()]; !slices.Contains(rs, mm) {
				p.releases[s.CUDA.String()] = append(rs, mm)
			}
		}
	}
	for _, p := range out {
		for v, rs := range p.releases {
			sort.Slice(rs, func(i, j int) bool { return version.MustParse(rs[i]).Less(version.MustParse(rs[j])) })
			p.releases[v] = rs
		}
	}
	return out
}

// pinnedNames are the default names that go through the configuration
// repository's pins.
func pinnedNames(pinnable map[string]*pinnableProduct) map[string]bool {
	out := map[string]bool{}
	for _, p := range pinnable {
		for _, n := range p.packages {
			out[n] = true
		}
	}
	return out
}

// copyRules copies the Starlark sources of rules/ into the tree.
func (g *generator) copyRules() {
	g.out.Set("rules/cuda.bzl", append([]byte(Header+"\n"), rules.CudaBzl...))
	g.out.Set("rules/setup.bzl", append([]byte(Header+"\n"), rules.SetupBzl...))
	g.out.Set("rules/local.bzl", append([]byte(Header+"\n"), rules.LocalBzl...))
	g.out.Set("extensions.bzl", append([]byte(Header+"\n"), rules.ExtensionsBzl...))
	// rules/cuda.bzl is the same file in every hub; what it needs from this
	// hub's configuration repository, whose name it cannot know, comes
	// through here.
	g.out.Set("remote.bzl", []byte(Header+"\n"+`"""What cuda_test's test action asks a remote executor for: cuda.remote(gpu_exec_property) or cuda_repositories(gpu_exec_property = ...)."""

load("@`+g.opts.Name+`_config//:config.bzl", _GPU_TEST_EXEC_PROPERTIES = "GPU_TEST_EXEC_PROPERTIES")

GPU_TEST_EXEC_PROPERTIES = _GPU_TEST_EXEC_PROPERTIES
`))
}
