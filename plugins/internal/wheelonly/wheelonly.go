// Package wheelonly builds the plugin of a product NVIDIA ships only as
// Python wheels (NCCL, NVSHMEM, cuFFTMp): its manifests are made from a
// package index by `manifests fetch` (core/pyindex), one package per
// product, an archive per platform and CUDA major. A product is a Product
// value; the skeleton is here once.
//
// It is today's plugin style; when the SDK's declarative products land,
// each Product becomes one declaration.
package wheelonly

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Product describes one wheel-only product.
type Product struct {
	Name    string // the product, and its folder in a manifests tree
	Package string // its one manifest package
	Wheels  sdk.WheelProject
	// Files are the package's files below the wheel's prefix, for the CUDA
	// major of the archive ("12", "13").
	Files func(cudaMajor string) []sdk.File
	// Deps are its edges to packages of the set; an edge to a package the
	// set lacks is left out.
	Deps []sdk.Dep
}

// New returns the product's plugin.
func New(p Product) sdk.Fixer { return fixer{p} }

type fixer struct{ p Product }

func (f fixer) Describe() sdk.Description {
	return sdk.Description{Name: f.p.Name, Products: []string{f.p.Name},
		Facts: []sdk.ProductFacts{{Product: f.p.Name, Wheels: []sdk.WheelProject{f.p.Wheels}}}}
}

// reasonWindows is the redist plugin's reason, word for word.
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"

func (f fixer) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	have := map[string]bool{}
	for _, p := range b.SetPackages {
		have[p.Manifest] = true
	}
	return sdk.EachPackage(ctx, b, f.p.Name, func(p sdk.Package) (sdk.PackageResult, error) {
		if p.Manifest != f.p.Package {
			return sdk.Generic(p), nil
		}
		r := sdk.PackageResult{Name: p.Name, Platforms: map[string]sdk.PlatformResult{}}
		for _, d := range f.p.Deps {
			if have[d.Package] {
				r.Deps = append(r.Deps, d)
			}
		}
		for _, a := range p.Archives {
			if strings.HasPrefix(a.Platform, "windows-") {
				r.Platforms[a.Platform] = sdk.PlatformResult{Unusable: []string{reasonWindows}}
				continue
			}
			major := strings.TrimPrefix(a.Variant, "cuda")
			if a.Variant == "" {
				// A batch made of wheels without their variant (the file
				// list check): the set's CUDA major.
				major, _, _ = strings.Cut(b.CUDA, ".")
			}
			if major == "" {
				return r, fmt.Errorf("archive %s: no CUDA major", a.RelativePath)
			}
			r.Platforms[a.Platform] = sdk.PlatformResult{Files: f.p.Files(major)}
		}
		return r, nil
	})
}
