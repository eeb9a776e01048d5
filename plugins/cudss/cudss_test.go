package cudss

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
	if d.Name != "cudss" || !slices.Equal(d.Products, []string{"cudss"}) {
		t.Errorf("Describe() = %+v", d)
	}
}

// TestProductFacts: Describe gives the core NVIDIA's base and the redist
// path, and nothing a redist product does not need.
func TestProductFacts(t *testing.T) {
	want := []sdk.ProductFacts{{Product: Product, Base: "https://developer.download.nvidia.com", Path: "compute/cudss/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"}}}
	if d := cmp.Diff(want, New().Describe().Facts); d != "" {
		t.Errorf("Describe().Facts (-want +got):\n%s", d)
	}
}

func TestEveryManifestPackageKnown(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(shared.Manifests(t), Product, "redistrib_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cuDSS manifests: %v", err)
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
				t.Errorf("%s: package %s is not known to the cudss plugin", filepath.Base(f), k)
			}
		}
	}
}

// TestReleasesPerCUDA: which release each name serves for a CUDA version,
// from which variant and manifest key, on which platforms (the set's reading
// of the real manifests' cuda_variant), and that the plugin answers every one.
func TestReleasesPerCUDA(t *testing.T) {
	tests := []struct {
		cuda    string
		names   map[string]string // set name -> release
		variant string
		jetson  string // the manifest key serving linux-jetson
	}{
		{"12.0.1", map[string]string{"libcudss": "0.8.0", "libcudss_0_6": "0.6.0", "libcudss_0_8": "0.8.0"}, "cuda12", "linux-aarch64"},
		{"12.9.0", map[string]string{"libcudss": "0.8.0", "libcudss_0_6": "0.6.0", "libcudss_0_8": "0.8.0"}, "cuda12", "linux-aarch64"},
		// 0.6.0 has no cuda13 archive; 0.8.0 has no cuda13 linux-aarch64
		// one, and CUDA 13 serves Jetson Thor from linux-sbsa.
		{"13.0.0", map[string]string{"libcudss": "0.8.0", "libcudss_0_8": "0.8.0"}, "cuda13", "linux-sbsa"},
		{"13.3.0", map[string]string{"libcudss": "0.8.0", "libcudss_0_8": "0.8.0"}, "cuda13", "linux-sbsa"},
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
				if a.Platform == "linux-jetson" && a.Key != tt.jetson {
					t.Errorf("CUDA %s: %s on Jetson from %s, want %s", tt.cuda, p.Name, a.Key, tt.jetson)
				}
				if _, ok := res[p.Name].Platforms[a.Platform]; !ok {
					t.Errorf("CUDA %s: %s on %s: no answer", tt.cuda, p.Name, a.Platform)
				}
			}
			sort.Strings(plats)
			if d := cmp.Diff([]string{"linux-jetson", "linux-sbsa", "linux-x86_64", "windows-x86_64"}, plats); d != "" {
				t.Errorf("CUDA %s: %s platforms (-want +got):\n%s", tt.cuda, p.Name, d)
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
	got := sets[0].NoRelease[Product]
	if !strings.HasPrefix(got, "no cudss release in the manifests serves CUDA 11.8.0 (newest: 0.8.0, for CUDA 12") {
		t.Errorf("CUDA 11.8.0: no_release %q", got)
	}
	p, ok := sets[0].Package("libcudss")
	if !ok || !slices.Equal(p.Unavailable["linux-x86_64"], []string{got}) {
		t.Errorf("CUDA 11.8.0: %s = %+v", "libcudss", p)
	}
}

func TestFilesAndDeps(t *testing.T) {
	files := []sdk.File{
		{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
		{Path: "lib/libcudss.so.0", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libcudss.so.0"},
		{Path: "lib/libcudss_static.a", Kind: sdk.StaticLib, Role: sdk.Target},
		// Never linked: they need NCCL, MPI or OpenMP.
		{Path: "lib/libcudss_commlayer_nccl.so.0", Kind: sdk.Data, Role: sdk.Target},
		{Path: "lib/libcudss_commlayer_openmpi.so.0", Kind: sdk.Data, Role: sdk.Target},
		{Path: "lib/libcudss_mtlayer_gomp.so.0", Kind: sdk.Data, Role: sdk.Target},
	}
	deps := []sdk.Dep{{Package: "libcublas"}, {Package: "cuda_cudart"}}
	for _, tt := range []struct{ cuda, pkg string }{
		{"12.0.1", "libcudss"},
		{"12.4.1", "libcudss_0_6"},
		{"12.9.0", "libcudss_0_8"},
		{"13.0.0", "libcudss"},
		{"13.3.0", "libcudss_0_8"},
	} {
		r := fixup(t, batches.Batch(t, tt.cuda))[tt.pkg]
		if d := cmp.Diff(deps, r.Deps); d != "" {
			t.Errorf("CUDA %s: %s deps (-want +got):\n%s", tt.cuda, tt.pkg, d)
		}
		if d := cmp.Diff([]string{"-ldl", "-lpthread", "-lrt", "-lm"}, r.StaticLinkopts); d != "" {
			t.Errorf("CUDA %s: %s static linkopts (-want +got):\n%s", tt.cuda, tt.pkg, d)
		}
		for _, plat := range []string{"linux-x86_64", "linux-sbsa", "linux-jetson"} {
			pr := r.Platforms[plat]
			if d := cmp.Diff(files, pr.Files); d != "" {
				t.Errorf("CUDA %s: %s on %s files (-want +got):\n%s", tt.cuda, tt.pkg, plat, d)
			}
			// The defaults (Pascal and newer for CUDA 12, Turing and newer
			// for CUDA 13) are all served.
			if len(pr.Unusable) > 0 {
				t.Errorf("CUDA %s: %s on %s with the default capabilities: %q", tt.cuda, tt.pkg, plat, pr.Unusable)
			}
		}
		if pr := r.Platforms["windows-x86_64"]; len(pr.Files) > 0 || !slices.Equal(pr.Unusable, []string{reasonWindows}) {
			t.Errorf("CUDA %s: %s on Windows: %+v, want no files and %q", tt.cuda, tt.pkg, pr, reasonWindows)
		}
	}

	// A set without cuBLAS (a user's trimmed manifests): no edge to what is
	// not there.
	b := *batches.Batch(t, "12.9.0")
	b.SetPackages = slices.DeleteFunc(slices.Clone(b.SetPackages), func(p sdk.SetPackage) bool { return p.Manifest == "libcublas" })
	if d := cmp.Diff([]sdk.Dep{{Package: "cuda_cudart"}}, fixup(t, &b)["libcudss"].Deps); d != "" {
		t.Errorf("set without cuBLAS: deps (-want +got):\n%s", d)
	}
}

// TestCapabilityFloor: Pascal (6.0) and newer are served, Maxwell is a
// reason on every Linux target, for every release.
func TestCapabilityFloor(t *testing.T) {
	// One reason names every capability below the floor.
	reason := func(selected, rel string) string {
		return "cuDSS " + rel + " supports capabilities 6.0 (NVIDIA Pascal) and newer; " + selected
	}
	tests := []struct {
		caps []string
		want map[string][]string // package -> reasons
	}{
		{[]string{"6.0", "7.0", "8.0", "9.0"}, map[string][]string{"libcudss": nil, "libcudss_0_6": nil}},
		{[]string{"5.2", "6.1"}, map[string][]string{"libcudss": {reason("5.2 (Maxwell) is selected", "0.8.0")}, "libcudss_0_6": {reason("5.2 (Maxwell) is selected", "0.6.0")}}},
		{[]string{"5.0", "5.2", "8.6"}, map[string][]string{"libcudss": {reason("5.0 (Maxwell) and 5.2 (Maxwell) are selected", "0.8.0")}}},
	}
	for _, tt := range tests {
		b := fx.Batch(t, Product, "12.4.1", []string{"linux-x86_64", "linux-sbsa"}, tt.caps...)
		res := fixup(t, b)
		for pkg, want := range tt.want {
			for _, plat := range []string{"linux-x86_64", "linux-sbsa"} {
				pr := res[pkg].Platforms[plat]
				if d := cmp.Diff(want, pr.Unusable); d != "" {
					t.Errorf("capabilities %v: %s on %s (-want +got):\n%s", tt.caps, pkg, plat, d)
				}
				if len(pr.Files) == 0 {
					t.Errorf("capabilities %v: %s on %s: an unusable target keeps its files, got none", tt.caps, pkg, plat)
				}
			}
		}
	}
}

// As defaults (which no CUDA version of ../shared gives cuDSS below its
// floor), the capabilities below the floor narrow what cuDSS is judged
// against instead of ruling it out.
func TestCapabilityFloorDefaults(t *testing.T) {
	b := fx.Batch(t, Product, "12.4.1", []string{"linux-x86_64", "linux-sbsa"}, "5.2", "6.1")
	b.Config.DefaultCapabilityTargets = []string{"linux-x86_64"}
	res := fixup(t, b)
	if pr := res["libcudss"].Platforms["linux-x86_64"]; len(pr.Unusable) != 0 || strings.Join(pr.Judged, ",") != "6.1" {
		t.Errorf("defaults 5.2, 6.1: unusable %q, judged against %q, want usable, judged against 6.1", pr.Unusable, pr.Judged)
	}
	if pr := res["libcudss"].Platforms["linux-sbsa"]; len(pr.Unusable) != 1 || len(pr.Judged) != 0 {
		t.Errorf("the user's 5.2, 6.1: unusable %q, judged against %q, want 5.2's reason", pr.Unusable, pr.Judged)
	}
}

func TestUnknownAndBadInput(t *testing.T) {
	b := &sdk.Batch{Product: Product, CUDA: "13.0.0", Packages: []sdk.Package{{Name: "libcudss_commlayer", Manifest: "libcudss_commlayer",
		Release: "0.9.0", Version: "0.9.0.1", Archives: []sdk.Archive{{Platform: "linux-x86_64", Variant: "cuda13"}}}}}
	if pr := fixup(t, b)["libcudss_commlayer"].Platforms["linux-x86_64"]; !pr.Generic || len(pr.Unusable) != 0 || len(pr.Files) != 0 {
		t.Errorf("unknown package: %+v, want generic", pr)
	}
	b1 := &sdk.Batch{Product: Product, CUDA: "13.0.0", Packages: []sdk.Package{{Name: "libcudss", Manifest: "libcudss",
		Release: "1.0.0", Version: "1.0.0.35", Archives: []sdk.Archive{{Platform: "linux-x86_64", Variant: "cuda13"}}}}}
	want := []string{"the cudss plugin describes cuDSS 0.x, not cuDSS 1.0.0: its files and dependencies are not described"}
	if pr := fixup(t, b1)["libcudss"].Platforms["linux-x86_64"]; !cmp.Equal(want, pr.Unusable) || len(pr.Files) != 0 {
		t.Errorf("cuDSS 1.0.0: %+v", pr)
	}
	for _, bad := range []*sdk.Batch{
		{Product: "cusparselt", CUDA: "12.8.1"},
		{Product: Product, CUDA: "12.8.1", Packages: []sdk.Package{{Name: "libcudss", Manifest: "libcudss", Release: "0.x"}}},
	} {
		if _, err := New().Fixup(context.Background(), bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestOverGRPC(t *testing.T) {
	b := batches.Batch(t, "12.9.0")
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
