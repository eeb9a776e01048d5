// Package cufftmp is the plugin of cuFFTMp, NVIDIA's multi-process FFT,
// which NVIDIA ships as wheels (nvidia-cufftmp-cu12, nvidia-cufftmp-cu13).
// Product cufftmp, package libcufftmp.
package cufftmp

import (
	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelonly"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Product is the product's name and its folder in a manifests tree.
const Product = "cufftmp"

// Declaration is cuFFTMp as its wheels have it (11.4.0.6 for CUDA 12,
// 12.1.3.2 for CUDA 13), each below nvidia/cufftmp/cu<major>: the cuFFT
// headers with cufftMp.h, and libcufftMp.so.<cuFFT major> (11 for CUDA 12,
// 12 for CUDA 13). The CUDA 13 wheel also carries a libcufftw.so.12 of its
// own: data, so that it never shadows the toolkit's libcufft package. It
// needs NVSHMEM (NVIDIA's cuFFTMp documentation: libcufftMp links
// libnvshmem_host) and the CUDA runtime.
var Declaration = wheelonly.Product{
	Name: Product, Package: "libcufftmp",
	Wheels: sdk.WheelProject{Project: "nvidia-cufftmp-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "libcufftmp", Prefix: "nvidia/cufftmp/cu{major}"},
	Files: func(major string) []sdk.File {
		so := "libcufftMp.so.11"
		out := []sdk.File{{Path: "include", Kind: sdk.Headers, Role: sdk.Target}}
		if major != "12" {
			so = "libcufftMp.so.12"
			out = append(out, sdk.File{Path: "lib/libcufftw.so.12", Kind: sdk.Data, Role: sdk.Target})
		}
		return append(out, sdk.File{Path: "lib/" + so, Kind: sdk.SharedLib, Role: sdk.Target, SONAME: so})
	},
	Deps: []sdk.Dep{{Package: "nvshmem"}, {Package: "cuda_cudart"}},
}

// New returns the cuFFTMp plugin.
func New() sdk.Fixer { return wheelonly.New(Declaration) }
