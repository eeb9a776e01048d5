package nvcomp

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's folder in a manifests tree, and its name.
const Product = "nvcomp"

// New returns the nvCOMP plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is nvCOMP as the SDK builds its plugin from it; doc.go gives
// the source of every fact.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: Product, Title: "nvCOMP", Path: "compute/nvcomp/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa"},
		// nvCOMP's SONAME major is its release major (libnvcomp.so.5 in
		// 5.x); 5.x is the one described.
		Majors: []int{5},
		Packages: []sdk.PackageSpec{{
			Manifest: "nvcomp",
			Files: []sdk.FileSpec{
				sdk.Header("include"),
				sdk.Shared("lib/libnvcomp.so", sdk.ReleaseMajor),
				sdk.Shared("lib/libnvcomp_cpu.so", sdk.ReleaseMajor),
				sdk.Static("lib/libnvcomp_static.a"),
				sdk.Static("lib/libnvcomp_cpu_static.a"),
				// A GPU decompressor: it runs where the GPU is.
				sdk.RunTool("bin/nvlzcat"),
			},
			// nvcomp.h includes cuda_runtime.h; the libraries NEED no CUDA
			// library (they load the driver themselves).
			Deps: []sdk.DepSpec{{Package: "cuda_cudart"}},
			// The shared libraries' NEEDED system libraries.
			StaticLinkopts: []string{"-ldl", "-lpthread", "-lrt", "-lm", "-lstdc++"},
			Floors:         []sdk.Floor{{Min: "7.0", Says: "{title} {release} supports capabilities {min} (NVIDIA Volta) and newer"}},
		}},
	}
}
