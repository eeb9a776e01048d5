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
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bazelbuild/buildtools/build"

	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Options tune the generated repository.
type Options struct {
	// Name is the hub repository's name, the one a workspace gives
	// local_repository; it prefixes the per-archive repositories too.
	// Default "cuda".
	Name string
	// Toolchain names the packages the CUDA rules are built from. Which
	// packages those are is product knowledge: the caller brings it (the
	// built-in catalog's Toolchain). Without a Compiler, no toolchain is
	// generated.
	Toolchain Toolchain
	// Local is an installed CUDA whose files replace some archives.
	Local *Local
}

// Local is an installed CUDA as generation read it.
type Local struct {
	// Path is the install's root as the user gave it.
	Path string
	// Archives maps the sha256 of each archive the install replaces to the
	// install's file for each of the archive's paths; "|system" follows a
	// folder the install shares with other software.
	Archives map[string]map[string]string
}

// Toolchain names the packages behind the generated nvcc toolchain.
type Toolchain struct {
	// Compiler is the package whose exec-platform archive holds bin/nvcc.
	Compiler string
	// Runtime is the library every cuda_library links.
	Runtime string
	// Headers lists, for a CUDA version, the packages whose target-platform
	// headers nvcc compiles against.
	Headers func(cuda version.Version) []string
}

// Tree maps a path relative to the output root to the file's bytes.
type Tree = buildfile.Tree

// repo is one http_archive: one distinct archive (by sha256), whatever
// number of packages, CUDA versions and platforms it serves.
type repo struct {
	name     string
	manifest string // the package's name in its manifest: the top target
	version  version.Version
	archive  pkgset.Archive
	// cuda and platforms are the CUDA versions and target platforms the
	// archive serves; targets the names its BUILD file defines that others
	// refer to (repoBuild fills them).
	cuda      map[string]bool
	platforms map[string]bool
	targets   []string
	files     map[pkgset.File]bool
	// deps and data are the package's edges, by their names in the hub:
	// linked libraries, and libraries loaded at run time (runfiles).
	deps, data map[string]bool
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
	files    []*build.File
}

