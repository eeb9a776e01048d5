// Package nvshmem is the plugin of NVSHMEM, NVIDIA's OpenSHMEM for GPU
// clusters, which NVIDIA ships as wheels (nvidia-nvshmem-cu12,
// nvidia-nvshmem-cu13). Product nvshmem, package nvshmem.
package nvshmem

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's name and its folder in a manifests tree.
const Product = "nvshmem"

// New returns the NVSHMEM plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is NVSHMEM as its 3.8.0 wheels have it: the headers, the
// host library libnvshmem_host.so.3, the device library
// libnvshmem_device.a (static only: device code is linked with nvcc -rdc),
// its bitcode per GPU architecture, and the bootstrap and transport
// modules NVSHMEM opens at run time by name (nvshmem_bootstrap_*.so.3,
// nvshmem_transport_*.so.7; data, never linked). share/ holds NVIDIA's
// documents. The host library needs the CUDA runtime (NVIDIA's install
// guide); the headers include cuda_runtime.h.
func Declaration() sdk.Product {
	files := []sdk.FileSpec{
		sdk.Header("include"),
		sdk.Shared("lib/libnvshmem_host.so", "3"),
		sdk.Static("lib/libnvshmem_device.a").Wheeled(),
		sdk.DataFile("share"),
		// CUDA 13 dropped Volta (sm_70); its wheels start at Turing.
		sdk.DataFile("lib/libnvshmem_device_sm_70.bc").ForCUDA("12"),
		sdk.DataFile("lib/libnvshmem_device_sm_75.bc").ForCUDA("13"),
	}
	for _, sm := range []string{"80", "89", "90", "100"} {
		files = append(files, sdk.DataFile("lib/libnvshmem_device_sm_"+sm+".bc"))
	}
	for _, b := range []string{"mpi", "pmi", "pmi2", "pmix", "shmem", "uid"} {
		files = append(files, sdk.DataFile("lib/nvshmem_bootstrap_"+b+".so.3"))
	}
	for _, t := range []string{"gpunetio", "ibdevx", "ibgda", "ibrc", "libfabric", "ucx"} {
		files = append(files, sdk.DataFile("lib/nvshmem_transport_"+t+".so.7"))
	}
	return sdk.Product{
		Name: Product, Title: "NVSHMEM",
		Wheels: []sdk.WheelProject{{Project: "nvidia-nvshmem-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "nvshmem", Prefix: "nvidia/nvshmem"}},
		// Wheels are manylinux x86_64 and aarch64 only.
		Platforms: []string{"linux-x86_64", "linux-sbsa"},
		Packages: []sdk.PackageSpec{{
			Manifest: "nvshmem",
			Files:    files,
			Deps:     []sdk.DepSpec{{Package: "cuda_cudart"}},
		}},
	}
}
