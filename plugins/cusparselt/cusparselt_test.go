package cusparselt

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
	"github.com/cudapkgs/cudapkgs/plugins/sdk/sdktest"
)

// fx holds the products this package's batches are built with.
var fx = fixuptest.New(redist.New(), New())

var batches = fx.NewCache(Product)

func fixup(t *testing.T, b *sdk.Batch) map[string]sdk.PackageResult {
	t.Helper()
	return fixuptest.Fix(t, New(), b)
}

func TestDescribe(t *testing.T) {
	d := New().Describe()
	if d.Name != "cusparselt" || !slices.Equal(d.Products, []string{"cusparselt"}) {
		t.Errorf("Describe() = %+v", d)
	}
}

// TestProductFacts: Describe gives the core NVIDIA's base and the redist
// path, and nothing a redist product does not need.
func TestProductFacts(t *testing.T) {
	want := []sdk.ProductFacts{{Product: Product, Base: "https://developer.download.nvidia.com", Path: "compute/cusparselt/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"}}}
	if d := cmp.Diff(want, New().Describe().Facts); d != "" {
		t.Errorf("Describe().Facts (-want +got):\n%s", d)
	}
}

func TestEveryManifestPackageKnown(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(shared.Manifests(t), Product, "redistrib_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cuSPARSELt manifests: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for k, v := range top {
			if strings.HasPrefix(string(v), "{") && !Declaration().Knows(k) {
				t.Errorf("%s: package %s is not known to the cusparselt plugin", filepath.Base(f), k)
			}
		}
	}
}

// TestReleasesPerCUDA: which release each name serves for a CUDA version,
// from which variant, on which platforms (the set's reading of the real
// manifests' cuda_variant), and that the plugin answers every one.
func TestReleasesPerCUDA(t *testing.T) {
	all := []string{"linux-jetson", "linux-sbsa", "linux-x86_64", "windows-x86_64"}
	tests := []struct {
		cuda    string
		names   map[string]string // set name -> release
		variant string
	}{
		{"12.0.1", map[string]string{"libcusparse_lt": "0.8.1", "libcusparse_lt_0_8": "0.8.1"}, "cuda12"},
		{"12.9.0", map[string]string{"libcusparse_lt": "0.8.1", "libcusparse_lt_0_8": "0.8.1"}, "cuda12"},
		{"13.0.0", map[string]string{"libcusparse_lt": "0.10.0", "libcusparse_lt_0_8": "0.8.1", "libcusparse_lt_0_10": "0.10.0"}, "cuda13"},
		{"13.3.0", map[string]string{"libcusparse_lt": "0.10.0", "libcusparse_lt_0_8": "0.8.1", "libcusparse_lt_0_10": "0.10.0"}, "cuda13"},
	}
	for _, tt := range tests {
		b := batches.Batch(t, tt.cuda)
		res := fixup(t, b)
		got := map[string]string{}
		for _, p := range b.Packages {
			got[p.Name] = p.Release
			var plats []string
			for _, a := range p.Archives {
				plats = append(plats, a.Platform)
				if a.Variant != tt.variant {
					t.Errorf("CUDA %s: %s on %s from variant %q, want %q", tt.cuda, p.Name, a.Platform, a.Variant, tt.variant)
				}
				if _, ok := res[p.Name].Platforms[a.Platform]; !ok {
					t.Errorf("CUDA %s: %s on %s: no answer", tt.cuda, p.Name, a.Platform)
				}
			}
			sort.Strings(plats)
			// Jetson: 0.8.1's linux-aarch64 archive before CUDA 13, the
			// SBSA one from CUDA 13 (0.10.0 has no linux-aarch64 at all).
			if d := cmp.Diff(all, plats); d != "" {
				t.Errorf("CUDA %s: %s platforms (-want +got):\n%s", tt.cuda, p.Name, d)
			}
			if u := p.Unavailable["linux-ppc64le"]; len(u) != 1 || !strings.Contains(u[0], "has no linux-ppc64le archive") {
				t.Errorf("CUDA %s: %s on ppc64le: %q", tt.cuda, p.Name, u)
			}
		}
		if d := cmp.Diff(tt.names, got); d != "" {
			t.Errorf("CUDA %s: names and releases (-want +got):\n%s", tt.cuda, d)
		}
	}
}

