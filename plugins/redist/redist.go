package redist

import (
	"maps"
	"slices"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Product is the product this plugin fixes: NVIDIA's CUDA toolkit redist.
const Product = "cuda"

// Target platform names, as the host names them.
const (
	linuxX86    = "linux-x86_64"
	linuxSBSA   = "linux-sbsa"
	linuxJetson = "linux-jetson"
	linuxPPC    = "linux-ppc64le"
	windows     = "windows-x86_64"
	windowsARM  = "windows-arm64"
)

// New returns the CUDA toolkit's fixer: its declaration's.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is the CUDA toolkit as an SDK product: the table in table.go,
// the toolchain's facts, the renames, and Windows refused in the words the
// plugin has always used, after a package's own reasons (it declares no
// Platforms, so the host, which would put its reason first, adds none).
// Amend adds the patches of NVIDIA's headers, which hold by CUDA version.
func Declaration() sdk.Product {
	p := sdk.Product{
		Name: Product, Plugin: "redist", Title: "the CUDA toolkit", Path: "compute/cuda/redist",
		Toolkit: true, Toolchain: toolchain(), LocalHints: localHints(),
		// nvcc's version is the release's most telling, then the runtime's.
		LocalIdentify: []string{"cuda_nvcc", "cuda_cudart"},
		Renames:       renames(),
		Refuse:        []sdk.Reason{{When: sdk.When{On: []string{windows, windowsARM}}, Says: reasonWindows}},
		Amend:         amend,
	}
	for _, name := range slices.Sorted(maps.Keys(table)) {
		p.Packages = append(p.Packages, table[name].spec(name))
	}
	return p
}

// amend adds a package's patches that hold for the batch's CUDA version.
func amend(c sdk.Call, p sdk.Package, r *sdk.PackageResult) error {
	for _, pa := range table[p.Manifest].patches {
		if sdk.WithinCUDA(c.CUDA, pa.since, pa.until) {
			r.Patches = append(r.Patches, pa.Patch)
		}
	}
	return nil
}

// toolchain: nvcc comes from cuda_nvcc on the exec platform; code compiles
// against cuda_cudart's headers and nvcc's crt headers (inside cuda_nvcc
// before CUDA 13.0, the separate cuda_crt from 13.0) on the target
// platform, and links cuda_cudart. clang's CUDA wrapper header includes
// curand_mtgp32_kernel.h, which includes CCCL's <nv/target> (cuda_cccl, renamed
// cccl in 13.3): only clang builds get libcurand's and CCCL's headers.
func toolchain() *sdk.Toolchain {
	return &sdk.Toolchain{
		Compiler: "cuda_nvcc",
		Runtime:  "cuda_cudart",
		Headers: []sdk.ToolchainHeaders{
			{Packages: []string{"cuda_cudart", "cuda_nvcc"}},
			{Since: "13.0", Packages: []string{"cuda_cudart", "cuda_crt"}},
		},
		ClangHeaders: []sdk.ToolchainHeaders{
			{Packages: []string{"libcurand", "cuda_cccl"}},
			{Since: "13.3", Packages: []string{"libcurand", "cccl"}},
		},
	}
}

// localHints say where an installed CUDA states the versions of components
// whose layout lists none (Debian's): nvcc carries its version in its
// binary, the runtime and NVRTC in their library file names.
func localHints() []sdk.LocalHint {
	return []sdk.LocalHint{
		{Component: "cuda_nvcc", Rel: "bin/nvcc", Kind: "text", Key: ", V"},
		{Component: "cuda_cudart", Rel: "lib", Kind: "name", Key: "libcudart.so."},
		{Component: "cuda_nvrtc", Rel: "lib", Kind: "name", Key: "libnvrtc.so."},
	}
}

// renames are the manifest names NVIDIA changed. Edges keep the old name
// (cuda_cudart depends on cuda_cccl); the host follows them to the new one.
func renames() []sdk.Rename {
	return []sdk.Rename{
		{Package: "cccl", Replaces: "cuda_cccl", Since: "13.3"},
	}
}
