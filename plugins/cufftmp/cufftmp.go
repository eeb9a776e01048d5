// Package cufftmp is the plugin of cuFFTMp, NVIDIA's multi-process FFT,
// which NVIDIA ships as wheels (nvidia-cufftmp-cu12, nvidia-cufftmp-cu13).
// Product cufftmp, package libcufftmp.
package cufftmp

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's name and its folder in a manifests tree.
const Product = "cufftmp"

// New returns the cuFFTMp plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is cuFFTMp as its wheels have it (11.4.0.6 for CUDA 12,
// 12.1.3.2 for CUDA 13), each below nvidia/cufftmp/cu<major>: the cuFFT
// headers with cufftMp.h, and libcufftMp.so.<cuFFT major> (11 for CUDA 12,
// 12 for CUDA 13). The CUDA 13 wheel also carries a libcufftw.so.12 of its
// own: data, so that it never shadows the toolkit's libcufft package. It
// needs NVSHMEM (NVIDIA's cuFFTMp documentation: libcufftMp links
// libnvshmem_host) and the CUDA runtime. A wheel for another CUDA major
// has a library nobody has seen yet: it gets the headers only, and the
// file check (wheelfiles) names what is missing once it is listed.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: Product, Title: "cuFFTMp",
		Wheels: []sdk.WheelProject{{Project: "nvidia-cufftmp-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "libcufftmp", Prefix: "nvidia/cufftmp/cu{major}"}},
		// Wheels are manylinux x86_64 and aarch64 only.
		Platforms: []string{"linux-x86_64", "linux-sbsa"},
		Packages: []sdk.PackageSpec{{
			Manifest: "libcufftmp",
			Files: []sdk.FileSpec{
				sdk.Header("include"),
				sdk.DataFile("lib/libcufftw.so.12").ForCUDA("13"),
				sdk.Shared("lib/libcufftMp.so", "11").ForCUDA("12"),
				sdk.Shared("lib/libcufftMp.so", "12").ForCUDA("13"),
			},
			Deps: []sdk.DepSpec{{Package: "nvshmem"}, {Package: "cuda_cudart"}},
		}},
	}
}
