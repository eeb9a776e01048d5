// Package bazel turns package sets into a self-contained Bazel repository:
// a hub (@cuda by default) with one alias per package that selects, by a CUDA
// version build setting and the target platform, the http_archive repository
// that serves it, or a target that fails at analysis with the reasons it
// cannot be used.
//
// Generate is a pure function of the configuration and the sets: every file
// is a buildtools syntax tree printed by build.Format, everything is sorted,
// and two runs over the same input give the same bytes.
package bazel

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/bazelbuild/buildtools/build"

	"github.com/cudapkgs/cudapkgs/core/archives"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/splice"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Tree maps a path relative to the output root to the file's bytes.
type Tree = buildfile.Tree

type generator struct {
	opts emit.Options
	ix   *archives.Index
	// sets and targets are the Index's, sorted sets first, read once.
	sets    []*pkgset.Set
	targets []platform.Platform
	// buildTargets are, per archive name, the names its BUILD file defines
	// that others refer to (repoBuild fills them, generated.bzl lists them).
	buildTargets map[string][]string
	// pinnable are the products with versioned names; pinned their default
	// names, which go through the configuration repository's pins.
	pinnable map[string]*pinnableProduct
	pinned   map[string]bool
	// static are the packages with a <name>_static hub target.
	static map[string]bool
	splice *splice.Splice
	out    *buildfile.Formatter
}

// Generate builds the repository's files from the configuration and the
// package sets (after the fixup plugins; Files are what the repositories'
// BUILD files export).
func Generate(cfg *config.Config, sets []*pkgset.Set, opts emit.Options) (Tree, error) {
	if opts.Name == "" {
		opts.Name = "cuda"
	}
	if !archives.LabelSafe(opts.Name) {
		return nil, fmt.Errorf("repository name %q: expected letters, digits and _", opts.Name)
	}
	// Repository names are global to a workspace: the archives' carry the
	// hub's name.
	ix, err := archives.Collect(sets, cfg.Targets(), opts.Name)
	if err != nil {
		return nil, err
	}
	g := &generator{opts: opts, ix: ix, sets: ix.Sets(), targets: ix.Targets(), buildTargets: map[string][]string{}, out: buildfile.NewFormatter()}
	g.splice = splice.New(ix, opts.Toolchain)
	g.pinnable = pinnable(g.sets)
	g.pinned = pinnedNames(g.pinnable)
	g.static = map[string]bool{}
	for _, name := range ix.Packages() {
		if ix.HasKind(name, file.StaticLib) && !ix.HasPackage(name+"_static") {
			g.static[name] = true
		}
	}
	g.workspace()
	for _, a := range ix.Archives() {
		g.repoBuild(a)
	}
	g.repositories()
	g.module()
	g.generatedData(cfg)
	g.platforms()
	g.version()
	g.hub(cfg)
	g.unusable(cfg)
	g.rules()
	if g.opts.Toolchain.Compiler != "" {
		g.toolchain(cfg)
	}
	return g.out.Tree(), nil
}

// put hands a finished file to the formatter, which prints it while the
// rest is built. The few big files (the hub, the data, the unusable
// targets) are built in buildifier's order already (TestLint and
// TestGenerateFullMatrixLint check it) and skip its rewrites.
func (g *generator) put(f *build.File) {
	switch f.Path {
	case "BUILD.bazel", "generated.bzl", "unusable/BUILD.bazel", "MODULE.bazel":
		g.out.PutCanonical(f)
	default:
		g.out.Put(f)
	}
}

func (g *generator) workspace() {
	f := buildfile.NewFile("WORKSPACE", build.TypeWorkspace)
	f.Stmt = append(f.Stmt, buildfile.Call("workspace", buildfile.Arg("name", buildfile.Str(g.opts.Name))))
	g.put(f)
}

