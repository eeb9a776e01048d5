package nvcomp

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
	want := []sdk.ProductFacts{{Product: Product, Base: "https://developer.download.nvidia.com", Path: "compute/nvcomp/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa"}}}
	if d := cmp.Diff(want, New().Describe().Facts); d != "" {
		t.Errorf("Describe().Facts (-want +got):\n%s", d)
	}
}

// TestFilesAndDeps: on the real manifest, CUDA 12 and 13 alike, nvcomp has
// its headers, both libraries by SONAME, the static libraries and nvlzcat
// on both Linux targets, the cudart edge, and Windows is the host's reason.
func TestFilesAndDeps(t *testing.T) {
	files := []sdk.File{
		{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
		{Path: "lib/libnvcomp.so.5", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libnvcomp.so.5"},
		{Path: "lib/libnvcomp_cpu.so.5", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libnvcomp_cpu.so.5"},
		{Path: "lib/libnvcomp_static.a", Kind: sdk.StaticLib, Role: sdk.Target},
		{Path: "lib/libnvcomp_cpu_static.a", Kind: sdk.StaticLib, Role: sdk.Target},
		{Path: "bin/nvlzcat", Kind: sdk.Binary, Role: sdk.Target},
	}
	for _, cuda := range []string{"12.0.1", "12.9.0", "13.0.0"} {
		b := fx.Batch(t, Product, cuda, []string{"linux-x86_64", "linux-sbsa", "windows-x86_64"})
		r := fixuptest.Fix(t, New(), b)["nvcomp"]
		if d := cmp.Diff([]sdk.Dep{{Package: "cuda_cudart"}}, r.Deps); d != "" {
			t.Errorf("CUDA %s: deps (-want +got):\n%s", cuda, d)
		}
		if d := cmp.Diff([]string{"-ldl", "-lpthread", "-lrt", "-lm", "-lstdc++"}, r.StaticLinkopts); d != "" {
			t.Errorf("CUDA %s: static linkopts (-want +got):\n%s", cuda, d)
		}
		for _, plat := range []string{"linux-x86_64", "linux-sbsa"} {
			pr := r.Platforms[plat]
			if d := cmp.Diff(files, pr.Files); d != "" || len(pr.Unusable) > 0 {
				t.Errorf("CUDA %s on %s: unusable %q, files (-want +got):\n%s", cuda, plat, pr.Unusable, d)
			}
		}
		if pr := r.Platforms["windows-x86_64"]; len(pr.Files) > 0 || !slices.Equal(pr.Unusable, []string{reasonWindows}) {
			t.Errorf("CUDA %s on Windows: %+v, want no files and %q", cuda, pr, reasonWindows)
		}
	}
}

// TestCapabilityFloor: Volta (7.0) and newer are served; Pascal, which
// CUDA 12 still builds for, is a reason.
func TestCapabilityFloor(t *testing.T) {
	for _, tt := range []struct {
		caps []string
		want []string
	}{
		{[]string{"7.0", "8.0", "9.0"}, nil},
		{[]string{"6.0", "6.1", "8.0"}, []string{"nvCOMP 5.3.0 supports capabilities 7.0 (NVIDIA Volta) and newer; 6.0 (Pascal) and 6.1 (Pascal) are selected"}},
	} {
		b := fx.Batch(t, Product, "12.9.0", []string{"linux-x86_64", "linux-sbsa"}, tt.caps...)
		res := fixuptest.Fix(t, New(), b)
		for _, plat := range []string{"linux-x86_64", "linux-sbsa"} {
			if d := cmp.Diff(tt.want, res["nvcomp"].Platforms[plat].Unusable); d != "" {
				t.Errorf("capabilities %v on %s (-want +got):\n%s", tt.caps, plat, d)
			}
		}
	}
}

// TestOtherMajor: nvCOMP 6 (published, not described) is unusable with a
// reason naming it; an unknown package is served generically.
func TestOtherMajor(t *testing.T) {
	b := &sdk.Batch{CUDA: "13.0.0", Product: Product, Packages: []sdk.Package{
		{Name: "nvcomp", Manifest: "nvcomp", Product: Product, Release: "6.0.0", Version: "6.0.0.12",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64", Variant: "cuda13"}}},
		{Name: "nvcomp_python", Manifest: "nvcomp_python", Product: Product, Release: "5.3.0", Version: "5.3.0.16",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64", Variant: "cuda13"}}},
	}}
	res := fixuptest.Fix(t, New(), b)
	want := []string{"the nvcomp plugin describes nvCOMP 5.x, not nvCOMP 6.0.0: its files and dependencies are not described"}
	if u := res["nvcomp"].Platforms["linux-x86_64"].Unusable; !slices.Equal(u, want) {
		t.Errorf("nvCOMP 6.0: %q, want %q", u, want)
	}
	if !res["nvcomp_python"].Platforms["linux-x86_64"].Generic {
		t.Errorf("unknown package: %+v, want generic", res["nvcomp_python"])
	}
}

// reasonWindows is the host's reason for a Windows archive, which
// fixuptest.Fix adds as the host does (Platforms leaves Windows out).
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"
