package cusolvermp

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's folder in a manifests tree, and its name.
const Product = "cusolvermp"

// New returns the cuSOLVERMp plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is cuSOLVERMp as the SDK builds its plugin from it; doc.go
// gives the source of every fact.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: Product, Title: "cuSOLVERMp", Path: "compute/cusolvermp/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa"},
		// cuSOLVERMp 0.x ships libcusolverMp.so.0; another major's SONAMEs
		// are unknown.
		Majors: []int{0},
		Packages: []sdk.PackageSpec{{
			Manifest: "libcusolvermp",
			Files: []sdk.FileSpec{
				sdk.Header("include"),
				sdk.Shared("lib/libcusolverMp.so", "0"),
			},
			// libcusolverMp.so.0 NEEDs libcusolver, libcublas(Lt),
			// libcudart, libnccl.so.2 and libcublasmp.so.0; cusolverMp.h
			// includes cusolverDn.h and nccl.h. NCCL comes from wheels:
			// the edge is there when the set has it.
			Deps: []sdk.DepSpec{
				{Package: "libcusolver"}, {Package: "libcublas"}, {Package: "cuda_cudart"},
				{Package: "libcublasmp"}, {Package: "nccl"},
			},
			// NVIDIA's cuSOLVERMp documentation: Volta (7.0) and newer with
			// CUDA 12, Turing (7.5) with CUDA 13, which serves nothing
			// older anyway.
			Floors: []sdk.Floor{{Min: "7.0", Says: "{title} {release} supports capabilities {min} (NVIDIA Volta) and newer"}},
		}},
	}
}
