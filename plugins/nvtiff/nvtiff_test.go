package nvtiff

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// fx holds the products this package's batches are built with.
var fx = fixuptest.New(redist.New(), New())

// TestProductFacts: Describe gives the core NVIDIA's base, the redist path
// and the platforms the declaration describes.
func TestProductFacts(t *testing.T) {
	want := []sdk.ProductFacts{{Product: Product, Base: "https://developer.download.nvidia.com", Path: "compute/nvtiff/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"}}}
	if d := cmp.Diff(want, New().Describe().Facts); d != "" {
		t.Errorf("Describe().Facts (-want +got):\n%s", d)
	}
}

// TestPerCUDAAndPlatform: on the real manifest, libnvtiff answers with its
// files and the cudart edge where an archive serves, and Windows is
// unusable with the host's reason; CUDA 12 and 13 alike (0.8.0 serves both).
func TestPerCUDAAndPlatform(t *testing.T) {
	files := []sdk.File{
		{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
		{Path: "lib/libnvtiff.so.0", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libnvtiff.so.0"},
		{Path: "lib/libnvtiff_static.a", Kind: sdk.StaticLib, Role: sdk.Target},
	}
	for _, tt := range []struct {
		cuda    string
		targets []string
	}{
		{"12.9.0", []string{"linux-x86_64", "linux-sbsa", "linux-jetson", "windows-x86_64"}},
		{"13.0.0", []string{"linux-x86_64", "linux-sbsa", "windows-x86_64"}},
	} {
		t.Run(tt.cuda, func(t *testing.T) {
			b := fx.Batch(t, Product, tt.cuda, tt.targets)
			res := fixuptest.Fix(t, New(), b)
			r, ok := res["libnvtiff"]
			if !ok {
				t.Fatalf("no libnvtiff in %v", res)
			}
			if diff := cmp.Diff([]sdk.Dep{{Package: "cuda_cudart"}}, r.Deps); diff != "" {
				t.Errorf("deps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"-ldl", "-lpthread", "-lrt", "-lm"}, r.StaticLinkopts); diff != "" {
				t.Errorf("static linkopts (-want +got):\n%s", diff)
			}
			for _, tgt := range tt.targets {
				pr := r.Platforms[tgt]
				if tgt == "windows-x86_64" {
					if len(pr.Files) != 0 || !slices.Equal(pr.Unusable, []string{reasonWindows}) {
						t.Errorf("%s: %+v, want no files and %q", tgt, pr, reasonWindows)
					}
					continue
				}
				if diff := cmp.Diff(files, pr.Files); diff != "" || len(pr.Unusable) > 0 {
					t.Errorf("%s: unusable %q, files (-want +got):\n%s", tgt, pr.Unusable, diff)
				}
			}
		})
	}
}

// TestOtherMajor: a release of another major is unusable with a reason
// naming it, and an unknown package is served generically.
func TestOtherMajor(t *testing.T) {
	b := &sdk.Batch{CUDA: "13.0.0", Product: Product, Packages: []sdk.Package{
		{Name: "libnvtiff", Manifest: "libnvtiff", Product: Product, Release: "1.0.0", Version: "1.0.0.1",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64"}}},
		{Name: "libnvtiff_tools", Manifest: "libnvtiff_tools", Product: Product, Release: "0.8.0", Version: "0.8.0.1",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64"}}},
	}}
	res := fixuptest.Fix(t, New(), b)
	want := []string{"the nvtiff plugin describes nvTIFF 0.x, not nvTIFF 1.0.0: its files and dependencies are not described"}
	if u := res["libnvtiff"].Platforms["linux-x86_64"].Unusable; !slices.Equal(u, want) {
		t.Errorf("nvTIFF 1.0: %q, want %q", u, want)
	}
	if !res["libnvtiff_tools"].Platforms["linux-x86_64"].Generic {
		t.Errorf("unknown package: %+v, want generic", res["libnvtiff_tools"])
	}
}

// reasonWindows is the host's reason for a Windows archive, which
// fixuptest.Fix adds as the host does (Platforms leaves Windows out).
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"
