package cusparselt

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/internal/gpucap"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// What the core must know about cuSPARSELt beyond its manifests, given in
// Describe: its name and where NVIDIA publishes it.
const (
	// Product is the product's folder in a manifests tree, and its name.
	Product = "cusparselt"
	// RedistPath is the folder of NVIDIA's redist tree (below
	// developer.download.nvidia.com) that holds the manifests and archives.
	RedistPath = "compute/cusparselt/redist"
)

// New returns the cuSPARSELt plugin.
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

// pkgLib is the one package of every cuSPARSELt manifest.
const pkgLib = "libcusparse_lt"

func known(manifest string) bool { return manifest == pkgLib }

// soMajor is the SONAME major of every release this plugin describes:
// cuSPARSELt 0.x ships libcusparseLt.so.0. A release of another major has a
// SONAME nobody has seen yet, so it is unusable with a reason rather than
// guessed at.
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
				"the cusparselt plugin describes cuSPARSELt 0.x, not cuSPARSELt %s: its files and dependencies are not described", p.Release)}}
		}
		return r, nil
	}
	r.Deps = deps(rel, set)
	// Static cuSPARSELt carries the objects of the shared library, whose
	// NEEDED entries (NVIDIA's 0.8.1 and 0.10.0 wheels) are these.
	r.StaticLinkopts = []string{"-ldl", "-lpthread", "-lrt", "-lm"}
	for _, a := range p.Archives {
		pr := sdk.PlatformResult{Files: files()}
		pr.Unusable, pr.Judged = b.Config.JudgeCapabilities(a.Platform, func(caps []string) []string { return capabilityReasons(rel, caps) })
		if strings.HasPrefix(a.Platform, "windows-") {
			// As the redist plugin: no Windows file is claimed (doc.go
			// keeps what is known of the layout for when there is).
			pr = sdk.PlatformResult{Unusable: append([]string{reasonWindows}, pr.Unusable...)}
		}
		r.Platforms[a.Platform] = pr
	}
	return r, nil
}

// reasonWindows is the redist plugin's reason, word for word, so that every
// product says the same about Windows.
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"

// soname is the shared library's SONAME, the file the dynamic linker looks for.
var soname = fmt.Sprintf("libcusparseLt.so.%d", soMajor)

// files lists the archive's outputs: include/ (cusparseLt.h, and from 0.10
// cusparseLt_cusparse_stub.h), libcusparseLt.so.0 and libcusparseLt_static.a,
// in lib/ of every per-CUDA-major archive.
func files() []sdk.File {
	return []sdk.File{
		{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
		{Path: "lib/" + soname, Kind: sdk.SharedLib, Role: sdk.Target, SONAME: soname},
		{Path: "lib/libcusparseLt_static.a", Kind: sdk.StaticLib, Role: sdk.Target},
	}
}

var (
	// nvrtcSince: libcusparseLt opens libnvrtc.so.<cuda major> with dlopen
	// from 0.8 (nixpkgs adds NVRTC to its runpath from 0.8; the strings of
	// NVIDIA's 0.8.1 and 0.10.0 wheels name libnvrtc.so.12 and .13).
	nvrtcSince = version.MustParse("0.8")
	// cusparseStubSince: before 0.10, cusparseLt.h includes cusparse.h
	// unconditionally (for cusparseStatus_t); 0.10 ships
	// cusparseLt_cusparse_stub.h and includes cusparse.h only where it is
	// reachable.
	cusparseStubSince = version.MustParse("0.10")
)

// deps: cuda_cudart is a link edge (cusparseLt.h includes driver_types.h and
// library_types.h; the static library needs the runtime at link time);
// cuda_nvrtc a runtime one; libcusparse's headers before 0.10. Edges go only
// to packages the set has.
func deps(rel version.Version, set setIndex) []sdk.Dep {
	var out []sdk.Dep
	add := func(d sdk.Dep) {
		if set.has(d.Package) {
			out = append(out, d)
		}
	}
	add(sdk.Dep{Package: "cuda_cudart"})
	if !rel.Less(nvrtcSince) {
		add(sdk.Dep{Package: "cuda_nvrtc", Runtime: true})
	}
	if rel.Less(cusparseStubSince) {
		add(sdk.Dep{Package: "libcusparse", Headers: true})
	}
	return out
}

// floorMin is the oldest capability cuSPARSELt serves: it runs on the
// Sparse Tensor Cores that came with NVIDIA Ampere. Its first release
// supported SM 8.0 only (release notes, v0.0.1), and the "Support SM arch"
// column of NVIDIA's 0.8.1 and 0.10.0 package descriptions starts at 8.0.
var floorMin = version.MustParse("8.0")

// capabilityReasons names the configured capabilities below the floor. Every
// release has the same floor, so no other release of the set can be named
// instead.
func capabilityReasons(rel version.Version, caps []string) []string {
	below := gpucap.Below(caps, floorMin)
	if below == "" {
		return nil
	}
	return []string{fmt.Sprintf("cuSPARSELt %s needs the Sparse Tensor Cores of capabilities %s (NVIDIA Ampere) and newer; %s", rel, floorMin, below)}
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
