package nvtiff

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// What the core must know about nvTIFF beyond its manifests, given in
// Describe: its name and where NVIDIA publishes it.
const (
	// Product is the product's folder in a manifests tree, and its name.
	Product = "nvtiff"
	// RedistPath is the folder of NVIDIA's redist tree (below
	// developer.download.nvidia.com) that holds the manifests and archives.
	RedistPath = "compute/nvtiff/redist"
)

// New returns the nvTIFF plugin.
func New() sdk.Fixer { return fixer{} }

type fixer struct{}

func (fixer) Describe() sdk.Description {
	return sdk.Description{Name: Product, Products: []string{Product},
		Facts: []sdk.ProductFacts{{Product: Product, Base: sdk.NVIDIABase, Path: RedistPath}}}
}

// Fixup answers for every package of the batch.
func (fixer) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	set := map[string]bool{}
	for _, p := range b.SetPackages {
		set[p.Manifest] = true
	}
	return sdk.EachPackage(ctx, b, Product, func(p sdk.Package) (sdk.PackageResult, error) {
		return fixPackage(set, p)
	})
}

// pkgLib is the one package of every nvTIFF manifest.
const pkgLib = "libnvtiff"

// soMajor is the SONAME major of the releases described: nvTIFF 0.x ships
// libnvtiff.so.0 (NVIDIA's 0.8.0.82 wheels, cu12 and cu13, x86_64 and
// aarch64). Another major's SONAMEs are unknown, so such a release is
// unusable with a reason rather than guessed at.
const soMajor = 0

func fixPackage(set map[string]bool, p sdk.Package) (sdk.PackageResult, error) {
	r := sdk.PackageResult{Name: p.Name, Platforms: map[string]sdk.PlatformResult{}}
	rel, err := version.Parse(p.Release)
	if err != nil {
		return r, fmt.Errorf("release: %w", err)
	}
	if p.Manifest != pkgLib {
		// NVIDIA's next package: served from the conventional layout.
		return sdk.Generic(p), nil
	}
	if rel.Major() != soMajor {
		for _, a := range p.Archives {
			r.Platforms[a.Platform] = sdk.PlatformResult{Unusable: []string{fmt.Sprintf(
				"the nvtiff plugin describes nvTIFF 0.x, not nvTIFF %s: its files and dependencies are not described", p.Release)}}
		}
		return r, nil
	}
	// nvtiff.h includes cuda_runtime.h and library_types.h (cuda_cudart's
	// headers); the library NEEDs only the C library, so no other edge.
	if set["cuda_cudart"] {
		r.Deps = []sdk.Dep{{Package: "cuda_cudart"}}
	}
	r.StaticLinkopts = []string{"-ldl", "-lpthread", "-lrt", "-lm"}
	for _, a := range p.Archives {
		if strings.HasPrefix(a.Platform, "windows-") {
			r.Platforms[a.Platform] = sdk.PlatformResult{Unusable: []string{reasonWindows}}
			continue
		}
		r.Platforms[a.Platform] = sdk.PlatformResult{Files: files()}
	}
	return r, nil
}

// reasonWindows is the redist plugin's reason, word for word.
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"

func files() []sdk.File {
	so := fmt.Sprintf("libnvtiff.so.%d", soMajor)
	return []sdk.File{
		{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
		{Path: "lib/" + so, Kind: sdk.SharedLib, Role: sdk.Target, SONAME: so},
		{Path: "lib/libnvtiff_static.a", Kind: sdk.StaticLib, Role: sdk.Target},
	}
}
