package bazel

import (
	"slices"
	"strconv"

	"github.com/bazelbuild/buildtools/build"

	"github.com/cudapkgs/cudapkgs/core/archives"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/splice"
)

// rules copies the rule sources of rules/ (with the header) into //rules.
func (g *generator) rules() {
	g.copyRules()
	g.put(buildfile.NewFile("rules/BUILD.bazel", build.TypeBuild))
}

// toolchain writes toolchain/BUILD.bazel: the nvcc toolchain type, one
// toolchain per (CUDA version, exec platform) whose nvcc is that platform's
// compiler archive, the headers nvcc compiles against (the target
// platform's cudart and crt) and those clang needs besides, the runtime
// each --@cuda//:runtime links, the device runtime (libcudadevrt.a) of the
// device link, and the -gencode defaults per (CUDA version, target
// platform) from the configuration (gpu.Gencode).
func (g *generator) toolchain(cfg *config.Config) {
	f := buildfile.NewFile("toolchain/BUILD.bazel", build.TypeBuild)
	f.Stmt = append(f.Stmt,
		buildfile.Load("@rules_cc//cc:defs.bzl", "cc_library"),
		nil,
		buildfile.Call("package", buildfile.Arg("default_visibility", buildfile.StrList([]string{"//visibility:public"}))),
		buildfile.Call("toolchain_type", buildfile.Arg("name", buildfile.Str("nvcc_toolchain_type"))))
	for _, s := range g.sets {
		f.Stmt = append(f.Stmt, buildfile.Call("config_setting",
			buildfile.Arg("name", buildfile.Str("version_"+s.CUDA.String())),
			buildfile.Arg("flag_values", buildfile.Dict([]string{"//:version"}, []build.Expr{buildfile.Str(s.CUDA.String())}))))
	}

	// Headers and -gencode defaults: per (CUDA version, target platform).
	var hKeys, gKeys, vKeys, dKeys []string
	var hVals, cVals, gVals, vVals, sVals, dVals []build.Expr
	labels := func(hs []splice.Header) []string {
		var out []string
		for _, h := range hs {
			if h.Archive != nil {
				out = append(out, "@"+h.Archive.Name+"//:headers")
			} else if g.ix.HasPackage(h.Package) {
				out = append(out, "//:"+h.Package) // the hub alias: fails with the reasons
			}
		}
		return out
	}
	for _, s := range g.sets {
		for _, t := range g.targets {
			k := "//:" + configSetting(s.CUDA, t)
			hKeys = append(hKeys, k)
			hVals = append(hVals, buildfile.StrList(labels(g.splice.Headers(s.CUDA, t))))
			cVals = append(cVals, buildfile.StrList(labels(g.splice.ClangHeaders(s.CUDA, t))))
			if u, ok := g.ix.Use(g.opts.Toolchain.Runtime, s.CUDA, t); ok && u.Archive != nil && u.Archive.HasFile(splice.DeviceRuntimePath) {
				dKeys = append(dKeys, k)
				dVals = append(dVals, buildfile.StrList([]string{"@" + u.Archive.Name + "//:" + splice.DeviceRuntimePath}))
			}
			gKeys = append(gKeys, k)
			gVals = append(gVals, buildfile.StrList(gpu.Gencode(cfg.Capabilities(s.CUDA, t), cfg.ForwardCompat())))
		}
		vKeys = append(vKeys, ":version_"+s.CUDA.String())
		vVals = append(vVals, buildfile.Str(s.CUDA.String()))
		var supported []string
		for _, c := range gpu.Capabilities() {
			if c.SupportedBy(s.CUDA) {
				supported = append(supported, c.Name)
			}
		}
		sVals = append(sVals, buildfile.StrList(supported))
	}
	withDefault := func(keys []string, vals []build.Expr, def build.Expr) build.Expr {
		return buildfile.Positional("select", buildfile.Dict(append(append([]string(nil), keys...), "//conditions:default"), append(append([]build.Expr(nil), vals...), def)))
	}
	f.Stmt = append(f.Stmt, buildfile.Call("cc_library",
		buildfile.Arg("name", buildfile.Str("headers")),
		buildfile.Arg("deps", withDefault(hKeys, hVals, buildfile.StrList([]string{"//:" + g.opts.Toolchain.Runtime})))))
	// Only --@cuda//:compiler=clang analyses (and fetches) clang's extra headers.
	f.Stmt = append(f.Stmt, buildfile.Call("cc_library",
		buildfile.Arg("name", buildfile.Str("clang_cuda_headers")),
		buildfile.Arg("deps", withDefault(hKeys, cVals, &build.ListExpr{}))))
	f.Stmt = append(f.Stmt, buildfile.Call("cc_library", buildfile.Arg("name", buildfile.Str("no_clang_headers"))))
	f.Stmt = append(f.Stmt, buildfile.Call("alias",
		buildfile.Arg("name", buildfile.Str("clang_headers")),
		buildfile.Arg("actual", withDefault([]string{"//:compiler_clang"}, []build.Expr{buildfile.Str(":clang_cuda_headers")}, buildfile.Str(":no_clang_headers")))))
	// --@cuda//:runtime: shared (the default), static (the runtime's static
	// link set), none (its headers only: the program brings its own).
	rtKeys, rtVals := []string{"//:runtime_none"}, []build.Expr{buildfile.Str(":headers")}
	if g.static[g.opts.Toolchain.Runtime] {
		rtKeys = append([]string{"//:runtime_static"}, rtKeys...)
		rtVals = append([]build.Expr{buildfile.Str("//:" + g.opts.Toolchain.Runtime + "_static")}, rtVals...)
	}
	f.Stmt = append(f.Stmt, buildfile.Call("alias",
		buildfile.Arg("name", buildfile.Str("runtime")),
		buildfile.Arg("actual", withDefault(rtKeys, rtVals, buildfile.Str("//:"+g.opts.Toolchain.Runtime)))))
	f.Stmt = append(f.Stmt, buildfile.Call("filegroup",
		buildfile.Arg("name", buildfile.Str("cudadevrt")),
		buildfile.Arg("srcs", withDefault(dKeys, dVals, &build.ListExpr{}))))
	f.Stmt = append(f.Stmt, buildfile.Call("cuda_gencode",
		buildfile.Arg("name", buildfile.Str("gencode")),
		buildfile.Arg("cuda_version", withDefault(vKeys, vVals, buildfile.Str(""))),
		buildfile.Arg("flags", withDefault(gKeys, gVals, &build.ListExpr{})),
		buildfile.Arg("forward_compat", buildfile.Ident(map[bool]string{true: "True", false: "False"}[cfg.ForwardCompat()])),
		buildfile.Arg("supported", withDefault(vKeys, sVals, &build.ListExpr{}))))

	// Toolchains: per (CUDA version, exec platform with a compiler archive).
	for _, s := range g.sets {
		hc, hcErr := gpu.HostCompilersFor(s.CUDA)
		// In a fixed order: toolchain resolution takes the first match.
		for _, t := range g.splice.Execs() {
			compiler, ok := g.splice.Compiler(s.CUDA, t)
			if !ok {
				continue
			}
			name := "nvcc_" + s.CUDA.String() + "_" + archives.PlatformTarget(t)
			args := []buildfile.KV{
				buildfile.Arg("name", buildfile.Str(name)),
				buildfile.Arg("cuda_version", buildfile.Str(s.CUDA.String())),
			}
			if hcErr == nil {
				args = append(args, buildfile.Arg("host_compilers", buildfile.Dict([]string{"clang", "gcc"}, []build.Expr{
					buildfile.Str(strconv.Itoa(hc.ClangMin) + "-" + strconv.Itoa(hc.ClangMax)),
					buildfile.Str(strconv.Itoa(hc.GCCMin) + "-" + strconv.Itoa(hc.GCCMax)),
				})))
			}
			if m, err := gpu.ClangFor(s.CUDA); err == nil {
				args = append(args, buildfile.Arg("clang_min", &build.LiteralExpr{Token: strconv.Itoa(m)}))
			} else {
				args = append(args, buildfile.Arg("clang_error", buildfile.Str(err.Error())))
			}
			args = append(args, buildfile.Arg("host_compiler", &build.CallExpr{
				X:    &build.DotExpr{X: buildfile.Ident("HOST_COMPILER"), Name: "get"},
				List: []build.Expr{buildfile.Str(s.CUDA.String()), buildfile.Str("")},
			}))
			args = append(args,
				buildfile.Arg("nvcc", buildfile.Str("@"+compiler.Name+"//:"+splice.CompilerPath)),
				buildfile.Arg("nvcc_files", buildfile.StrList(nvccFiles(compiler))))
			f.Stmt = append(f.Stmt, buildfile.Call("cuda_toolchain", args...))
			f.Stmt = append(f.Stmt, buildfile.Call("toolchain",
				buildfile.Arg("name", buildfile.Str(s.CUDA.String()+"_"+archives.PlatformTarget(t))),
				buildfile.Arg("exec_compatible_with", buildfile.StrList(constraints(t, "//platforms:"))),
				buildfile.Arg("target_settings", buildfile.StrList([]string{":version_" + s.CUDA.String()})),
				buildfile.Arg("toolchain", buildfile.Str(":"+name)),
				buildfile.Arg("toolchain_type", buildfile.Str(":nvcc_toolchain_type"))))
		}
	}
	loaded := []string{"cuda_gencode"}
	for _, st := range f.Stmt {
		if c, ok := st.(*build.CallExpr); ok {
			if id, ok := c.X.(*build.Ident); ok && id.Name == "cuda_toolchain" {
				loaded = append(loaded, "cuda_toolchain")
				break
			}
		}
	}
	for i, st := range f.Stmt {
		if st == nil {
			f.Stmt[i] = buildfile.Load("//rules:cuda.bzl", loaded...)
			if len(loaded) > 1 {
				f.Stmt = slices.Insert(f.Stmt, 1, build.Expr(buildfile.Load("@"+g.opts.Name+"_config//:config.bzl", "HOST_COMPILER")))
			}
			break
		}
	}
	g.put(f)
}

// nvccFiles are the compiler archive's targets an nvcc action needs as
// inputs: its tools, and its data (nvcc.profile, which tells nvcc where
// cicc and libdevice are; crt; libdevice), without which a sandboxed nvcc
// finds none of them.
func nvccFiles(a *archives.Archive) []string {
	out := []string{"@" + a.Name + "//:bin"}
	if a.HasKind(file.Data) {
		out = append(out, "@"+a.Name+"//:data")
	}
	return out
}
