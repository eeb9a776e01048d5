package cudnn

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// New returns the cuDNN plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Package names of the cuDNN manifests.
const (
	pkgCudnn   = "cudnn"
	pkgJIT     = "cudnn_jit"
	pkgSamples = "cudnn_samples"
)

// Declaration is cuDNN as the SDK builds its plugin from it: the tables of
// tables.go, whose every row doc.go sources.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: "cudnn", Title: "cuDNN", Path: "compute/cudnn/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson", "linux-ppc64le"},
		Majors:    []int{8, 9},
		Packages: []sdk.PackageSpec{
			{
				Manifest: pkgCudnn,
				Files:    shimAndSubs(sublibs, true),
				// cuDNN opens cuBLASLt (in libcublas) and NVRTC by name at
				// run time; its static libraries need cuBLASLt at link
				// time, and link NVRTC (and through it the PTX compiler)
				// rather than loading it.
				Deps: []sdk.DepSpec{
					{Package: "libcublas"},
					{Package: "cuda_nvrtc", Runtime: true, Range: sdk.Range{From: nvrtcSince}},
					{Package: "cuda_nvrtc", Static: true, Range: sdk.Range{From: nvrtcSince}},
				},
				Floors: floors,
				// Static cuDNN compresses its kernels with zlib (NVIDIA's
				// install guide: link with -lz).
				StaticLinkopts: []string{"-lz"},
			},
			{
				// GRAPH_JIT_ONLY: no legacy APIs and no precompiled
				// engines, which are what use cuBLASLt.
				Manifest: pkgJIT, Title: pkgJIT,
				Files:  shimAndSubs(jitSublibs, false),
				Deps:   []sdk.DepSpec{{Package: "cuda_nvrtc", Runtime: true}},
				Floors: []sdk.Floor{jitFloor},
			},
			{
				// The samples build against the cuDNN of their own release.
				Manifest: pkgSamples,
				Files:    []sdk.FileSpec{sdk.DataFile("src/cudnn_samples_v" + sdk.ReleaseMajor)},
				Deps:     []sdk.DepSpec{{Package: pkgCudnn, SameRelease: true}, {Package: "cuda_cudart"}},
			},
		},
	}
}

// shimAndSubs lists the headers, the libcudnn shim and every sub-library by
// SONAME, and with static their static libraries, each for the releases
// that ship it.
func shimAndSubs(subs []sublib, static bool) []sdk.FileSpec {
	files := []sdk.FileSpec{sdk.Header("include"), sdk.Shared("lib/libcudnn.so", sdk.ReleaseMajor)}
	for _, s := range subs {
		files = append(files, sdk.FileSpec{Range: s.releases, Kind: sdk.SharedLib, Role: sdk.Target,
			Path: "lib/libcudnn_" + s.name + ".so." + sdk.ReleaseMajor})
	}
	if static {
		for _, s := range subs {
			files = append(files, sdk.FileSpec{Range: s.releases, Kind: sdk.StaticLib, Role: sdk.Target,
				Path: "lib/libcudnn_" + s.name + "_static.a"})
		}
	}
	return files
}
