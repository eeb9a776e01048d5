package nvtiff

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's folder in a manifests tree, and its name.
const Product = "nvtiff"

// New returns the nvTIFF plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is nvTIFF as the SDK builds its plugin from it; doc.go gives
// the source of every fact.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: Product, Title: "nvTIFF", Path: "compute/nvtiff/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"},
		// nvTIFF 0.x ships libnvtiff.so.0; another major's SONAMEs are
		// unknown.
		Majors: []int{0},
		Packages: []sdk.PackageSpec{{
			Manifest: "libnvtiff",
			Files: []sdk.FileSpec{
				sdk.Header("include"),
				sdk.Shared("lib/libnvtiff.so", "0"),
				sdk.Static("lib/libnvtiff_static.a"),
			},
			// nvtiff.h includes cuda_runtime.h; the library NEEDs only the
			// C library, so no other edge.
			Deps:           []sdk.DepSpec{{Package: "cuda_cudart"}},
			StaticLinkopts: []string{"-ldl", "-lpthread", "-lrt", "-lm"},
		}},
	}
}
