package nppplus

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// fx holds the products this package's batches are built with.
var fx = fixuptest.New(redist.New(), New())

func TestProductFacts(t *testing.T) {
	want := []sdk.ProductFacts{{Product: Product, Base: "https://developer.download.nvidia.com", Path: "compute/nppplus/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"}}}
	if d := cmp.Diff(want, New().Describe().Facts); d != "" {
		t.Errorf("Describe().Facts (-want +got):\n%s", d)
	}
}

// TestFilesAndDeps: on the real manifest, CUDA 11 and 12 alike, every Linux
// target has the headers and the eleven libraries (shared by SONAME,
// static, stub), the cudart edge, and Windows is the host's reason.
func TestFilesAndDeps(t *testing.T) {
	for _, cuda := range []string{"11.8.0", "12.9.0"} {
		b := fx.Batch(t, Product, cuda, []string{"linux-x86_64", "linux-sbsa", "linux-jetson", "windows-x86_64"})
		r := fixuptest.Fix(t, New(), b)["libnpp_plus"]
		if d := cmp.Diff([]sdk.Dep{{Package: "cuda_cudart"}}, r.Deps); d != "" {
			t.Errorf("CUDA %s: deps (-want +got):\n%s", cuda, d)
		}
		for _, plat := range []string{"linux-x86_64", "linux-sbsa", "linux-jetson"} {
			pr := r.Platforms[plat]
			kinds := map[sdk.Kind]int{}
			for _, f := range pr.Files {
				kinds[f.Kind]++
			}
			want := map[sdk.Kind]int{sdk.Headers: 1, sdk.SharedLib: 11, sdk.StaticLib: 11, sdk.StubLib: 11}
			if d := cmp.Diff(want, kinds); d != "" || len(pr.Unusable) > 0 {
				t.Errorf("CUDA %s on %s: unusable %q, files by kind (-want +got):\n%s", cuda, plat, pr.Unusable, d)
			}
			core := sdk.File{Path: "lib/libnpp_plus_c.so.0", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libnpp_plus_c.so.0"}
			if !slices.Contains(pr.Files, core) {
				t.Errorf("CUDA %s on %s: no %+v in %+v", cuda, plat, core, pr.Files)
			}
		}
		if pr := r.Platforms["windows-x86_64"]; len(pr.Files) > 0 || len(pr.Unusable) != 1 {
			t.Errorf("CUDA %s on Windows: %+v, want no files and the host's reason", cuda, pr)
		}
	}
}

// TestNoReleaseForCUDA13: NPP+ 0.10.0 has cuda11 and cuda12 archives only,
// so a CUDA 13 set keeps the name with the reason.
func TestNoReleaseForCUDA13(t *testing.T) {
	_, sets := fx.Sets(t, []string{"13.0.0"}, []string{"linux-x86_64"})
	got := sets[0].NoRelease[Product]
	if !strings.HasPrefix(got, "no nppplus release in the manifests serves CUDA 13.0.0") {
		t.Errorf("CUDA 13.0.0: no_release %q", got)
	}
}

// TestCapabilityFloor: from 0.10, Turing (7.5) and newer are served;
// Volta is a reason.
func TestCapabilityFloor(t *testing.T) {
	for _, tt := range []struct {
		caps []string
		want []string
	}{
		{[]string{"7.5", "8.0", "9.0"}, nil},
		{[]string{"7.0", "8.0"}, []string{"NPP+ 0.10.0 supports capabilities 7.5 (NVIDIA Turing) and newer; 7.0 (Volta) is selected"}},
	} {
		b := fx.Batch(t, Product, "12.9.0", []string{"linux-x86_64"}, tt.caps...)
		if d := cmp.Diff(tt.want, fixuptest.Fix(t, New(), b)["libnpp_plus"].Platforms["linux-x86_64"].Unusable); d != "" {
			t.Errorf("capabilities %v (-want +got):\n%s", tt.caps, d)
		}
	}
	// 0.9's floor is not documented: nothing is judged.
	b := fx.Batch(t, Product, "12.9.0", []string{"linux-x86_64"}, "6.0", "8.0")
	for i := range b.Packages {
		b.Packages[i].Release, b.Packages[i].Version = "0.9.0", "0.9.0.0"
	}
	if u := fixuptest.Fix(t, New(), b)["libnpp_plus"].Platforms["linux-x86_64"].Unusable; len(u) > 0 {
		t.Errorf("NPP+ 0.9.0 with 6.0: %q, want no floor", u)
	}
}