// repoBuild writes repos/<repo>.BUILD from the plugins' file lists.
func (g *generator) repoBuild(r *archives.Archive) {
	out := r.Outputs(r.Manifest, "headers", "static", "stubs", "link_stubs", "bin", "data")
	hdrFiles, stubs, bins, data := out.HeaderFiles, out.Stubs, out.Binaries, out.Data
	var hdrGlobs, includes []string
	for _, h := range hdrFiles {
		includes = append(includes, path.Dir(h))
	}
	for _, d := range out.HeaderDirs {
		hdrGlobs = append(hdrGlobs, d+"/**")
		includes = append(includes, d)
	}
	var imports, shared, static []build.Expr
	for _, l := range out.Libs {
		attr, linked := "shared_library", &shared
		if l.Static {
			attr, linked = "static_library", &static
		}
		imports = append(imports, buildfile.Call("cc_import", buildfile.Arg("name", buildfile.Str(l.Name)), buildfile.Arg(attr, buildfile.Str(l.Path))))
		if l.Linked {
			*linked = append(*linked, buildfile.Str(":"+l.Name))
		}
	}
	hasHeaders := out.HasHeaders()
	b := buildfile.NewFile("repos/"+r.Name+".BUILD", build.TypeBuild)
	// defs.bzl, which every rules_cc release has (Debian's 0.0.4, the one
	// Bazel 4.2.3 works with offline, included), rather than the per-rule
	// files of recent releases; buildifier accepts any load of the name.
	if len(stubs) > 0 {
		b.Stmt = append(b.Stmt, buildfile.Load("@"+g.opts.Name+"//rules:cuda.bzl", "cuda_stub_library"))
	}
	if len(imports) > 0 {
		b.Stmt = append(b.Stmt, buildfile.Load("@rules_cc//cc:defs.bzl", "cc_import", "cc_library"))
	} else {
		b.Stmt = append(b.Stmt, buildfile.Load("@rules_cc//cc:defs.bzl", "cc_library"))
	}
	b.Stmt = append(b.Stmt, buildfile.Call("package", buildfile.Arg("default_visibility", buildfile.StrList([]string{"//visibility:public"}))))
	if hasHeaders {
		hdrs := build.Expr(nil)
		if len(hdrGlobs) > 0 {
			// allow_empty: a headers folder a plugin names but an archive
			// lacks (the fixtures' nvcc has no nvvm/include) must not stop
			// the package on Bazel 8, whose globs fail empty by default.
			hdrs = buildfile.Call("glob", buildfile.Arg("include", buildfile.SortedStrList(hdrGlobs)), buildfile.Arg("allow_empty", buildfile.Ident("True")))
		}
		if len(hdrFiles) > 0 {
			l := buildfile.SortedStrList(hdrFiles)
			if hdrs == nil {
				hdrs = l
			} else {
				hdrs = &build.BinaryExpr{X: hdrs, Op: "+", Y: l}
			}
		}
		b.Stmt = append(b.Stmt, buildfile.Call("cc_library", buildfile.Arg("name", buildfile.Str("headers")), buildfile.Arg("hdrs", hdrs), buildfile.Arg("includes", buildfile.SortedStrList(includes))))
	}
	b.Stmt = append(b.Stmt, imports...)
	top := func(name string, libs []build.Expr) *build.CallExpr {
		deps := &build.ListExpr{ForceMultiLine: true}
		if hasHeaders {
			deps.List = append(deps.List, buildfile.Str(":headers"))
		}
		deps.List = append(deps.List, libs...)
		args := []buildfile.KV{buildfile.Arg("name", buildfile.Str(name))}
		if len(deps.List) > 0 {
			deps.ForceMultiLine = len(deps.List) > 1
			args = append(args, buildfile.Arg("deps", deps))
		}
		lib := buildfile.Call("cc_library", args...)
		b.Stmt = append(b.Stmt, lib)
		return lib
	}
	// The package's own edges go through the hub, so they follow the same
	// version and platform as the package itself.
	hubLabels := func(names map[string]bool) []build.Expr {
		var out []build.Expr
		for _, n := range slices.Sorted(maps.Keys(names)) {
			out = append(out, buildfile.Str("@"+g.opts.Name+"//:"+n))
		}
		return out
	}
	// Edges to another package's headers only (the crt headers a compiler
	// package holds in some releases) go to its <name>_headers hub target.
	headerLabels := func() []build.Expr {
		var out []build.Expr
		for _, n := range slices.Sorted(maps.Keys(r.HeaderDeps)) {
			out = append(out, buildfile.Str("@"+g.opts.Name+"//:"+n+"_headers"))
		}
		return out
	}
	// Libraries the package loads at run time (a plugin's runtime edges)
	// are linked like the others: dlopen by SONAME then finds the
	// one already loaded, with no LD_LIBRARY_PATH, in runfiles and in
	// remote execution alike. As data they sat in the runfiles where no
	// search path reached them (docs/bazel.md, "Libraries loaded at run
	// time").
	runtimeOnly := maps.Clone(r.Runtime)
	maps.DeleteFunc(runtimeOnly, func(n string, _ bool) bool { return r.Deps[n] })
	deps := append(append(slices.Clone(shared), hubLabels(r.Deps)...), hubLabels(runtimeOnly)...)
	lib := top(r.Manifest, append(deps, headerLabels()...))
	if opts := neededLinkopts(r, out.Libs); len(opts) > 0 {
		lib.List = append(lib.List, &build.AssignExpr{LHS: buildfile.Ident("linkopts"), Op: "=", RHS: buildfile.StrList(opts)})
	}
	if r.Generic {
		// No plugin knows the package: its shared libraries are whatever
		// the conventional lib/ holds once unpacked.
		lib.List = append(lib.List, &build.AssignExpr{LHS: buildfile.Ident("srcs"), Op: "=",
			RHS: buildfile.Call("glob", buildfile.Arg("include", buildfile.StrList(pkgset.GenericLibGlobs())), buildfile.Arg("allow_empty", buildfile.Ident("True")))})
		lib.Comments.Before = []build.Comment{{Token: "# Generic: no plugin knows " + r.Manifest + "; headers from include/, shared libraries from lib/, tools from bin/."}}
		if len(bins) == 0 {
			b.Stmt = append(b.Stmt, buildfile.Call("filegroup", buildfile.Arg("name", buildfile.Str("bin")),
				buildfile.Arg("srcs", buildfile.Call("glob", buildfile.Arg("include", buildfile.StrList([]string{pkgset.GenericBin + "/**"})), buildfile.Arg("allow_empty", buildfile.Ident("True"))))))
		}
	}
	if len(static) > 0 {
		// The static link set: the package's static libraries, the static
		// sets of what it links and of its static-only edges (the plain
		// target of one without static libraries: headers, or a shared
		// library there is no static form of), and the system libraries
		// they need, so that one label links statically.
		needs := maps.Clone(r.StaticDeps)
		for d := range r.Deps {
			needs[d] = true
		}
		var labels []build.Expr
		for _, d := range slices.Sorted(maps.Keys(needs)) {
			if g.static[d] {
				labels = append(labels, buildfile.Str("@"+g.opts.Name+"//:"+d+"_static"))
			} else {
				labels = append(labels, buildfile.Str("@"+g.opts.Name+"//:"+d))
			}
		}
		slib := top("static", append(append(slices.Clone(static), labels...), headerLabels()...))
		if len(r.StaticLinkopts) > 0 {
			slib.List = append(slib.List, &build.AssignExpr{LHS: buildfile.Ident("linkopts"), Op: "=", RHS: buildfile.SortedStrList(slices.Collect(maps.Keys(r.StaticLinkopts)))})
		}
	}
	if len(stubs) > 0 {
		b.Stmt = append(b.Stmt, buildfile.Call("filegroup", buildfile.Arg("name", buildfile.Str("stubs")), buildfile.Arg("srcs", buildfile.SortedStrList(stubs))))
		// Linking against a stub (libcuda.so, libnvidia-ml.so): the link
		// records the stub's SONAME (libcuda.so.1) and the binary loads the
		// host driver's at run time; cuda_stub_library keeps the stub off
		// the RUNPATH and out of the runfiles, so it never shadows it.
		args := []buildfile.KV{buildfile.Arg("name", buildfile.Str("link_stubs"))}
		if hasHeaders {
			args = append(args, buildfile.Arg("deps", buildfile.StrList([]string{":headers"})))
		}
		args = append(args, buildfile.Arg("stubs", buildfile.SortedStrList(stubs)))
		b.Stmt = append(b.Stmt, buildfile.Call("cuda_stub_library", args...))
	}
	if len(bins) > 0 {
		b.Stmt = append(b.Stmt, buildfile.Call("filegroup", buildfile.Arg("name", buildfile.Str("bin")), buildfile.Arg("srcs", buildfile.SortedStrList(bins))))
		b.Stmt = append(b.Stmt, buildfile.Positional("exports_files", buildfile.SortedStrList(bins)))
	}
	if len(data) > 0 {
		// Data entries are files or folders (crt, libdevice): a glob gives a
		// folder's files rather than one opaque directory artifact, and an
		// entry an archive lacks leaves the group smaller instead of failing
		// every action that takes it as input.
		var patterns []string
		for _, d := range data {
			patterns = append(patterns, d, d+"/**")
		}
		glob := buildfile.Call("glob", buildfile.Arg("include", buildfile.SortedStrList(patterns)), buildfile.Arg("allow_empty", buildfile.Ident("True")))
		fg := buildfile.Call("filegroup", buildfile.Arg("name", buildfile.Str("data")), buildfile.Arg("srcs", glob))
		fg.Comments.Before = []build.Comment{{Token: "# Files or folders, each optional: a constant pattern is meant."}, {Token: "# buildifier: disable=constant-glob"}}
		b.Stmt = append(b.Stmt, fg)
	}
	targets := append(targetNames(b), bins...)
	sort.Strings(targets)
	g.buildTargets[r.Name] = targets
	g.put(b)
}

