package cusparselt

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's folder in a manifests tree, and its name.
const Product = "cusparselt"

// New returns the cuSPARSELt plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is cuSPARSELt as the SDK builds its plugin from it: one
// package, libcusparse_lt, for the three Linux platforms; doc.go gives the
// source of every fact.
func Declaration() sdk.Product {
	return sdk.Product{Name: Product, Title: "cuSPARSELt", Path: "compute/cusparselt/redist",
		// Also on PyPI; the user picks the source (docs/sources.md). The
		// CUDA 12 wheel keeps its files below nvidia/cusparselt, the CUDA 13
		// one below the shared nvidia/cu13.
		Wheels: []sdk.WheelProject{
			{Project: "nvidia-cusparselt-cu12", CUDAMajors: []string{"12"}, Package: "libcusparse_lt", Prefix: "nvidia/cusparselt"},
			{Project: "nvidia-cusparselt-cu13", CUDAMajors: []string{"13"}, Package: "libcusparse_lt", Prefix: "nvidia/cu13"},
		},
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"},
		// 0.x ships libcusparseLt.so.0; another major has a SONAME nobody
		// has seen yet.
		Majors:   []int{0},
		Packages: []sdk.PackageSpec{libcusparseLt()}}
}

// libcusparseLt: the headers (cusparseLt.h, and from 0.10
// cusparseLt_cusparse_stub.h), the shared and the static library.
func libcusparseLt() sdk.PackageSpec {
	return sdk.PackageSpec{
		Manifest: "libcusparse_lt",
		Files:    []sdk.FileSpec{sdk.Header("include"), sdk.Shared("lib/libcusparseLt.so", "0"), sdk.Static("lib/libcusparseLt_static.a")},
		Deps: []sdk.DepSpec{
			{Package: "cuda_cudart"},
			// libcusparseLt opens libnvrtc.so.<cuda major> from 0.8.
			{Package: "cuda_nvrtc", Runtime: true, Range: sdk.Range{From: "0.8"}},
			// Before 0.10 cusparseLt.h includes cusparse.h.
			{Package: "libcusparse", Headers: true, Range: sdk.Range{Below: "0.10"}},
		},
		// The shared library's NEEDED entries (NVIDIA's 0.8.1 and 0.10.0
		// wheels), which static cuSPARSELt carries.
		StaticLinkopts: []string{"-ldl", "-lpthread", "-lrt", "-lm"},
		// The Sparse Tensor Cores came with NVIDIA Ampere.
		Floors: []sdk.Floor{{Min: "8.0", Says: "{title} {release} needs the Sparse Tensor Cores of capabilities {min} (NVIDIA Ampere) and newer"}},
	}
}
