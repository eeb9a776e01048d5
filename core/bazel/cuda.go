package bazel

import (
	"sort"
	"strconv"

	"github.com/bazelbuild/buildtools/build"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/rules"
)

// rules copies the rule sources of rules/ (with the header) into //rules.
func (g *generator) rules() {
	g.tree["rules/cuda.bzl"] = append([]byte(Header+"\n"), rules.CudaBzl...)
	g.put(newFile("rules/BUILD.bazel", build.TypeBuild))
}

// hasHeaders reports whether a repository's BUILD file has a :headers target.
func (r *repo) hasHeaders() bool {
	for f := range r.files {
		if f.Kind == "headers" {
			return true
		}
	}
	return false
}

// toolchain writes toolchain/BUILD.bazel: the nvcc toolchain type, one
// toolchain per (CUDA version, exec platform) whose nvcc is that platform's
// compiler archive, the headers nvcc compiles against (the target
// platform's cudart and crt), and the -gencode defaults per (CUDA version,
// target platform) from the configuration (gpu.Gencode).
func (g *generator) toolchain(cfg *config.Config) {
	f := newFile("toolchain/BUILD.bazel", build.TypeBuild)
	f.Stmt = append(f.Stmt,
		load("@rules_cc//cc:defs.bzl", "cc_library"),
		nil,
		call("package", arg("default_visibility", strList([]string{"//visibility:public"}))),
		call("toolchain_type", arg("name", str("nvcc_toolchain_type"))))
	for _, s := range g.sets {
		f.Stmt = append(f.Stmt, call("config_setting",
			arg("name", str("version_"+s.CUDA.String())),
			arg("flag_values", dict([]string{"//:version"}, []build.Expr{str(s.CUDA.String())}))))
	}

	// Headers and -gencode defaults: per (CUDA version, target platform).
	var hKeys, gKeys, vKeys []string
	var hVals, gVals, vVals, sVals []build.Expr
	for _, s := range g.sets {
		var headerPkgs []string
		if g.opts.Toolchain.Headers != nil {
			headerPkgs = g.opts.Toolchain.Headers(s.CUDA)
		}
		for _, t := range g.targets {
			k := "//:" + configSetting(s.CUDA, t)
			var hdrs []string
			for _, p := range headerPkgs {
				if u, ok := g.packages[p][key(s.CUDA, t)]; ok && u.repo != nil && u.repo.hasHeaders() {
					hdrs = append(hdrs, "@"+u.repo.name+"//:headers")
				} else if _, ok := g.packages[p]; ok {
					hdrs = append(hdrs, "//:"+p) // the hub alias: fails with the reasons
				}
			}
			hKeys = append(hKeys, k)
			hVals = append(hVals, strList(hdrs))
			gKeys = append(gKeys, k)
			gVals = append(gVals, strList(gpu.Gencode(cfg.Capabilities(s.CUDA, t), cfg.ForwardCompat())))
		}
		vKeys = append(vKeys, ":version_"+s.CUDA.String())
		vVals = append(vVals, str(s.CUDA.String()))
		var supported []string
		for _, c := range gpu.Capabilities() {
			if c.SupportedBy(s.CUDA) {
				supported = append(supported, c.Name)
			}
		}
		sVals = append(sVals, strList(supported))
	}
	withDefault := func(keys []string, vals []build.Expr, def build.Expr) build.Expr {
		return positional("select", dict(append(append([]string(nil), keys...), "//conditions:default"), append(append([]build.Expr(nil), vals...), def)))
	}
	f.Stmt = append(f.Stmt, call("cc_library",
		arg("name", str("headers")),
		arg("deps", withDefault(hKeys, hVals, strList([]string{"//:" + g.opts.Toolchain.Runtime})))))
	f.Stmt = append(f.Stmt, call("alias",
		arg("name", str("runtime")),
		arg("actual", str("//:"+g.opts.Toolchain.Runtime))))
	f.Stmt = append(f.Stmt, call("cuda_gencode",
		arg("name", str("gencode")),
		arg("cuda_version", withDefault(vKeys, vVals, str(""))),
		arg("flags", withDefault(gKeys, gVals, &build.ListExpr{})),
		arg("forward_compat", ident(map[bool]string{true: "True", false: "False"}[cfg.ForwardCompat()])),
		arg("supported", withDefault(vKeys, sVals, &build.ListExpr{}))))

	// Toolchains: per (CUDA version, exec platform with a compiler archive).
	for _, s := range g.sets {
		hc, hcErr := gpu.HostCompilersFor(s.CUDA)
		for _, t := range g.execPlatforms() {
			u, ok := g.packages[g.opts.Toolchain.Compiler][key(s.CUDA, t)]
			if !ok || u.repo == nil || !u.repo.hasFile("bin/nvcc") {
				continue
			}
			name := "nvcc_" + s.CUDA.String() + "_" + platformTarget(t)
			args := []kv{
				arg("name", str(name)),
				arg("cuda_version", str(s.CUDA.String())),
			}
			if hcErr == nil {
				args = append(args, arg("host_compilers", dict([]string{"clang", "gcc"}, []build.Expr{
					str(strconv.Itoa(hc.ClangMin) + "-" + strconv.Itoa(hc.ClangMax)),
					str(strconv.Itoa(hc.GCCMin) + "-" + strconv.Itoa(hc.GCCMax)),
				})))
			}
			args = append(args,
				arg("nvcc", str("@"+u.repo.name+"//:bin/nvcc")),
				arg("nvcc_files", strList([]string{"@" + u.repo.name + "//:bin"})))
			f.Stmt = append(f.Stmt, call("cuda_toolchain", args...))
			f.Stmt = append(f.Stmt, call("toolchain",
				arg("name", str(s.CUDA.String()+"_"+platformTarget(t))),
				arg("exec_compatible_with", strList(constraints(t, "//platforms:"))),
				arg("target_settings", strList([]string{":version_" + s.CUDA.String()})),
				arg("toolchain", str(":"+name)),
				arg("toolchain_type", str(":nvcc_toolchain_type"))))
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
			f.Stmt[i] = load("//rules:cuda.bzl", loaded...)
		}
	}
	g.put(f)
}

// execPlatforms are the targets that can run nvcc (Linux), the configured
// exec platform first: toolchain resolution takes the first match.
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

func (r *repo) hasFile(p string) bool {
	for f := range r.files {
		if f.Path == p {
			return true
		}
	}
	return false
}
