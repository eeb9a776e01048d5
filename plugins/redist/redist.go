package redist

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Product is the product this plugin fixes: NVIDIA's CUDA toolkit redist.
const Product = "cuda"

// Target platform names, as the host names them.
const (
	linuxX86    = "linux-x86_64"
	linuxSBSA   = "linux-sbsa"
	linuxJetson = "linux-jetson"
	linuxPPC    = "linux-ppc64le"
	windows     = "windows-x86_64"
	windowsARM  = "windows-arm64"
)

// isWindows: no Windows archive's layout is described yet, whatever its CPU.
func isWindows(target string) bool { return strings.HasPrefix(target, "windows-") }

// New returns the CUDA toolkit's fixer.
func New() sdk.Fixer { return fixer{} }

type fixer struct{}

func (fixer) Describe() sdk.Description {
	return sdk.Description{Name: "redist", Products: []string{Product}, Renames: renames(), Facts: []sdk.ProductFacts{{
		Product: Product, Toolkit: true, Base: sdk.NVIDIABase, Path: "compute/cuda/redist",
		Toolchain: toolchain(), LocalHints: localHints(),
		// nvcc's version is the release's most telling, then the runtime's.
		LocalIdentify: []string{"cuda_nvcc", "cuda_cudart"},
	}}}
}

// toolchain: nvcc comes from cuda_nvcc on the exec platform; code compiles
// against cuda_cudart's headers and nvcc's crt headers (inside cuda_nvcc
// before CUDA 13.0, the separate cuda_crt from 13.0) on the target
// platform, and links cuda_cudart. clang's CUDA wrapper header includes
// curand_mtgp32_kernel.h, which includes CCCL's <nv/target> (cuda_cccl, renamed
// cccl in 13.3): only clang builds get libcurand's and CCCL's headers.
func toolchain() *sdk.Toolchain {
	return &sdk.Toolchain{
		Compiler: "cuda_nvcc",
		Runtime:  "cuda_cudart",
		Headers: []sdk.ToolchainHeaders{
			{Packages: []string{"cuda_cudart", "cuda_nvcc"}},
			{Since: "13.0", Packages: []string{"cuda_cudart", "cuda_crt"}},
		},
		ClangHeaders: []sdk.ToolchainHeaders{
			{Packages: []string{"libcurand", "cuda_cccl"}},
			{Since: "13.3", Packages: []string{"libcurand", "cccl"}},
		},
	}
}

// localHints say where an installed CUDA states the versions of components
// whose layout lists none (Debian's): nvcc carries its version in its
// binary, the runtime and NVRTC in their library file names.
func localHints() []sdk.LocalHint {
	return []sdk.LocalHint{
		{Component: "cuda_nvcc", Rel: "bin/nvcc", Kind: "text", Key: ", V"},
		{Component: "cuda_cudart", Rel: "lib", Kind: "name", Key: "libcudart.so."},
		{Component: "cuda_nvrtc", Rel: "lib", Kind: "name", Key: "libnvrtc.so."},
	}
}

// renames are the manifest names NVIDIA changed. Edges keep the old name
// (cuda_cudart depends on cuda_cccl); the host follows them to the new one.
func renames() []sdk.Rename {
	return []sdk.Rename{
		{Package: "cccl", Replaces: "cuda_cccl", Since: "13.3"},
	}
}

// successor is the package that replaces name in CUDA cuda, if renamed.
func successor(name string, cuda ver) (string, bool) {
	for _, r := range renames() {
		if r.Replaces == name && within(cuda, r.Since, "") {
			return r.Package, true
		}
	}
	return "", false
}

// Fixup answers for every package of the batch from the tables in table.go.
func (fixer) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	cuda, err := parseVer(b.CUDA)
	if err != nil {
		return nil, fmt.Errorf("redist: batch CUDA version: %w", err)
	}
	// The packages of the whole set, by manifest name: an edge to a package
	// the set lacks is left out (see depsFor).
	var inSet map[string]bool
	if len(b.SetPackages) > 0 {
		inSet = map[string]bool{}
		for _, sp := range b.SetPackages {
			inSet[sp.Manifest] = true
		}
	}
	return sdk.EachPackage(ctx, b, Product, func(p sdk.Package) (sdk.PackageResult, error) {
		return fixPackage(cuda, b.Config, inSet, p)
	})
}

// env is what a table rule is evaluated against.
type env struct {
	cuda     ver      // the batch's CUDA version
	pkg      ver      // the package's own version
	platform string   // the target platform
	caps     []string // the capabilities the configuration builds it for
	cfg      sdk.Config
}

