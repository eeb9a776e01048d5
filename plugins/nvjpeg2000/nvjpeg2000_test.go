package nvjpeg2000

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

func TestProductFacts(t *testing.T) {
	want := []sdk.ProductFacts{{Product: Product, Base: "https://developer.download.nvidia.com", Path: "compute/nvjpeg2000/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"}}}
	if d := cmp.Diff(want, New().Describe().Facts); d != "" {
		t.Errorf("Describe().Facts (-want +got):\n%s", d)
	}
}

// TestFilesAndDeps: on the real manifest libnvjpeg_2k has its files and
// the cudart edge on every Linux target an archive serves (Jetson with
// CUDA 12 only), and Windows is the host's reason.
func TestFilesAndDeps(t *testing.T) {
	files := []sdk.File{
		{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
		{Path: "lib/libnvjpeg2k.so.0", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libnvjpeg2k.so.0"},
		{Path: "lib/libnvjpeg2k_static.a", Kind: sdk.StaticLib, Role: sdk.Target},
	}
	for _, tt := range []struct {
		cuda  string
		linux []string
	}{
		{"12.9.0", []string{"linux-x86_64", "linux-sbsa", "linux-jetson"}},
		{"13.0.0", []string{"linux-x86_64", "linux-sbsa"}},
	} {
		b := fx.Batch(t, Product, tt.cuda, append(slices.Clone(tt.linux), "windows-x86_64"))
		r := fixuptest.Fix(t, New(), b)["libnvjpeg_2k"]
		if d := cmp.Diff([]sdk.Dep{{Package: "cuda_cudart"}}, r.Deps); d != "" {
			t.Errorf("CUDA %s: deps (-want +got):\n%s", tt.cuda, d)
		}
		for _, plat := range tt.linux {
			pr := r.Platforms[plat]
			if d := cmp.Diff(files, pr.Files); d != "" || len(pr.Unusable) > 0 {
				t.Errorf("CUDA %s on %s: unusable %q, files (-want +got):\n%s", tt.cuda, plat, pr.Unusable, d)
			}
		}
		if pr := r.Platforms["windows-x86_64"]; len(pr.Files) > 0 || !slices.Equal(pr.Unusable, []string{reasonWindows}) {
			t.Errorf("CUDA %s on Windows: %+v, want no files and %q", tt.cuda, pr, reasonWindows)
		}
	}
}

// TestCapabilityFloor: Pascal (6.0) and newer are served; Maxwell is a
// reason.
func TestCapabilityFloor(t *testing.T) {
	for _, tt := range []struct {
		caps []string
		want []string
	}{
		{[]string{"6.0", "8.0"}, nil},
		{[]string{"5.2", "8.0"}, []string{"nvJPEG2000 0.11.0 supports capabilities 6.0 (NVIDIA Pascal) and newer; 5.2 (Maxwell) is selected"}},
	} {
		b := fx.Batch(t, Product, "12.9.0", []string{"linux-x86_64"}, tt.caps...)
		if d := cmp.Diff(tt.want, fixuptest.Fix(t, New(), b)["libnvjpeg_2k"].Platforms["linux-x86_64"].Unusable); d != "" {
			t.Errorf("capabilities %v (-want +got):\n%s", tt.caps, d)
		}
	}
}

// TestOtherMajor: a release of another major is unusable with a reason
// naming it.
func TestOtherMajor(t *testing.T) {
	b := &sdk.Batch{CUDA: "13.0.0", Product: Product, Packages: []sdk.Package{
		{Name: "libnvjpeg_2k", Manifest: "libnvjpeg_2k", Product: Product, Release: "1.0.0", Version: "1.0.0.1",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64", Variant: "cuda13"}}},
	}}
	want := []string{"the nvjpeg2000 plugin describes nvJPEG2000 0.x, not nvJPEG2000 1.0.0: its files and dependencies are not described"}
	if u := fixuptest.Fix(t, New(), b)["libnvjpeg_2k"].Platforms["linux-x86_64"].Unusable; !slices.Equal(u, want) {
		t.Errorf("nvJPEG2000 1.0: %q, want %q", u, want)
	}
}

// reasonWindows is the host's reason for a Windows archive, which
// fixuptest.Fix adds as the host does (Platforms leaves Windows out).
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"
