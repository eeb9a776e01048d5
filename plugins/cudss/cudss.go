package cudss

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/internal/gpucap"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// What the core must know about cuDSS beyond its manifests, given in
// Describe: its name and where NVIDIA publishes it.
const (
	// Product is the product's folder in a manifests tree, and its name.
	Product = "cudss"
	// RedistPath is the folder of NVIDIA's redist tree (below
	// developer.download.nvidia.com) that holds the manifests and archives.
	RedistPath = "compute/cudss/redist"
)

// New returns the cuDSS plugin.
func New() sdk.Fixer { return fixer{} }

type fixer struct{}

func (fixer) Describe() sdk.Description {
	return sdk.Description{Name: Product, Products: []string{Product},
		Facts: []sdk.ProductFacts{{Product: Product, Base: sdk.NVIDIABase, Path: RedistPath}}}
}

// Fixup answers for every package of the batch.
func (fixer) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	set := indexSet(b.SetPackages)
	return sdk.EachPackage(ctx, b, Product, func(p sdk.Package) (sdk.PackageResult, error) {
		return fixPackage(b, set, p)
	})
}

// pkgLib is the one package of every cuDSS manifest.
const pkgLib = "libcudss"

func known(manifest string) bool { return manifest == pkgLib }

// soMajor is the SONAME major of every release this plugin describes: cuDSS
// 0.x ships libcudss.so.0 and its layers as .so.0. A release of another
// major has SONAMEs nobody has seen yet, so it is unusable with a reason
// rather than guessed at.
const soMajor = 0

func fixPackage(b *sdk.Batch, set setIndex, p sdk.Package) (sdk.PackageResult, error) {
	r := sdk.PackageResult{Name: p.Name, Platforms: map[string]sdk.PlatformResult{}}
	rel, err := version.Parse(p.Release)
	if err != nil {
		return r, fmt.Errorf("release: %w", err)
	}
	if !known(p.Manifest) {
		// NVIDIA's next package: served from the conventional layout.
		return sdk.Generic(p), nil
	}
	if rel.Major() != soMajor {
		for _, a := range p.Archives {
			r.Platforms[a.Platform] = sdk.PlatformResult{Unusable: []string{fmt.Sprintf(
				"the cudss plugin describes cuDSS 0.x, not cuDSS %s: its files and dependencies are not described", p.Release)}}
		}
		return r, nil
	}
	r.Deps = deps(set)
	// Static cuDSS carries the objects of the shared library, whose NEEDED
	// system libraries (NVIDIA's 0.6.0.5 and 0.8.0.10 wheels) are these.
	r.StaticLinkopts = []string{"-ldl", "-lpthread", "-lrt", "-lm"}
	for _, a := range p.Archives {
		pr := sdk.PlatformResult{Files: files()}
		pr.Unusable, pr.Judged = b.Config.JudgeCapabilities(a.Platform, func(caps []string) []string { return capabilityReasons(rel, caps) })
		if strings.HasPrefix(a.Platform, "windows-") {
			// As the redist plugin: no Windows file is claimed.
			pr = sdk.PlatformResult{Unusable: append([]string{reasonWindows}, pr.Unusable...)}
		}
		r.Platforms[a.Platform] = pr
	}
	return r, nil
}

// reasonWindows is the redist plugin's reason, word for word, so that every
// product says the same about Windows.
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"

// layers are cuDSS's communication and threading layers, libcudss_<name>.so.0:
// libraries cuDSS opens at run time, from the path the program names
// (CUDSS_COMM_LIB, CUDSS_THREADING_LIB), for its multi-GPU multi-node and
// multi-threaded modes. Each needs a library no package of these sets
// provides (their NEEDED entries in NVIDIA's wheels): commlayer_nccl
// libnccl.so.2 (and, from 0.8, libmpi.so.40), commlayer_openmpi
// libmpi.so.40, mtlayer_gomp libgomp.so.1. So they are data: in the
// package and its runfiles for programs that bring MPI, NCCL or OpenMP, and
// never in the default link, which would break every cuDSS program's link
// and load where those are missing.
var layers = []string{"commlayer_nccl", "commlayer_openmpi", "mtlayer_gomp"}

// files lists the archive's outputs, in include/ and lib/ of every
// per-CUDA-major archive: the headers (cudss.h and the interfaces of the
// layers; cudss_data_types.h from 0.8), libcudss.so.0 by SONAME,
// libcudss_static.a and the layers as data.
func files() []sdk.File {
	so := fmt.Sprintf("libcudss.so.%d", soMajor)
	out := []sdk.File{
		{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
		{Path: "lib/" + so, Kind: sdk.SharedLib, Role: sdk.Target, SONAME: so},
		{Path: "lib/libcudss_static.a", Kind: sdk.StaticLib, Role: sdk.Target},
	}
	for _, l := range layers {
		out = append(out, sdk.File{Path: fmt.Sprintf("lib/libcudss_%s.so.%d", l, soMajor), Kind: sdk.Data, Role: sdk.Target})
	}
	return out
}

// deps: libcublas is a link edge (libcudss.so.0 NEEDs libcublas.so.<cuda
// major>; static cuDSS links libcublas_static, libcublasLt_static and
// culibos, which the libcublas package's static set brings); cuda_cudart a
// link edge too (cudss.h includes cuda_runtime.h; the static library needs
// the runtime). Edges go only to packages the set has.
func deps(set setIndex) []sdk.Dep {
	var out []sdk.Dep
	for _, d := range []string{"libcublas", "cuda_cudart"} {
		if set.has(d) {
			out = append(out, sdk.Dep{Package: d})
		}
	}
	return out
}

// floorMin is the oldest capability cuDSS serves: NVIDIA's cuDSS page says
// it supports all NVIDIA GPUs from Pascal (6.0) on. No release in the
// manifests changed that.
var floorMin = version.MustParse("6.0")

// capabilityReasons names the configured capabilities below the floor. Every
// release has the same floor, so no other release of the set can be named
// instead.
func capabilityReasons(rel version.Version, caps []string) []string {
	below := gpucap.Below(caps, floorMin)
	if below == "" {
		return nil
	}
	return []string{fmt.Sprintf("cuDSS %s supports capabilities %s (NVIDIA Pascal) and newer; %s", rel, floorMin, below)}
}

// setIndex answers which manifest packages the whole set has.
type setIndex map[string]bool

func indexSet(all []sdk.SetPackage) setIndex {
	s := setIndex{}
	for _, p := range all {
		s[p.Manifest] = true
	}
	return s
}

func (s setIndex) has(manifest string) bool { return s[manifest] }