// neededLinkopts keeps the archive's linked shared libraries NEEDED in every
// binary that links them, whatever the toolchain's --as-needed default
// (Debian's cross gcc and Ubuntu's gcc pass it; Bazel's own Unix toolchain
// passes -no-as-needed). NVIDIA's libraries find their siblings through
// their own RPATH ($ORIGIN and the wheel's folders), which never reaches the
// hub's per-library solib folders: when --as-needed drops a library's link
// edge from a program that calls only that library, the library cannot load
// its edge, and a dlopen by SONAME of a runtime edge fails the same way
// (docs/bazel.md has the real case). Recorded in
// the program, the library is found through the program's RUNPATH and is
// already loaded when they ask for it. The options come after the
// libraries on Bazel's link line (user_link_flags), so they name the files
// again, the way Bazel links them (-l:<file>, its solib folder already on
// the -L list), inside --push-state/--pop-state so that nothing else's
// linking changes. GNU ld and lld only: Linux archives alone get them.
func neededLinkopts(r *archives.Archive, libs []archives.Lib) []string {
	if len(r.Platforms) == 0 {
		return nil
	}
	for p := range r.Platforms {
		if !strings.HasPrefix(p, "linux-") {
			return nil
		}
	}
	var names []string
	for _, l := range libs {
		base := path.Base(l.Path)
		// Bazel links a shared library by -l:<file> (and puts its solib
		// folder on -L) only for lib*.so names; another name is passed as
		// a path, which -l: could not find.
		if l.Static || !l.Linked || !strings.HasPrefix(base, "lib") || !strings.Contains(base, ".so") {
			continue
		}
		names = append(names, "-l:"+base)
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return append(append([]string{"-Wl,--push-state,--no-as-needed"}, names...), "-Wl,--pop-state")
}

// targetNames are the names of a BUILD file's targets (name = "..." of
// every call).
func targetNames(f *build.File) []string {
	var out []string
	for _, st := range f.Stmt {
		if c, ok := st.(*build.CallExpr); ok {
			for _, a := range c.List {
				if as, ok := a.(*build.AssignExpr); ok {
					if id, ok := as.LHS.(*build.Ident); ok && id.Name == "name" {
						if v, ok := as.RHS.(*build.StringExpr); ok {
							out = append(out, v.Value)
						}
					}
				}
			}
		}
	}
	return out
}

// constraints are a platform's constraint values; flavour is the label
// prefix of the generated flavour values (":" inside //platforms).
func constraints(p platform.Platform, flavourPrefix string) []string {
	out := []string{"@platforms//os:" + p.OS, "@platforms//cpu:" + p.CPU}
	if p.Flavour != platform.FlavourNone {
		out = append(out, flavourPrefix+string(p.Flavour))
	}
	return out
}

// platforms writes platforms/BUILD.bazel: the aarch64 flavour and a
// platform for linux-x86_64, linux-sbsa, linux-jetson and every other target.
func (g *generator) platforms() {
	f := buildfile.NewFile("platforms/BUILD.bazel", build.TypeBuild)
	f.Stmt = append(f.Stmt,
		buildfile.Call("package", buildfile.Arg("default_visibility", buildfile.StrList([]string{"//visibility:public"}))),
		buildfile.Call("constraint_setting", buildfile.Arg("name", buildfile.Str("aarch64_flavour"))),
		buildfile.Call("constraint_value", buildfile.Arg("name", buildfile.Str("server")), buildfile.Arg("constraint_setting", buildfile.Str(":aarch64_flavour"))),
		buildfile.Call("constraint_value", buildfile.Arg("name", buildfile.Str("jetson")), buildfile.Arg("constraint_setting", buildfile.Str(":aarch64_flavour"))))
	ps := append([]platform.Platform{platform.LinuxX86_64, platform.LinuxSBSA, platform.LinuxJetson}, g.targets...)
	platform.Sort(ps)
	seen := map[platform.Platform]bool{}
	for _, p := range ps {
		if seen[p] {
			continue
		}
		seen[p] = true
		f.Stmt = append(f.Stmt, buildfile.Call("platform", buildfile.Arg("name", buildfile.Str(archives.PlatformTarget(p))), buildfile.Arg("constraint_values", buildfile.StrList(constraints(p, ":")))))
	}
	g.put(f)
}

// version writes version/BUILD.bazel: a config_setting per CUDA version,
// named as the version, which the configuration repository's pins select on.
func (g *generator) version() {
	f := buildfile.NewFile("version/BUILD.bazel", build.TypeBuild)
	f.Stmt = append(f.Stmt, buildfile.Call("package", buildfile.Arg("default_visibility", buildfile.StrList([]string{"//visibility:public"}))))
	for _, v := range g.ix.Versions() {
		f.Stmt = append(f.Stmt, buildfile.Call("config_setting",
			buildfile.Arg("name", buildfile.Str(v)),
			buildfile.Arg("flag_values", buildfile.Dict([]string{"//:version"}, []build.Expr{buildfile.Str(v)}))))
	}
	g.put(f)
}

func configSetting(v version.Version, p platform.Platform) string {
	return "cuda_" + v.String() + "_" + archives.PlatformTarget(p)
}

// hub writes the root BUILD.bazel: the version and capabilities settings
// (their defaults and allowed versions come from the configuration
// repository, so cuda_repositories() and the module extension can set
// them), a config_setting per (CUDA version, target platform), and an alias
// per package. A default name with versioned siblings (libfoo next to
// libfoo_8_9) goes through the configuration repository's pins.
func (g *generator) hub(cfg *config.Config) {
	f := buildfile.NewFile("BUILD.bazel", build.TypeBuild)
	cfgRepo := "@" + g.opts.Name + "_config"
	f.Stmt = append(f.Stmt,
		buildfile.Load(cfgRepo+"//:config.bzl", "CAPABILITIES", "DEFAULT_VERSION", "GENERATED_VERSIONS", "VERSIONS"),
		buildfile.Load("//rules:cuda.bzl", "cuda_build_settings", "cuda_capabilities", "cuda_host_compiler", "cuda_version"),
		buildfile.Call("package", buildfile.Arg("default_visibility", buildfile.StrList([]string{"//visibility:public"}))))
	f.Stmt = append(f.Stmt, buildfile.Call("cuda_capabilities",
		buildfile.Arg("name", buildfile.Str("capabilities")),
		buildfile.Arg("build_setting_default", buildfile.Ident("CAPABILITIES"))))
	f.Stmt = append(f.Stmt, buildfile.Call("cuda_version",
		buildfile.Arg("name", buildfile.Str("version")),
		buildfile.Arg("build_setting_default", buildfile.Ident("DEFAULT_VERSION")),
		buildfile.Arg("flag", buildfile.Str("--@"+g.opts.Name+"//:version")),
		buildfile.Arg("generated", buildfile.Ident("GENERATED_VERSIONS")),
		buildfile.Arg("values", buildfile.Ident("VERSIONS"))))
	f.Stmt = append(f.Stmt, buildfile.Call("cuda_host_compiler",
		buildfile.Arg("name", buildfile.Str("host_compiler")),
		buildfile.Arg("build_setting_default", buildfile.Str(""))))
	// copts, host_copts, lineinfo, runtime, cudadevrt, compiler, clang.
	f.Stmt = append(f.Stmt, buildfile.Call("cuda_build_settings", buildfile.Arg("name", buildfile.Str(g.opts.Name))))
	for _, s := range g.sets {
		for _, t := range g.targets {
			f.Stmt = append(f.Stmt, buildfile.Call("config_setting",
				buildfile.Arg("name", buildfile.Str(configSetting(s.CUDA, t))),
				buildfile.Arg("constraint_values", buildfile.StrList(constraints(t, "//platforms:"))),
				buildfile.Arg("flag_values", buildfile.Dict([]string{":version"}, []build.Expr{buildfile.Str(s.CUDA.String())}))))
		}
	}
	for _, name := range g.ix.Packages() {
		keys, labels := g.ix.Select(name,
			func(c archives.Cell) string { return ":" + configSetting(c.CUDA, c.Platform) },
			func(a *archives.Archive) string { return "@" + a.Name + "//:" + a.Manifest },
			"//conditions:default")
		actual := buildfile.Positional("select", buildfile.Dict(keys, buildfile.StrList(labels).List))
		if g.pinned[name] {
			f.Stmt = append(f.Stmt, buildfile.Call("alias",
				buildfile.Arg("name", buildfile.Str(name)),
				buildfile.Arg("actual", buildfile.Str(cfgRepo+"//pins:"+name))))
			name += "__generated"
		}
		f.Stmt = append(f.Stmt, buildfile.Call("alias",
			buildfile.Arg("name", buildfile.Str(name)),
			buildfile.Arg("actual", actual)))
	}
	// The static link set and the stubs to link against follow the
	// generated default (not the configuration repository's pins:
	// docs/bazel.md). Where a version's archive has none (static libraries
	// that moved to another package in a later release), the plain target
	// stands in.
	// A wheel has no static library at all (docs/wheels.md): there, the
	// static link set fails with the reason instead of linking the shared
	// library quietly.
	f.Stmt = append(f.Stmt, g.kindAliases("_static", file.StaticLib, "static", func(name string) bool {
		_, wheel := g.ix.WheelWithoutStatic(name)
		return g.static[name] || wheel
	})...)
	f.Stmt = append(f.Stmt, g.kindAliases("_stubs", file.StubLib, "link_stubs", nil)...)
	f.Stmt = append(f.Stmt, g.headerAliases()...)
	g.put(f)
}

// kindAliases are the hub's <package><suffix> aliases for the packages with
// a file of the kind in some archive (or, with wanted, for those it names):
// per cell, the archive's target where it
// has such files, its top target where not, the unusable target where no
// archive serves.
func (g *generator) kindAliases(suffix string, kind file.Kind, target string, wanted func(string) bool) []build.Expr {
	var out []build.Expr
	for _, name := range g.ix.Packages() {
		switch {
		case wanted != nil && !wanted(name), wanted == nil && !g.ix.HasKind(name, kind):
			continue // not asked for; or no such files anywhere
		case g.ix.HasPackage(name + suffix):
			continue // a package of that name wins
		}
		keys, labels := g.ix.Select(name,
			func(c archives.Cell) string { return ":" + configSetting(c.CUDA, c.Platform) },
			func(a *archives.Archive) string {
				if a.HasKind(kind) {
					return "@" + a.Name + "//:" + target
				}
				if kind == file.StaticLib && a.IsWheel() {
					return "//unusable:" + archives.WheelStaticTarget(name)
				}
				return "@" + a.Name + "//:" + a.Manifest
			},
			"//conditions:default")
		out = append(out, buildfile.Call("alias",
			buildfile.Arg("name", buildfile.Str(name+suffix)),
			buildfile.Arg("actual", buildfile.Positional("select", buildfile.Dict(keys, buildfile.StrList(labels).List)))))
	}
	return out
}

// headerAliases are the <name>_headers hub targets of the packages some
// edge needs the headers of only: the archive's headers target, its top
// target where it has no headers folder.
func (g *generator) headerAliases() []build.Expr {
	wanted := map[string]bool{}
	for _, a := range g.ix.Archives() {
		for n := range a.HeaderDeps {
			wanted[n] = true
		}
	}
	return g.kindAliases("_headers", file.Headers, "headers", func(name string) bool { return wanted[name] })
}

// unusable writes unusable/defs.bzl, a rule that fails at analysis with its
// message, and unusable/BUILD.bazel with one target per package and (CUDA
// version, platform) it cannot be used for, and one per package for a
// configuration that matches no (CUDA version, platform).
func (g *generator) unusable(cfg *config.Config) {
	d := buildfile.NewFile("unusable/defs.bzl", build.TypeBzl)
	d.Stmt = append(d.Stmt,
		buildfile.Docstring("A rule whose targets fail at analysis: packages that cannot be used."),
		buildfile.Def("_unusable_impl", []string{"ctx"}, buildfile.Positional("fail", &build.DotExpr{X: &build.DotExpr{X: buildfile.Ident("ctx"), Name: "attr"}, Name: "message"})),
		&build.AssignExpr{LHS: buildfile.Ident("unusable"), Op: "=", RHS: buildfile.Call("rule",
			buildfile.Arg("implementation", buildfile.Ident("_unusable_impl")),
			buildfile.Arg("attrs", buildfile.Dict([]string{"message"}, []build.Expr{buildfile.Call("attr.string", buildfile.Arg("mandatory", buildfile.Ident("True")))})),
			buildfile.Arg("doc", buildfile.Str("Fails at analysis with message: why a package cannot be used.")),
		)})
	g.put(d)

	f := buildfile.NewFile("unusable/BUILD.bazel", build.TypeBuild)
	f.Stmt = append(f.Stmt,
		buildfile.Load(":defs.bzl", "unusable"),
		buildfile.Call("package", buildfile.Arg("default_visibility", buildfile.StrList([]string{"//:__pkg__"}))))
	var platformNames []string
	for _, t := range g.targets {
		platformNames = append(platformNames, archives.PlatformTarget(t))
	}
	hub := "@" + g.opts.Name + "//:"
	flags := archives.QueryFlags(cfg.ExplicitCapabilities())
	for _, name := range g.ix.Packages() {
		for _, c := range g.ix.Cells(name) {
			if c.Archive == nil {
				msg := c.Unusable(hub, flags)
				f.Stmt = append(f.Stmt, buildfile.Call("unusable", buildfile.Arg("name", buildfile.Str(archives.UnusableTarget(name, c.CUDA, c.Platform))), buildfile.Arg("message", buildfile.Str(msg))))
			}
		}
		msg := archives.Fit(fmt.Sprintf("@%s//:%s: the configuration matches no CUDA version and target platform this repository was generated for (--@%s//:version must be one of its versions, %s; the target platform one of those in @%s//platforms, %s); %s",
			g.opts.Name, name, g.opts.Name, archives.Summary(g.ix.Versions()), g.opts.Name, strings.Join(platformNames, ", "), g.ix.Usable(name)))
		f.Stmt = append(f.Stmt, buildfile.Call("unusable", buildfile.Arg("name", buildfile.Str(name)), buildfile.Arg("message", buildfile.Str(msg))))
		if product, ok := g.ix.WheelWithoutStatic(name); ok {
			f.Stmt = append(f.Stmt, buildfile.Call("unusable", buildfile.Arg("name", buildfile.Str(archives.WheelStaticTarget(name))), buildfile.Arg("message", buildfile.Str(archives.WheelStaticMessage(hub, name, product)))))
		}
	}
	g.put(f)
}

// Header is the first line of every generated file (buildfile.Header).
const Header = buildfile.Header

// Lint checks the generated files as buildifier would (buildfile.Lint).
func Lint(tree Tree) []string { return buildfile.Lint(tree) }
