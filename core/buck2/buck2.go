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
	"strconv"
	"strings"

	"github.com/bazelbuild/buildtools/build"

	"github.com/cudapkgs/cudapkgs/core/archives"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/splice"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Tree maps a path relative to the cell root to the file's bytes.
type Tree = buildfile.Tree

//go:embed cuda.bzl.tmpl
var cudaBzl string

type generator struct {
	opts emit.Options
	ix   *archives.Index
	// sets and targets are the Index's, sorted sets first, read once.
	sets    []*pkgset.Set
	targets []platform.Platform
	splice  *splice.Splice
	// static are the packages with a <name>_static hub target.
	static map[string]bool
	out    *buildfile.Formatter
}

// Generate builds the cell's files from the configuration and the package
// sets (after the fixup plugins: Files are what the archives' BUCK files
// export).
func Generate(cfg *config.Config, sets []*pkgset.Set, opts emit.Options) (Tree, error) {
	if opts.Name == "" {
		opts.Name = "cuda"
	}
	if !archives.LabelSafe(opts.Name) {
		return nil, fmt.Errorf("cell name %q: expected letters, digits and _, not starting with a digit", opts.Name)
	}
	// Unlike Bazel's repositories, an archive's name needs no prefix: it
	// names a package (repos/<name>) inside the cell.
	ix, err := archives.Collect(sets, cfg.Targets(), "")
	if err != nil {
		return nil, err
	}
	g := &generator{opts: opts, ix: ix, sets: ix.Sets(), targets: ix.Targets(), splice: splice.New(ix, opts.Toolchain), static: map[string]bool{}, out: buildfile.NewFormatter()}
	for _, name := range ix.Packages() {
		if ix.HasKind(name, file.StaticLib) && !ix.HasPackage(name+"_static") {
			g.static[name] = true
		}
	}
	for _, a := range ix.Archives() {
		g.repoBuck(a)
	}
	g.platforms(cfg)
	g.hub()
	g.unusable(cfg)
	if err := g.rules(); err != nil {
		g.out.Tree() // ends the formatter's workers
		return nil, err
	}
	if g.opts.Toolchain.Compiler != "" {
		g.toolchain(cfg)
	}
	return g.out.Tree(), nil
}

// put hands a finished file to the formatter, which prints it while the
// rest is built.
func (g *generator) put(f *build.File) { g.out.Put(f) }

// public is Buck2's visibility for everyone: BUCK files have no package()
// default, every target says it.
func public() buildfile.KV { return buildfile.Arg("visibility", buildfile.StrList([]string{"PUBLIC"})) }

// call is buildfile.Call with the visibility appended.
func call(fn string, vis buildfile.KV, args ...buildfile.KV) *build.CallExpr {
	return buildfile.Call(fn, append(args, vis)...)
}