func fixPackage(cuda ver, cfg sdk.Config, inSet map[string]bool, p sdk.Package) (sdk.PackageResult, error) {
	out := sdk.PackageResult{Name: p.Name, Platforms: map[string]sdk.PlatformResult{}}
	pv, err := parseVer(p.Version)
	if err != nil {
		return out, err
	}
	spec, known := table[p.Manifest]

	archives := map[string]bool{}
	for _, a := range p.Archives {
		archives[a.Platform] = true
	}
	for _, t := range targets(cfg, p) {
		e := env{cuda: cuda, pkg: pv, platform: t, caps: cfg.Capabilities[t], cfg: cfg}
		var reasons []string
		switch {
		case !known:
			// NVIDIA's next package: served from the archive's
			// conventional layout, marked generic, with the host's warning.
			if archives[t] && !isWindows(t) {
				out.Platforms[t] = sdk.PlatformResult{Generic: true}
				continue
			}
		default:
			for _, u := range spec.unusable {
				if u.holds(e) {
					reasons = append(reasons, expand(u.reason, p))
				}
			}
		}
		if isWindows(t) && archives[t] {
			reasons = append(reasons, reasonWindows)
		}
		if len(reasons) > 0 {
			out.Platforms[t] = sdk.PlatformResult{Unusable: reasons}
			continue
		}
		if !archives[t] {
			continue // the host's reasons for having no archive stand
		}
		out.Platforms[t] = sdk.PlatformResult{Files: spec.filesFor(e)}
	}
	if known {
		out.Deps = spec.depsFor(cuda, cfg, inSet)
		out.StaticLinkopts = spec.staticLinkopts
		for _, pa := range spec.patches {
			if within(cuda, pa.since, pa.until) {
				out.Patches = append(out.Patches, pa.Patch)
			}
		}
	}
	return out, nil
}

// depsFor returns the edges that hold for a CUDA version and configuration.
// An edge limited to platforms keeps only the configured ones, and is left
// out when none is; an edge to a package the set does not have (inSet, nil
// when the batch does not say) is left out: the tables' bounds keep every
// edge within the releases that have its package, so that happens only with
// a manifest newer than the tables, whose packages may be renamed.
func (s pkg) depsFor(cuda ver, cfg sdk.Config, inSet map[string]bool) []sdk.Dep {
	var deps []sdk.Dep
	for _, d := range s.deps {
		if d.forwardCompat && !cfg.ForwardCompat {
			continue
		}
		if !within(cuda, d.Since, d.Until) {
			continue
		}
		if inSet != nil && !inSet[d.Package] {
			// Kept where a rename names its successor, which the host
			// resolves; dropped only where the set really lacks it.
			if next, ok := successor(d.Package, cuda); !ok || !inSet[next] {
				continue
			}
		}
		dep := d.Dep
		dep.Platforms = nil
		for _, pl := range d.Platforms {
			if (len(cfg.Targets) == 0 || contains(cfg.Targets, pl)) && (d.onlyFor == "" || onlyOf(cfg, cfg.Capabilities[pl], d.onlyFor)) {
				dep.Platforms = append(dep.Platforms, pl)
			}
		}
		if len(d.Platforms) > 0 && len(dep.Platforms) == 0 {
			continue
		}
		deps = append(deps, dep)
	}
	return deps
}

// targets lists the platforms to answer for, sorted: the configured targets
// (the host accepts answers for those only), or, in a batch that names none,
// every platform the package has an archive or a reason for.
func targets(cfg sdk.Config, p sdk.Package) []string {
	var ts []string
	if len(cfg.Targets) > 0 {
		ts = append(ts, cfg.Targets...)
	} else {
		for _, a := range p.Archives {
			ts = append(ts, a.Platform)
		}
		for t := range p.Unavailable {
			if !contains(ts, t) {
				ts = append(ts, t)
			}
		}
	}
	sort.Strings(ts)
	return ts
}

func (s pkg) filesFor(e env) []sdk.File {
	var fs []sdk.File
	for _, f := range s.files {
		if !f.holds(e) {
			continue
		}
		out := sdk.File{Path: f.path, Kind: f.kind, Role: f.role}
		if f.kind == sdk.SharedLib {
			out.Path = f.path + ".so" + f.so(e.pkg)
			out.SONAME = path.Base(out.Path)
		}
		fs = append(fs, out)
	}
	return fs
}

func (w when) holds(e env) bool {
	if !within(e.cuda, w.since, w.until) {
		return false
	}
	if len(w.on) > 0 && !contains(w.on, e.platform) {
		return false
	}
	if w.lacks != "" && (len(e.caps) == 0 || anyOf(e.cfg, e.caps, w.lacks)) {
		return false
	}
	return !contains(w.off, e.platform)
}

// anyOf reports whether a capability of caps is of major.minor mm ("8.7"
// for 8.7, and for the feature variants a table may add).
func anyOf(cfg sdk.Config, caps []string, mm string) bool {
	for _, c := range caps {
		if v, _, ok := cfg.Capability(c); ok && v.String() == mm {
			return true
		}
	}
	return false
}

// onlyOf reports whether every capability of caps is of major.minor mm;
// true when caps is empty (the batch does not say).
func onlyOf(cfg sdk.Config, caps []string, mm string) bool {
	for _, c := range caps {
		if v, _, ok := cfg.Capability(c); !ok || v.String() != mm {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// expand fills a reason's {pkg} and {version}.
func expand(reason string, p sdk.Package) string {
	return strings.NewReplacer("{pkg}", p.Manifest, "{version}", p.Version).Replace(reason)
}
