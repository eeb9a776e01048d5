package cublasmp

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
	want := []sdk.ProductFacts{{Product: Product, Base: "https://developer.download.nvidia.com", Path: "compute/cublasmp/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa"}}}
	if d := cmp.Diff(want, New().Describe().Facts); d != "" {
		t.Errorf("Describe().Facts (-want +got):\n%s", d)
	}
}

func TestEveryManifestPackageKnown(t *testing.T) {
	fixuptest.EveryPackageKnown(t, Product, Declaration().Knows)
}

// TestFilesAndDeps: on the real manifest, CUDA 12 and 13 alike, libcublasmp
// has its header folder and libcublasmp.so.0 on both Linux targets, edges
// to cuBLAS and the runtime, and to NCCL only when the set has it.
func TestFilesAndDeps(t *testing.T) {
	files := []sdk.File{
		{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
		{Path: "lib/libcublasmp.so.0", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libcublasmp.so.0"},
	}
	for _, cuda := range []string{"12.0.1", "12.9.0", "13.0.0"} {
		b := fx.Batch(t, Product, cuda, []string{"linux-x86_64", "linux-sbsa"})
		r := fixuptest.Fix(t, New(), b)["libcublasmp"]
		if d := cmp.Diff([]sdk.Dep{{Package: "libcublas"}, {Package: "cuda_cudart"}}, r.Deps); d != "" {
			t.Errorf("CUDA %s: deps without NCCL in the set (-want +got):\n%s", cuda, d)
		}
		for _, plat := range []string{"linux-x86_64", "linux-sbsa"} {
			pr := r.Platforms[plat]
			if d := cmp.Diff(files, pr.Files); d != "" || len(pr.Unusable) > 0 {
				t.Errorf("CUDA %s on %s: unusable %q, files (-want +got):\n%s", cuda, plat, pr.Unusable, d)
			}
		}
		withNCCL := *b
		withNCCL.SetPackages = append(slices.Clone(b.SetPackages), sdk.SetPackage{Name: "nccl", Manifest: "nccl", Product: "nccl", Release: "2.28.3"})
		want := []sdk.Dep{{Package: "libcublas"}, {Package: "cuda_cudart"}, {Package: "nccl"}}
		if d := cmp.Diff(want, fixuptest.Fix(t, New(), &withNCCL)["libcublasmp"].Deps); d != "" {
			t.Errorf("CUDA %s: deps with NCCL in the set (-want +got):\n%s", cuda, d)
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
		{[]string{"6.1", "8.0"}, []string{"cuBLASMp 0.10.0 supports capabilities 7.0 (NVIDIA Volta) and newer; 6.1 (Pascal) is selected"}},
	} {
		b := fx.Batch(t, Product, "12.9.0", []string{"linux-x86_64", "linux-sbsa"}, tt.caps...)
		for _, plat := range []string{"linux-x86_64", "linux-sbsa"} {
			pr := fixuptest.Fix(t, New(), b)["libcublasmp"].Platforms[plat]
			if d := cmp.Diff(tt.want, pr.Unusable); d != "" {
				t.Errorf("capabilities %v on %s (-want +got):\n%s", tt.caps, plat, d)
			}
		}
	}
}

// TestOtherMajor: a release of another major is unusable with a reason
// naming it, and an unknown package is served generically.
func TestOtherMajor(t *testing.T) {
	b := &sdk.Batch{CUDA: "13.0.0", Product: Product, Packages: []sdk.Package{
		{Name: "libcublasmp", Manifest: "libcublasmp", Product: Product, Release: "1.0.0", Version: "1.0.0.1",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64", Variant: "cuda13"}}},
		{Name: "libcublasmp_tools", Manifest: "libcublasmp_tools", Product: Product, Release: "0.10.0", Version: "0.10.0.1",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64", Variant: "cuda13"}}},
	}}
	res := fixuptest.Fix(t, New(), b)
	want := []string{"the cublasmp plugin describes cuBLASMp 0.x, not cuBLASMp 1.0.0: its files and dependencies are not described"}
	if u := res["libcublasmp"].Platforms["linux-x86_64"].Unusable; !slices.Equal(u, want) {
		t.Errorf("cuBLASMp 1.0: %q, want %q", u, want)
	}
	if !res["libcublasmp_tools"].Platforms["linux-x86_64"].Generic {
		t.Errorf("unknown package: %+v, want generic", res["libcublasmp_tools"])
	}
}
