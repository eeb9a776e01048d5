package cublasmp

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's folder in a manifests tree, and its name.
const Product = "cublasmp"

// New returns the cuBLASMp plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is cuBLASMp as the SDK builds its plugin from it; doc.go gives
// the source of every fact.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: Product, Title: "cuBLASMp", Path: "compute/cublasmp/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa"},
		// cuBLASMp 0.x ships libcublasmp.so.0; another major's SONAMEs are
		// unknown.
		Majors: []int{0},
		Packages: []sdk.PackageSpec{{
			Manifest: "libcublasmp",
			Files: []sdk.FileSpec{
				sdk.Header("include"),
				sdk.Shared("lib/libcublasmp.so", "0"),
			},
			// libcublasmp.so.0 NEEDs libcublas and libcublasLt (both in
			// libcublas) and libnccl.so.2; cublasmp.h includes
			// cublas_v2.h and nccl.h. NCCL comes from wheels: the edge is
			// there when the set has it.
			Deps: []sdk.DepSpec{{Package: "libcublas"}, {Package: "cuda_cudart"}, {Package: "nccl"}},
			// NVIDIA's cuBLASMp documentation: Volta (7.0) and newer with
			// CUDA 12, Turing (7.5) with CUDA 13, which serves nothing
			// older anyway.
			Floors: []sdk.Floor{{Min: "7.0", Says: "{title} {release} supports capabilities {min} (NVIDIA Volta) and newer"}},
		}},
	}
}
