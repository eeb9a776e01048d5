package cudss

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's folder in a manifests tree, and its name.
const Product = "cudss"

// New returns the cuDSS plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is cuDSS as the SDK builds its plugin from it; doc.go gives
// the source of every fact.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: Product, Title: "cuDSS", Path: "compute/cudss/redist",
		// Also on PyPI; the user picks the source (docs/sources.md). The
		// wheels keep lib/ and include/ below nvidia/cu<major>.
		Wheels:    []sdk.WheelProject{{Project: "nvidia-cudss-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "libcudss", Prefix: "nvidia/cu{major}"}},
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"},
		// cuDSS 0.x ships libcudss.so.0 and its layers as .so.0; another
		// major has SONAMEs nobody has seen yet.
		Majors: []int{0},
		Packages: []sdk.PackageSpec{{
			Manifest: "libcudss",
			Files: []sdk.FileSpec{
				sdk.Header("include"),
				sdk.Shared("lib/libcudss.so", "0"),
				sdk.Static("lib/libcudss_static.a"),
				// The communication and threading layers, opened at run
				// time from the path the program names, and needing NCCL,
				// MPI or OpenMP: data, never linked.
				sdk.DataFile("lib/libcudss_commlayer_nccl.so.0"),
				sdk.DataFile("lib/libcudss_commlayer_openmpi.so.0"),
				sdk.DataFile("lib/libcudss_mtlayer_gomp.so.0"),
			},
			Deps: []sdk.DepSpec{{Package: "libcublas"}, {Package: "cuda_cudart"}},
			// The shared library's NEEDED system libraries (NVIDIA's
			// 0.6.0.5 and 0.8.0.10 wheels), which static cuDSS carries.
			StaticLinkopts: []string{"-ldl", "-lpthread", "-lrt", "-lm"},
			Floors:         []sdk.Floor{{Min: "6.0", Says: "{title} {release} supports capabilities {min} (NVIDIA Pascal) and newer"}},
		}},
	}
}
