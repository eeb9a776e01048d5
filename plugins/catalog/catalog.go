// Package catalog describes the products cudapkgs knows out of the box:
// where their manifests and archives live, and the facts about them that the
// manifests do not carry. The core knows none of this; the command passes
// these values to it, exactly as it would pass a third party's.
package catalog

import (
	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// NVIDIABase is the root of NVIDIA's redist tree.
const NVIDIABase = "https://developer.download.nvidia.com"

// TensorRTBase is where TensorRT tarballs are published; TensorRT has no
// NVIDIA manifest, and hand-written ones (as nixpkgs keeps) give paths
// relative to compute/machine-learning under it.
const TensorRTBase = "https://developer.nvidia.com/downloads"

// Products returns the built-in products, the toolkit first.
func Products() []pkgset.Product {
	return []pkgset.Product{
		{Name: "cuda", Toolkit: true, Base: NVIDIABase, Path: "compute/cuda/redist"},
		{Name: "cudnn", Base: NVIDIABase, Path: "compute/cudnn/redist"},
		{Name: "cutensor", Base: NVIDIABase, Path: "compute/cutensor/redist", FlatCUDA: cutensorFlatCUDA},
		// plugins/cusparselt keeps these facts too (Product, RedistPath);
		// its tests keep the two equal until Describe carries them.
		{Name: "cusparselt", Base: NVIDIABase, Path: "compute/cusparselt/redist"},
		// plugins/cudss keeps these facts too, as cusparselt does.
		{Name: "cudss", Base: NVIDIABase, Path: "compute/cudss/redist"},
		{Name: "tensorrt", Unlisted: true, Base: TensorRTBase, Path: "compute/machine-learning", StripPrefix: tensorrtStripPrefix},
	}
}

// cutensorFlatCUDA: before 2.3, cuTENSOR shipped one archive per platform
// with a lib/<cuda> folder per supported CUDA (cuTENSOR release notes;
// nixpkgs' cutensor expression picks lib/<major> the same way):
// 1.3 to 1.6 hold lib/10.2 and lib/11, 1.7 adds lib/12, 2.0 to 2.2 hold
// lib/11 and lib/12. From 2.3 archives are split by cuda_variant instead.
func cutensorFlatCUDA(release version.Version) []version.Version {
	v := func(s string) version.Version { return version.MustParse(s) }
	switch {
	case release.Major() == 1 && release.Minor() < 7:
		return []version.Version{v("10.2"), v("11")}
	case release.Major() == 1:
		return []version.Version{v("10.2"), v("11"), v("12")}
	case release.Major() == 2 && release.Minor() <= 2:
		return []version.Version{v("11"), v("12")}
	}
	return nil
}

// tensorrtStripPrefix: TensorRT tarballs unpack to TensorRT-<version>/, not
// to their file name.
func tensorrtStripPrefix(pkg *manifest.Package, _ manifest.Archive) string {
	return "TensorRT-" + pkg.Version.String()
}

// Toolchain names the packages the generated nvcc toolchain is built from:
// nvcc comes from cuda_nvcc on the exec platform; code compiles against
// cuda_cudart's headers and nvcc's crt headers (inside cuda_nvcc before CUDA
// 13.0, the separate cuda_crt from 13.0) on the target platform, and links
// cuda_cudart.
func Toolchain() bazel.Toolchain {
	crtFrom := version.MustParse("13.0")
	return bazel.Toolchain{
		Compiler: "cuda_nvcc",
		Runtime:  "cuda_cudart",
		Headers: func(cuda version.Version) []string {
			if cuda.Less(crtFrom) {
				return []string{"cuda_cudart", "cuda_nvcc"}
			}
			return []string{"cuda_cudart", "cuda_crt"}
		},
	}
}

// LocalHints say where an installed CUDA states the versions of components
// whose layout lists none (Debian's): nvcc carries its version in its
// binary, the runtime and NVRTC in their library file names.
func LocalHints() []localcuda.Hint {
	return []localcuda.Hint{
		{Component: "cuda_nvcc", Rel: "bin/nvcc", Kind: localcuda.KindText, Key: ", V"},
		{Component: "cuda_cudart", Rel: "lib", Kind: localcuda.KindName, Key: "libcudart.so."},
		{Component: "cuda_nvrtc", Rel: "lib", Kind: localcuda.KindName, Key: "libnvrtc.so."},
	}
}

// LocalIdentify are the components whose versions tell which toolkit
// release an install is, most telling first.
func LocalIdentify() []string { return []string{"cuda_nvcc", "cuda_cudart"} }
