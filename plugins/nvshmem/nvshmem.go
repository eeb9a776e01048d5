// Package nvshmem is the plugin of NVSHMEM, NVIDIA's OpenSHMEM for GPU
// clusters, which NVIDIA ships as wheels (nvidia-nvshmem-cu12,
// nvidia-nvshmem-cu13). Product nvshmem, package nvshmem.
package nvshmem

import (
	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelonly"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Product is the product's name and its folder in a manifests tree.
const Product = "nvshmem"

// Declaration is NVSHMEM as its 3.8.0 wheels have it: the headers, the
// host library libnvshmem_host.so.3, the device library
// libnvshmem_device.a (static only: device code is linked with nvcc -rdc),
// its bitcode per GPU architecture, and the bootstrap and transport
// modules NVSHMEM opens at run time by name (nvshmem_bootstrap_*.so.3,
// nvshmem_transport_*.so.7; data, never linked). share/ holds NVIDIA's
// documents. The host library needs the CUDA runtime (NVIDIA's install
// guide); the headers include cuda_runtime.h.
var Declaration = wheelonly.Product{
	Name: Product, Package: "nvshmem",
	Wheels: sdk.WheelProject{Project: "nvidia-nvshmem-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "nvshmem", Prefix: "nvidia/nvshmem"},
	Files: func(major string) []sdk.File {
		out := []sdk.File{
			{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
			{Path: "lib/libnvshmem_host.so.3", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libnvshmem_host.so.3"},
			{Path: "lib/libnvshmem_device.a", Kind: sdk.StaticLib, Role: sdk.Target},
			{Path: "share", Kind: sdk.Data, Role: sdk.Target},
		}
		// CUDA 13 dropped Volta (sm_70); its wheels start at Turing.
		oldest := "70"
		if major != "12" {
			oldest = "75"
		}
		for _, sm := range []string{oldest, "80", "89", "90", "100"} {
			out = append(out, sdk.File{Path: "lib/libnvshmem_device_sm_" + sm + ".bc", Kind: sdk.Data, Role: sdk.Target})
		}
		for _, b := range []string{"mpi", "pmi", "pmi2", "pmix", "shmem", "uid"} {
			out = append(out, sdk.File{Path: "lib/nvshmem_bootstrap_" + b + ".so.3", Kind: sdk.Data, Role: sdk.Target})
		}
		for _, t := range []string{"gpunetio", "ibdevx", "ibgda", "ibrc", "libfabric", "ucx"} {
			out = append(out, sdk.File{Path: "lib/nvshmem_transport_" + t + ".so.7", Kind: sdk.Data, Role: sdk.Target})
		}
		return out
	},
	Deps: []sdk.Dep{{Package: "cuda_cudart"}},
}

// New returns the NVSHMEM plugin.
func New() sdk.Fixer { return wheelonly.New(Declaration) }
