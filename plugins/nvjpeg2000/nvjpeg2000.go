package nvjpeg2000

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's folder in a manifests tree, and its name.
const Product = "nvjpeg2000"

// New returns the nvJPEG2000 plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is nvJPEG2000 as the SDK builds its plugin from it; doc.go
// gives the source of every fact.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: Product, Title: "nvJPEG2000", Path: "compute/nvjpeg2000/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"},
		// nvJPEG2000 0.x ships libnvjpeg2k.so.0; another major's SONAMEs
		// are unknown.
		Majors: []int{0},
		Packages: []sdk.PackageSpec{{
			Manifest: "libnvjpeg_2k",
			Files: []sdk.FileSpec{
				sdk.Header("include"),
				sdk.Shared("lib/libnvjpeg2k.so", "0"),
				sdk.Static("lib/libnvjpeg2k_static.a"),
			},
			// nvjpeg2k.h includes cuda_runtime_api.h and library_types.h;
			// the library NEEDs only the C library.
			Deps:           []sdk.DepSpec{{Package: "cuda_cudart"}},
			StaticLinkopts: []string{"-ldl", "-lpthread", "-lrt", "-lm"},
			Floors:         []sdk.Floor{{Min: "6.0", Says: "{title} {release} supports capabilities {min} (NVIDIA Pascal) and newer"}},
		}},
	}
}