// TestNoReleaseForCUDA11: no manifest has a cuda11 variant, so CUDA 11 sets
// keep the name with the reason, and no batch reaches the plugin.
func TestNoReleaseForCUDA11(t *testing.T) {
	_, sets := fx.Sets(t, []string{"11.8.0"}, []string{"linux-x86_64"})
	want := "no cusparselt release in the manifests serves CUDA 11.8.0 (newest: 0.10.0, for CUDA 13)"
	if got := sets[0].NoRelease[Product]; got != want {
		t.Errorf("CUDA 11.8.0: no_release %q, want %q", got, want)
	}
	p, ok := sets[0].Package("libcusparse_lt")
	if !ok || !slices.Equal(p.Unavailable["linux-x86_64"], []string{want}) {
		t.Errorf("CUDA 11.8.0: %s = %+v", "libcusparse_lt", p)
	}
}

func TestFilesAndDeps(t *testing.T) {
	files := []sdk.File{
		{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
		{Path: "lib/libcusparseLt.so.0", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libcusparseLt.so.0"},
		{Path: "lib/libcusparseLt_static.a", Kind: sdk.StaticLib, Role: sdk.Target},
	}
	before010 := []sdk.Dep{{Package: "cuda_cudart"}, {Package: "cuda_nvrtc", Runtime: true}, {Package: "libcusparse", Headers: true}}
	from010 := []sdk.Dep{{Package: "cuda_cudart"}, {Package: "cuda_nvrtc", Runtime: true}}
	tests := []struct {
		cuda, pkg string
		deps      []sdk.Dep
	}{
		{"12.0.1", "libcusparse_lt", before010},
		{"12.9.0", "libcusparse_lt_0_8", before010},
		{"13.0.0", "libcusparse_lt", from010},
		{"13.0.0", "libcusparse_lt_0_8", before010},
		{"13.3.0", "libcusparse_lt_0_10", from010},
	}
	for _, tt := range tests {
		r := fixup(t, batches.Batch(t, tt.cuda))[tt.pkg]
		if d := cmp.Diff(tt.deps, r.Deps); d != "" {
			t.Errorf("CUDA %s: %s deps (-want +got):\n%s", tt.cuda, tt.pkg, d)
		}
		if d := cmp.Diff([]string{"-ldl", "-lpthread", "-lrt", "-lm"}, r.StaticLinkopts); d != "" {
			t.Errorf("CUDA %s: %s static linkopts (-want +got):\n%s", tt.cuda, tt.pkg, d)
		}
		for _, plat := range []string{"linux-x86_64", "linux-sbsa", "linux-jetson"} {
			if d := cmp.Diff(files, r.Platforms[plat].Files); d != "" {
				t.Errorf("CUDA %s: %s on %s files (-want +got):\n%s", tt.cuda, tt.pkg, plat, d)
			}
		}
		if pr := r.Platforms["windows-x86_64"]; len(pr.Files) > 0 || len(pr.Unusable) == 0 || pr.Unusable[0] != reasonWindows {
			t.Errorf("CUDA %s: %s on Windows: %+v, want no files and %q first", tt.cuda, tt.pkg, pr, reasonWindows)
		}
	}

	// A set without NVRTC or cuSPARSE (a user's trimmed manifests): no
	// edge to what is not there.
	b := *batches.Batch(t, "12.9.0")
	b.SetPackages = slices.DeleteFunc(slices.Clone(b.SetPackages), func(p sdk.SetPackage) bool {
		return p.Manifest == "cuda_nvrtc" || p.Manifest == "libcusparse"
	})
	if d := cmp.Diff([]sdk.Dep{{Package: "cuda_cudart"}}, fixup(t, &b)["libcusparse_lt"].Deps); d != "" {
		t.Errorf("set without NVRTC and cuSPARSE: deps (-want +got):\n%s", d)
	}
}

// TestCapabilityFloor: 8.0 and newer are served, anything older is a reason
// on every Linux target, for every release.
func TestCapabilityFloor(t *testing.T) {
	// One reason names every capability below the floor.
	reason := func(selected, rel string) string {
		return "cuSPARSELt " + rel + " needs the Sparse Tensor Cores of capabilities 8.0 (NVIDIA Ampere) and newer; " + selected
	}
	tests := []struct {
		cuda string
		caps []string
		want map[string][]string // package -> reasons on linux-x86_64
	}{
		{"12.9.0", []string{"8.0", "8.6", "8.9", "9.0", "10.0", "12.0"}, map[string][]string{"libcusparse_lt": nil, "libcusparse_lt_0_8": nil}},
		{"12.9.0", []string{"7.5", "8.0"}, map[string][]string{
			"libcusparse_lt": {reason("7.5 (Turing) is selected", "0.8.1")}, "libcusparse_lt_0_8": {reason("7.5 (Turing) is selected", "0.8.1")}}},
		{"12.4.1", []string{"7.0", "7.5", "8.6"}, map[string][]string{
			"libcusparse_lt": {reason("7.0 (Volta) and 7.5 (Turing) are selected", "0.8.1")}}},
		{"13.0.0", []string{"7.5", "9.0"}, map[string][]string{
			"libcusparse_lt": {reason("7.5 (Turing) is selected", "0.10.0")}, "libcusparse_lt_0_8": {reason("7.5 (Turing) is selected", "0.8.1")}}},
	}
	for _, tt := range tests {
		b := fx.Batch(t, Product, tt.cuda, []string{"linux-x86_64"}, tt.caps...)
		res := fixup(t, b)
		for pkg, want := range tt.want {
			pr := res[pkg].Platforms["linux-x86_64"]
			if d := cmp.Diff(want, pr.Unusable); d != "" {
				t.Errorf("CUDA %s, capabilities %v: %s (-want +got):\n%s", tt.cuda, tt.caps, pkg, d)
			}
			if len(pr.Files) == 0 {
				t.Errorf("CUDA %s: %s: an unusable target keeps its files, got none", tt.cuda, pkg)
			}
		}
	}

	// The defaults name Turing, which nobody chose: cuSPARSELt is judged
	// against the defaults it supports, and says which. Named by the user,
	// Turing rules it out (above).
	res := fixup(t, batches.Batch(t, "12.9.0"))
	for _, plat := range []string{"linux-x86_64", "linux-sbsa"} {
		pr := res["libcusparse_lt"].Platforms[plat]
		if len(pr.Unusable) != 0 || strings.Join(pr.Judged, ",") != "8.0,8.6,8.9,9.0,10.0,10.3,12.0,12.1" {
			t.Errorf("CUDA 12.9.0 defaults on %s: unusable %q, judged against %q", plat, pr.Unusable, pr.Judged)
		}
	}
	if pr := res["libcusparse_lt"].Platforms["linux-jetson"]; len(pr.Unusable) != 0 || len(pr.Judged) != 0 {
		t.Errorf("CUDA 12.9.0 defaults on Jetson (Orin 8.7, Thor 10.1): unusable %q, judged against %q (want all of them)", pr.Unusable, pr.Judged)
	}
}

func TestUnknownAndBadInput(t *testing.T) {
	b := &sdk.Batch{Product: Product, CUDA: "13.0.0", Packages: []sdk.Package{{Name: "libcusparse_lt_mp", Manifest: "libcusparse_lt_mp",
		Release: "0.11.0", Version: "0.11.0.1", Archives: []sdk.Archive{{Platform: "linux-x86_64", Variant: "cuda13"}}}}}
	if pr := fixup(t, b)["libcusparse_lt_mp"].Platforms["linux-x86_64"]; !pr.Generic || len(pr.Unusable) != 0 || len(pr.Files) != 0 {
		t.Errorf("unknown package: %+v, want generic", pr)
	}
	b1 := &sdk.Batch{Product: Product, CUDA: "13.0.0", Packages: []sdk.Package{{Name: "libcusparse_lt", Manifest: "libcusparse_lt",
		Release: "1.0.0", Version: "1.0.0.1", Archives: []sdk.Archive{{Platform: "linux-x86_64", Variant: "cuda13"}}}}}
	want := []string{"the cusparselt plugin describes cuSPARSELt 0.x, not cuSPARSELt 1.0.0: its files and dependencies are not described"}
	if pr := fixup(t, b1)["libcusparse_lt"].Platforms["linux-x86_64"]; !cmp.Equal(want, pr.Unusable) || len(pr.Files) != 0 {
		t.Errorf("cuSPARSELt 1.0.0: %+v", pr)
	}
	for _, bad := range []*sdk.Batch{
		{Product: "cudnn", CUDA: "12.8.1"},
		{Product: Product, CUDA: "12.8.1", Packages: []sdk.Package{{Name: "libcusparse_lt", Manifest: "libcusparse_lt", Release: "0.x"}}},
	} {
		if _, err := New().Fixup(context.Background(), bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestOverGRPC(t *testing.T) {
	b := batches.Batch(t, "13.0.0")
	got, err := sdktest.Run(t, New()).Fixup(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := New().Fixup(context.Background(), b)
	if d := cmp.Diff(want, got, cmp.FilterValues(func(x, y []string) bool { return len(x) == 0 && len(y) == 0 }, cmp.Ignore())); d != "" {
		t.Errorf("over gRPC (-direct +grpc):\n%s", d)
	}
}

// reasonWindows is the host's reason for a Windows archive, which
// fixuptest.Fix adds as the host does (Platforms leaves Windows out).
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"