// Generate builds the repository's files from the configuration and the
// package sets (after the fixup plugins; Files are what the repositories'
// BUILD files export).
func Generate(cfg *config.Config, sets []*pkgset.Set, opts Options) (Tree, error) {
	if opts.Name == "" {
		opts.Name = "cuda"
	}
	if !labelSafe(opts.Name) {
		return nil, fmt.Errorf("repository name %q: expected letters, digits and _", opts.Name)
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
	g.workspace()
	for _, r := range g.sortedRepos() {
		g.repoBuild(r)
	}
	g.repositories()
	g.module()
	g.generatedData(cfg)
	g.platforms()
	g.version()
	g.hub(cfg)
	g.unusable()
	g.rules()
	if g.opts.Toolchain.Compiler != "" {
		g.toolchain(cfg)
	}
	g.formatAll()
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
				r.cuda[s.CUDA.String()] = true
				r.platforms[t.Name()] = true
				for _, f := range pkg.Files[t.Name()] {
					r.files[f] = true
				}
				for _, d := range pkg.Deps {
					if len(d.Platforms) > 0 && !slices.Contains(d.Platforms, t.Name()) {
						continue
					}
					if d.Runtime {
						r.data[d.Name] = true
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
	name := repoName(g.opts.Name, pkg, a)
	if other, ok := g.byName[name]; ok {
		return nil, fmt.Errorf("two different archives would both be repository @%s: %s (sha256 %s) and %s (sha256 %s)",
			name, other.archive.RelativePath, other.archive.SHA256, a.RelativePath, a.SHA256)
	}
	r := &repo{name: name, manifest: pkg.Manifest, version: pkg.Version, archive: a, files: map[pkgset.File]bool{},
		deps: map[string]bool{}, data: map[string]bool{}, cuda: map[string]bool{}, platforms: map[string]bool{}}
	g.repos[a.SHA256] = r
	g.byName[name] = r
	return r, nil
}

// repoName is <hub>_<manifest name>_<version>_<manifest key>[_<variant>],
// every part reduced to letters, digits and _.
func repoName(hub string, pkg *pkgset.Package, a pkgset.Archive) string {
	parts := []string{hub, pkg.Manifest}
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

// put records a file; formatting, the costly part, happens for all files at
// once, in parallel, at the end of Generate.
func (g *generator) put(f *build.File) { g.files = append(g.files, f) }

// formatAll formats every recorded file into the tree.
func (g *generator) formatAll() {
	out := make([][]byte, len(g.files))
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				out[i] = buildfile.Format(g.files[i])
			}
		}()
	}
	// The few big files (hub, data, unusable targets) go first, so no
	// worker is left formatting one of them after the others are done.
	order := make([]int, len(g.files))
	for i := range order {
		order[i] = i
	}
	big := map[string]bool{"BUILD.bazel": true, "generated.bzl": true, "unusable/BUILD.bazel": true, "MODULE.bazel": true}
	sort.SliceStable(order, func(a, b int) bool { return big[g.files[order[a]].Path] && !big[g.files[order[b]].Path] })
	for _, i := range order {
		work <- i
	}
	close(work)
	wg.Wait()
	for i, f := range g.files {
		g.tree[f.Path] = out[i]
	}
}

func (g *generator) workspace() {
	f := buildfile.NewFile("WORKSPACE", build.TypeWorkspace)
	f.Stmt = append(f.Stmt, buildfile.Call("workspace", buildfile.Arg("name", buildfile.Str(g.opts.Name))))
	g.put(f)
}

var headerExt = map[string]bool{".h": true, ".hh": true, ".hpp": true, ".hxx": true, ".cuh": true, ".inc": true, ".inl": true}

// repoBuild writes repos/<repo>.BUILD from the plugins' file lists.
func (g *generator) repoBuild(r *repo) {
	files := make([]pkgset.File, 0, len(r.files))
	for f := range r.files {
		files = append(files, f)
	}
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
	used := map[string]bool{r.manifest: true, "headers": true, "static": true, "stubs": true, "bin": true, "data": true}
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
	var hdrGlobs, hdrFiles, includes, stubs, bins, data []string
	var imports, shared, static []build.Expr
	for _, f := range files {
		switch f.Kind {
		case "headers":
			if headerExt[path.Ext(f.Path)] {
				hdrFiles = append(hdrFiles, f.Path)
				includes = append(includes, path.Dir(f.Path))
			} else {
				hdrGlobs = append(hdrGlobs, f.Path+"/**")
				includes = append(includes, f.Path)
			}
		case "shared_lib":
			base := f.SONAME
			if base == "" {
				base = path.Base(f.Path)
			}
			n := unique(libBase(base), "shared")
			imports = append(imports, buildfile.Call("cc_import", buildfile.Arg("name", buildfile.Str(n)), buildfile.Arg("shared_library", buildfile.Str(f.Path))))
			if f.Role != "exec" {
				shared = append(shared, buildfile.Str(":"+n))
			}
		case "static_lib":
			n := unique(libBase(path.Base(f.Path)), "static")
			imports = append(imports, buildfile.Call("cc_import", buildfile.Arg("name", buildfile.Str(n)), buildfile.Arg("static_library", buildfile.Str(f.Path))))
			if f.Role != "exec" {
				static = append(static, buildfile.Str(":"+n))
			}
		case "stub_lib":
			stubs = append(stubs, f.Path)
		case "binary":
			bins = append(bins, f.Path)
		default: // data, and kinds this generator does not know yet
			data = append(data, f.Path)
		}
	}
	hasHeaders := len(hdrGlobs)+len(hdrFiles) > 0
	b := buildfile.NewFile("repos/"+r.name+".BUILD", build.TypeBuild)
	// defs.bzl, which every rules_cc release has (Debian's 0.0.4, the one
	// Bazel 4.2.3 works with offline, included), rather than the per-rule
	// files of recent releases; buildifier accepts any load of the name.
	if len(imports) > 0 {
		b.Stmt = append(b.Stmt, buildfile.Load("@rules_cc//cc:defs.bzl", "cc_import", "cc_library"))
	} else {
		b.Stmt = append(b.Stmt, buildfile.Load("@rules_cc//cc:defs.bzl", "cc_library"))
	}
	b.Stmt = append(b.Stmt, buildfile.Call("package", buildfile.Arg("default_visibility", buildfile.StrList([]string{"//visibility:public"}))))
	if hasHeaders {
		hdrs := build.Expr(nil)
		if len(hdrGlobs) > 0 {
			hdrs = buildfile.Positional("glob", buildfile.SortedStrList(hdrGlobs))
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
	for _, i := range imports {
		b.Stmt = append(b.Stmt, i)
	}
	top := func(name string, libs []build.Expr) {
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
		b.Stmt = append(b.Stmt, buildfile.Call("cc_library", args...))
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
	top(r.manifest, append(slices.Clone(shared), hubLabels(r.deps)...))
	if len(r.data) > 0 {
		last := b.Stmt[len(b.Stmt)-1].(*build.CallExpr)
		last.List = append(last.List, &build.AssignExpr{LHS: buildfile.Ident("data"), Op: "=", RHS: &build.ListExpr{List: hubLabels(r.data), ForceMultiLine: len(r.data) > 1}})
	}
	if len(static) > 0 {
		top("static", static)
	}
	if len(stubs) > 0 {
		b.Stmt = append(b.Stmt, buildfile.Call("filegroup", buildfile.Arg("name", buildfile.Str("stubs")), buildfile.Arg("srcs", buildfile.SortedStrList(stubs))))
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
	r.targets = append(targetNames(b), bins...)
	sort.Strings(r.targets)
	g.put(b)
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

// libBase is a library's name without .so and what follows it, or without
// its extension: libfoo.so.12 -> libfoo, libfoo_static.a ->
// libfoo_static.
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

// platformTarget is the name of a platform() in //platforms.
func platformTarget(p platform.Platform) string { return strings.ReplaceAll(p.Name(), "-", "_") }

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
		f.Stmt = append(f.Stmt, buildfile.Call("platform", buildfile.Arg("name", buildfile.Str(platformTarget(p))), buildfile.Arg("constraint_values", buildfile.StrList(constraints(p, ":")))))
	}
	g.put(f)
}

func (g *generator) versions() []string {
	var out []string
	for _, s := range g.sets {
		out = append(out, s.CUDA.String())
	}
	return out
}

// version writes version/BUILD.bazel: a config_setting per CUDA version,
// named as the version, which the configuration repository's pins select on.
func (g *generator) version() {
	f := buildfile.NewFile("version/BUILD.bazel", build.TypeBuild)
	f.Stmt = append(f.Stmt, buildfile.Call("package", buildfile.Arg("default_visibility", buildfile.StrList([]string{"//visibility:public"}))))
	for _, v := range g.versions() {
		f.Stmt = append(f.Stmt, buildfile.Call("config_setting",
			buildfile.Arg("name", buildfile.Str(v)),
			buildfile.Arg("flag_values", buildfile.Dict([]string{"//:version"}, []build.Expr{buildfile.Str(v)}))))
	}
	g.put(f)
}

func configSetting(v version.Version, p platform.Platform) string {
	return "cuda_" + v.String() + "_" + platformTarget(p)
}

func unusableTarget(pkg string, v version.Version, p platform.Platform) string {
	return pkg + "_" + v.Underscored(v.Parts()) + "_" + platformTarget(p)
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
		buildfile.Load("//rules:cuda.bzl", "cuda_capabilities", "cuda_host_compiler", "cuda_version"),
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
	for _, s := range g.sets {
		for _, t := range g.targets {
			f.Stmt = append(f.Stmt, buildfile.Call("config_setting",
				buildfile.Arg("name", buildfile.Str(configSetting(s.CUDA, t))),
				buildfile.Arg("constraint_values", buildfile.StrList(constraints(t, "//platforms:"))),
				buildfile.Arg("flag_values", buildfile.Dict([]string{":version"}, []build.Expr{buildfile.Str(s.CUDA.String())}))))
		}
	}
	pinnable := g.pinnable()
	for _, name := range g.packageNames() {
		uses := g.packages[name]
		var keys []string
		var vals []build.Expr
		for _, s := range g.sets {
			for _, t := range g.targets {
				keys = append(keys, ":"+configSetting(s.CUDA, t))
				if u, ok := uses[key(s.CUDA, t)]; ok && u.repo != nil {
					vals = append(vals, buildfile.Str("@"+u.repo.name+"//:"+u.repo.manifest))
				} else {
					vals = append(vals, buildfile.Str("//unusable:"+unusableTarget(name, s.CUDA, t)))
				}
			}
		}
		keys = append(keys, "//conditions:default")
		vals = append(vals, buildfile.Str("//unusable:"+name))
		actual := buildfile.Positional("select", buildfile.Dict(keys, vals))
		if g.pinned(name, pinnable) {
			f.Stmt = append(f.Stmt, buildfile.Call("alias",
				buildfile.Arg("name", buildfile.Str(name)),
				buildfile.Arg("actual", buildfile.Str(cfgRepo+"//pins:"+name))))
			name += "__generated"
		}
		f.Stmt = append(f.Stmt, buildfile.Call("alias",
			buildfile.Arg("name", buildfile.Str(name)),
			buildfile.Arg("actual", actual)))
	}
	g.put(f)
}

func (g *generator) packageNames() []string {
	out := make([]string, 0, len(g.packages))
	for n := range g.packages {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// unusable writes unusable/defs.bzl, a rule that fails at analysis with its
// message, and unusable/BUILD.bazel with one target per package and (CUDA
// version, platform) it cannot be used for, and one per package for a
// configuration that matches no (CUDA version, platform).
func (g *generator) unusable() {
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
	var platformLabels []string
	for _, t := range g.targets {
		platformLabels = append(platformLabels, "@"+g.opts.Name+"//platforms:"+platformTarget(t))
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
					msg = fmt.Sprintf("@%s//:%s cannot be used with CUDA %s on %s: there is no package %s in the CUDA %s package set",
						g.opts.Name, name, s.CUDA, t.Name(), name, s.CUDA)
				} else {
					msg = fmt.Sprintf("@%s//:%s cannot be used with CUDA %s on %s: %s",
						g.opts.Name, name, s.CUDA, t.Name(), strings.Join(u.reasons, "; "))
				}
				f.Stmt = append(f.Stmt, buildfile.Call("unusable", buildfile.Arg("name", buildfile.Str(unusableTarget(name, s.CUDA, t))), buildfile.Arg("message", buildfile.Str(msg))))
			}
		}
		where := "it is usable nowhere"
		if len(usable) > 0 {
			where = "it is usable with CUDA " + strings.Join(usable, ", ")
		}
		msg := fmt.Sprintf("@%s//:%s: the configuration matches no CUDA version and target platform this repository was generated for (--@%s//:version is one of %s; the target platform must be one of %s); %s",
			g.opts.Name, name, g.opts.Name, strings.Join(g.versions(), ", "), strings.Join(platformLabels, ", "), where)
		f.Stmt = append(f.Stmt, buildfile.Call("unusable", buildfile.Arg("name", buildfile.Str(name)), buildfile.Arg("message", buildfile.Str(msg))))
	}
	g.put(f)
}

// Header is the first line of every generated file (buildfile.Header).
const Header = buildfile.Header

// Lint checks the generated files as buildifier would (buildfile.Lint).
func Lint(tree Tree) []string { return buildfile.Lint(tree) }
