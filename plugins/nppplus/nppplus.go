package nppplus

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Product is the product's folder in a manifests tree, and its name.
const Product = "nppplus"

// New returns the NPP+ plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// libraries are NPP+'s libraries as NVIDIA's NPP+ documentation names
// them: the core (c) and the image (i*) and signal (s) primitives, every
// one needing the core.
var libraries = []string{"c", "ial", "icc", "idei", "if", "ig", "im", "ist", "isu", "itc", "s"}

// Declaration is NPP+ as the SDK builds its plugin from it; doc.go gives
// the source of every fact, and says which are not checked.
func Declaration() sdk.Product {
	var files []sdk.FileSpec
	files = append(files, sdk.Header("include"))
	for _, l := range libraries {
		files = append(files, sdk.Shared("lib/libnpp_plus_"+l+".so", "0"))
	}
	for _, l := range libraries {
		files = append(files, sdk.Static("lib/libnpp_plus_"+l+"_static.a"))
	}
	for _, l := range libraries {
		files = append(files, sdk.Stub("lib/stubs/libnpp_plus_"+l+".so"))
	}
	return sdk.Product{
		Name: Product, Title: "NPP+", Path: "compute/nppplus/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"},
		Majors:    []int{0},
		Packages: []sdk.PackageSpec{{
			Manifest: "libnpp_plus",
			Files:    files,
			// npp.h includes the runtime's headers; static NPP+ also
			// needs culibos, which CUDA 11 and 12 ship in cuda_cudart.
			Deps:           []sdk.DepSpec{{Package: "cuda_cudart"}},
			StaticLinkopts: []string{"-ldl", "-lpthread", "-lrt", "-lm", "-lstdc++"},
			// NPP+ 0.10.0's release notes drop Maxwell, Pascal and Volta;
			// 0.9's floor is not documented.
			Floors: []sdk.Floor{{Range: sdk.Range{From: "0.10"}, Min: "7.5",
				Says: "{title} {release} supports capabilities {min} (NVIDIA Turing) and newer"}},
		}},
	}
}