// repoBuck writes repos/<repo>/BUCK: the http_archive (target "archive",
// one sub-target per path the other targets use) and, from the plugins'
// file lists, prebuilt_cxx_library targets over those sub-targets.
func (g *generator) repoBuck(r *archives.Archive) {
	out := r.Outputs("archive", r.Manifest, "headers", "static", "stubs", "bin", "data")
	sub := func(p string) string { return ":archive[" + p + "]" }
	subs := func(ps []string) []string {
		labels := make([]string, len(ps))
		for i, p := range ps {
			labels[i] = sub(p)
		}
		return labels
	}
	var subTargets []string
	for _, f := range r.SortedFiles() {
		subTargets = append(subTargets, f.Path)
	}
	// A single header is included by its name, as Bazel's includes = [its
	// folder] allows.
	hdrFiles := map[string]string{} // include name -> sub-target
	for _, h := range out.HeaderFiles {
		hdrFiles[path.Base(h)] = sub(h)
	}
	hdrDirs, stubs, bins, data := subs(out.HeaderDirs), subs(out.Stubs), subs(out.Binaries), subs(out.Data)
	var libs []build.Expr
	var shared, static []string
	for _, l := range out.Libs {
		args := []buildfile.KV{buildfile.Arg("name", buildfile.Str(l.Name))}
		if l.Static {
			args = append(args, buildfile.Arg("preferred_linkage", buildfile.Str("static")),
				buildfile.Arg("static_lib", buildfile.Str(sub(l.Path))))
		} else {
			args = append(args, buildfile.Arg("preferred_linkage", buildfile.Str("shared")),
				buildfile.Arg("shared_lib", buildfile.Str(sub(l.Path))))
			if l.SONAME != "" {
				args = append(args, buildfile.Arg("soname", buildfile.Str(l.SONAME)))
			}
		}
		libs = append(libs, call("prebuilt_cxx_library", public(), args...))
		switch {
		case l.Linked && l.Static:
			static = append(static, ":"+l.Name)
		case l.Linked:
			shared = append(shared, ":"+l.Name)
		}
	}
	b := buildfile.NewFile("repos/"+r.Name+"/BUCK", build.TypeBuild)
	args := []buildfile.KV{
		buildfile.Arg("name", buildfile.Str("archive")),
		buildfile.Arg("sha256", buildfile.Str(r.Archive.SHA256)),
	}
	if r.Archive.StripPrefix != "" {
		args = append(args, buildfile.Arg("strip_prefix", buildfile.Str(r.Archive.StripPrefix)))
	}
	if r.Archive.Type != "" {
		// A wheel: the prelude's http_archive tells the format by the
		// name, and .whl is not one it knows.
		args = append(args, buildfile.Arg("type", buildfile.Str(r.Archive.Type)))
	}
	if len(subTargets) > 0 {
		args = append(args, buildfile.Arg("sub_targets", buildfile.SortedStrList(subTargets)))
	}
	// Every source, mirrors first: the prelude's http_archive takes one URL,
	// so cuda_archive keeps them all and lets .buckconfig choose.
	args = append(args, buildfile.Arg("urls", buildfile.StrList(r.Archive.URLs)))
	b.Stmt = append(b.Stmt, buildfile.Load("//rules:cuda.bzl", "cuda_archive"), call("cuda_archive", public(), args...))

	hasHeaders := out.HasHeaders()
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
	b.Stmt = append(b.Stmt, libs...)
	// The package's own edges go through the hub, so they follow the same
	// CUDA version and platform as the package itself.
	hubLabels := func(names map[string]bool) []string {
		var out []string
		for _, n := range slices.Sorted(maps.Keys(names)) {
			out = append(out, "//:"+n)
		}
		return out
	}
	// Edges to another package's headers only (the crt headers a compiler
	// package holds in some releases) go to its <name>_headers hub target.
	headerLabels := hubLabels(r.HeaderDeps)
	for i, l := range headerLabels {
		headerLabels[i] = l + "_headers"
	}
	top := func(name string, exported []string, runtime []string, linkerFlags []string) {
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
		if len(linkerFlags) > 0 {
			args = append(args, buildfile.Arg("exported_linker_flags", buildfile.SortedStrList(linkerFlags)))
		}
		args = append(args, buildfile.Arg("header_only", buildfile.Ident("True")))
		b.Stmt = append(b.Stmt, call("prebuilt_cxx_library", public(), args...))
	}
	top(r.Manifest, append(append(slices.Clone(shared), hubLabels(r.Deps)...), headerLabels...), hubLabels(r.Runtime), nil)
	if len(static) > 0 {
		// The static link set, as Bazel's: the package's static libraries,
		// the static sets of what it links and of its static-only edges
		// (the plain target of one without static libraries), and the
		// system libraries they need, so that one target links statically.
		needs := maps.Clone(r.StaticDeps)
		for d := range r.Deps {
			needs[d] = true
		}
		var labels []string
		for _, d := range slices.Sorted(maps.Keys(needs)) {
			if g.static[d] {
				labels = append(labels, "//:"+d+"_static")
			} else {
				labels = append(labels, "//:"+d)
			}
		}
		top("static", append(append(slices.Clone(static), labels...), headerLabels...), nil, slices.Collect(maps.Keys(r.StaticLinkopts)))
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
	return "//platforms:" + archives.Sanitize(cpu)
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
		f.Stmt = append(f.Stmt, call("constraint_value", public(), buildfile.Arg("name", buildfile.Str(archives.Sanitize(c))), buildfile.Arg("constraint_setting", buildfile.Str("config//cpu/constraints:cpu"))))
	}
	// The plain platforms carry the version Bazel's --@cuda//:version
	// defaults to.
	def := g.ix.DefaultVersion(cfg.CUDA())
	for _, p := range ps {
		f.Stmt = append(f.Stmt, call("platform", public(), buildfile.Arg("name", buildfile.Str(archives.PlatformTarget(p))),
			buildfile.Arg("constraint_values", buildfile.StrList(append(local(constraints(p)), ":"+versionValue(def))))))
		for _, s := range g.sets {
			f.Stmt = append(f.Stmt, call("platform", public(), buildfile.Arg("name", buildfile.Str(archives.PlatformTarget(p)+"_"+versionValue(s.CUDA))),
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
	return versionValue(v) + "_" + archives.PlatformTarget(p)
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
	for _, name := range g.ix.Packages() {
		keys, labels := g.ix.Select(name,
			func(c archives.Cell) string { return ":" + configSetting(c.CUDA, c.Platform) },
			func(a *archives.Archive) string { return "//repos/" + a.Name + ":" + a.Manifest },
			"DEFAULT")
		f.Stmt = append(f.Stmt, call("alias", public(),
			buildfile.Arg("name", buildfile.Str(name)),
			buildfile.Arg("actual", buildfile.Positional("select", buildfile.Dict(keys, buildfile.StrList(labels).List)))))
	}
	// The static link set follows the package's own version and platform;
	// where a version's archive has no static libraries, the plain target
	// stands in.
	// A wheel has no static library at all (docs/wheels.md): there, the
	// static link set fails with the reason instead of linking the shared
	// library quietly.
	f.Stmt = append(f.Stmt, g.kindAliases("_static", file.StaticLib, "static", func(name string) bool {
		_, wheel := g.ix.WheelWithoutStatic(name)
		return g.static[name] || wheel
	})...)
	wanted := map[string]bool{}
	for _, a := range g.ix.Archives() {
		for n := range a.HeaderDeps {
			wanted[n] = true
		}
	}
	f.Stmt = append(f.Stmt, g.kindAliases("_headers", file.Headers, "headers", func(name string) bool { return wanted[name] && !g.ix.HasPackage(name+"_headers") })...)
	g.put(f)
}

// kindAliases are the hub's <package><suffix> aliases for the packages
// wanted names: per cell, the archive's target where it has files of the
// kind, its top target where not, the unusable target where no archive
// serves.
func (g *generator) kindAliases(suffix string, kind file.Kind, target string, wanted func(string) bool) []build.Expr {
	var out []build.Expr
	for _, name := range g.ix.Packages() {
		if !wanted(name) {
			continue
		}
		keys, labels := g.ix.Select(name,
			func(c archives.Cell) string { return ":" + configSetting(c.CUDA, c.Platform) },
			func(a *archives.Archive) string {
				if a.HasKind(kind) {
					return "//repos/" + a.Name + ":" + target
				}
				if kind == file.StaticLib && a.IsWheel() {
					return "//unusable:" + archives.WheelStaticTarget(name)
				}
				return "//repos/" + a.Name + ":" + a.Manifest
			},
			"DEFAULT")
		out = append(out, call("alias", public(),
			buildfile.Arg("name", buildfile.Str(name+suffix)),
			buildfile.Arg("actual", buildfile.Positional("select", buildfile.Dict(keys, buildfile.StrList(labels).List)))))
	}
	return out
}

// unusable writes unusable/BUCK: one failing target per package and (CUDA
// version, platform) it cannot be used for, with the reasons core/bazel
// gives, and one per package for a configuration that matches no (CUDA
// version, platform).
func (g *generator) unusable(cfg *config.Config) {
	f := buildfile.NewFile("unusable/BUCK", build.TypeBuild)
	f.Stmt = append(f.Stmt, buildfile.Load("//rules:cuda.bzl", "unusable"))
	// Only the cell's own aliases point here.
	vis := buildfile.Arg("visibility", buildfile.StrList([]string{"//..."}))
	cell := g.opts.Name
	var platformNames []string
	for _, t := range g.targets {
		platformNames = append(platformNames, archives.PlatformTarget(t))
	}
	var values []string
	for _, s := range g.sets {
		values = append(values, versionValue(s.CUDA))
	}
	hub := cell + "//:"
	flags := archives.QueryFlags(cfg.ExplicitCapabilities())
	for _, name := range g.ix.Packages() {
		for _, c := range g.ix.Cells(name) {
			if c.Archive == nil {
				msg := c.Unusable(hub, flags)
				f.Stmt = append(f.Stmt, call("unusable", vis, buildfile.Arg("name", buildfile.Str(archives.UnusableTarget(name, c.CUDA, c.Platform))), buildfile.Arg("message", buildfile.Str(msg))))
			}
		}
		msg := archives.Fit(fmt.Sprintf("%s//:%s: the configuration matches no CUDA version and target platform this cell was generated for (it must carry one of the versions in %s//platforms, %s, and the constraints of one of its platforms, %s); %s",
			cell, name, cell, archives.Summary(values), strings.Join(platformNames, ", "), g.ix.Usable(name)))
		f.Stmt = append(f.Stmt, call("unusable", vis, buildfile.Arg("name", buildfile.Str(name)), buildfile.Arg("message", buildfile.Str(msg))))
		if product, ok := g.ix.WheelWithoutStatic(name); ok {
			f.Stmt = append(f.Stmt, call("unusable", vis, buildfile.Arg("name", buildfile.Str(archives.WheelStaticTarget(name))), buildfile.Arg("message", buildfile.Str(archives.WheelStaticMessage(hub, name, product)))))
		}
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
	g.out.Set("rules/cuda.bzl", b)
	return nil
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
	execs := g.splice.Execs()
	for _, t := range execs {
		f.Stmt = append(f.Stmt, call("config_setting", public(),
			buildfile.Arg("name", buildfile.Str("exec_"+archives.PlatformTarget(t))),
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
			archive, ok := g.splice.Compiler(s.CUDA, t)
			if !ok {
				continue
			}
			name := "nvcc_" + v + "_" + archives.PlatformTarget(t)
			tools = true
			f.Stmt = append(f.Stmt, call("cuda_tool", public(),
				buildfile.Arg("name", buildfile.Str(name)),
				buildfile.Arg("archive", buildfile.Str("//repos/"+archive.Name+":archive")),
				buildfile.Arg("path", buildfile.Str(splice.CompilerPath))))
			keys = append(keys, ":exec_"+archives.PlatformTarget(t))
			vals = append(vals, buildfile.Str(":"+name))
			where = append(where, archives.PlatformTarget(t))
		}
		missing := "nvcc_" + v + "_unavailable"
		msg := fmt.Sprintf("%s//toolchain:nvcc_%s: no nvcc of CUDA %s runs on this execution platform; ", cell, v, s.CUDA)
		if len(where) == 0 {
			msg += fmt.Sprintf("%s has no nvcc for CUDA %s on any of the generated platforms", compiler, s.CUDA)
		} else {
			msg += "an execution platform needs the constraints of one of the platforms in " + cell + "//platforms: " + strings.Join(where, ", ")
		}
		msg = archives.Fit(msg)
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
		for _, t := range g.targets {
			var dirs []string
			for _, h := range g.splice.Headers(s.CUDA, t) {
				switch {
				case h.Archive != nil:
					for _, d := range h.Archive.Outputs().HeaderDirs {
						dirs = append(dirs, "//repos/"+h.Archive.Name+":archive["+d+"]")
					}
				case h.Unusable:
					dirs = append(dirs, "//unusable:"+archives.UnusableTarget(h.Package, s.CUDA, t)) // fails with the reasons
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
	var versionValues []string
	for _, s := range g.sets {
		versionValues = append(versionValues, versionValue(s.CUDA))
	}
	noVersion := "nvcc_unavailable"
	f.Stmt = append(f.Stmt, call("unusable", private,
		buildfile.Arg("name", buildfile.Str(noVersion)),
		buildfile.Arg("message", buildfile.Str(archives.Fit(fmt.Sprintf("%s//toolchain:cuda: the target platform carries none of the CUDA versions this cell was generated for (the versions in %s//platforms, %s)",
			cell, cell, archives.Summary(versionValues)))))))
	var headersDefault build.Expr = &build.ListExpr{}
	if rt := g.opts.Toolchain.Runtime; rt != "" {
		if g.ix.HasPackage(rt) {
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

// Lint checks the generated files as buildifier would (buildfile.Lint).
func Lint(tree Tree) []string { return buildfile.Lint(tree) }
