// Package nccl is the plugin of NCCL, NVIDIA's collective communication
// library, which NVIDIA ships only as wheels (nvidia-nccl-cu12,
// nvidia-nccl-cu13). Product nccl, package nccl.
package nccl

import (
	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelonly"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Product is the product's name and its folder in a manifests tree.
const Product = "nccl"

// Declaration is NCCL as its wheels have it (2.32.3 and 2.32.6, x86_64 and
// aarch64): nccl.h and the device API headers, libnccl.so.2, and the device
// library as LLVM bitcode and LTO IR for device-side linking (data: no
// host link uses them). libnccl.so.2 links the CUDA runtime statically;
// nccl.h includes cuda_runtime.h, so the edge is to cudart's headers.
var Declaration = wheelonly.Product{
	Name: Product, Package: "nccl",
	Wheels: sdk.WheelProject{Project: "nvidia-nccl-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "nccl", Prefix: "nvidia/nccl"},
	Files: func(string) []sdk.File {
		return []sdk.File{
			{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
			{Path: "lib/libnccl.so.2", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libnccl.so.2"},
			{Path: "lib/libnccl_device.bc", Kind: sdk.Data, Role: sdk.Target},
			{Path: "lib/libnccl_device.ltoir", Kind: sdk.Data, Role: sdk.Target},
		}
	},
	Deps: []sdk.Dep{{Package: "cuda_cudart", Headers: true}},
}

// New returns the NCCL plugin.
func New() sdk.Fixer { return wheelonly.New(Declaration) }
