// Package nccl is the plugin of NCCL, NVIDIA's collective communication
// library, which NVIDIA ships only as wheels (nvidia-nccl-cu12,
// nvidia-nccl-cu13). Product nccl, package nccl.
package nccl

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's name and its folder in a manifests tree.
const Product = "nccl"

// New returns the NCCL plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is NCCL as its wheels have it (2.32.3 and 2.32.6, x86_64 and
// aarch64): nccl.h and the device API headers, libnccl.so.2, and the device
// library as LLVM bitcode and LTO IR for device-side linking (data: no
// host link uses them). nccl.h includes cuda_runtime.h, so NCCL needs
// cudart with what its headers need in turn: CCCL, and crt/host_config.h,
// which is cuda_crt's from CUDA 13.0 (cuda_nvcc's before). A headers-only
// edge would give cudart's own headers and not those, and a host-compiled
// C file including nccl.h then fails on CUDA 13 (the real-binary tier
// caught it), so the edge is a whole one: libnccl.so.2 links the runtime
// statically, and a program using NCCL uses cudart anyway.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: Product, Title: "NCCL",
		Wheels: []sdk.WheelProject{{Project: "nvidia-nccl-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "nccl", Prefix: "nvidia/nccl"}},
		// Wheels are manylinux x86_64 and aarch64 only.
		Platforms: []string{"linux-x86_64", "linux-sbsa"},
		Packages: []sdk.PackageSpec{{
			Manifest: "nccl",
			Files: []sdk.FileSpec{
				sdk.Header("include"),
				sdk.Shared("lib/libnccl.so", "2"),
				sdk.DataFile("lib/libnccl_device.bc"),
				sdk.DataFile("lib/libnccl_device.ltoir"),
			},
			Deps: []sdk.DepSpec{{Package: "cuda_cudart"}},
		}},
	}
}
