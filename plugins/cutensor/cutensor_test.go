package cutensor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// fx holds the products this package's batches are built with.
var fx = fixuptest.New(redist.New(), New())

var cudaVersions = []string{"11.4.4", "11.8.0", "12.0.1", "12.4.1", "12.6.3", "12.9.0", "13.0.0"}

func fixup(t *testing.T, b *sdk.Batch) map[string]sdk.PackageResult {
	t.Helper()
	return fixuptest.Fix(t, New(), b)
}

func manifestFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(shared.Manifests(t), "cutensor", "redistrib_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cuTENSOR manifests: %v", err)
	}
	return files
}

// TestFlatFoldersMatchFacts keeps this plugin's table of lib/<cuda> folders
// equal to the ranges its Describe gives the package-set stage.
func TestFlatFoldersMatchFacts(t *testing.T) {
	facts := New().Describe().Facts
	if len(facts) != 1 || len(facts[0].FlatCUDA) == 0 {
		t.Fatalf("Describe gives no cutensor FlatCUDA: %+v", facts)
	}
	for _, f := range manifestFiles(t) {
		rel := sdk.MustVersion(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "redistrib_"), ".json"))
		var served []string
		for _, fc := range facts[0].FlatCUDA {
			if !rel.Less(sdk.MustVersion(fc.From)) && (fc.Below == "" || rel.Less(sdk.MustVersion(fc.Below))) {
				served = append(served, fc.CUDA...)
			}
		}
		if d := cmp.Diff(served, flatSubdirs(rel)); d != "" {
			t.Errorf("cuTENSOR %s: lib/<cuda> folders (-facts +plugin):\n%s", rel, d)
		}
	}
}

func TestAllSets(t *testing.T) {
	for _, cuda := range cudaVersions {
		b := fx.Batch(t, "cutensor", cuda, nil)
		res := fixup(t, b)
		for _, p := range b.Packages {
			r := res[p.Name]
			if d := cmp.Diff([]sdk.Dep{{Package: "libcublas"}, {Package: "cuda_cudart"}}, r.Deps); d != "" {
				t.Errorf("CUDA %s: %s deps (-want +got):\n%s", cuda, p.Name, d)
			}
			for _, a := range p.Archives {
				pr, ok := r.Platforms[a.Platform]
				windows := a.Platform == "windows-x86_64"
				switch {
				case !ok:
					t.Errorf("CUDA %s: %s on %s: no answer", cuda, p.Name, a.Platform)
				case windows && (len(pr.Files) > 0 || len(pr.Unusable) == 0 || pr.Unusable[0] != reasonWindows):
					t.Errorf("CUDA %s: %s on Windows: %+v, want no files and %q first", cuda, p.Name, pr, reasonWindows)
				case !windows && len(pr.Files) == 0:
					t.Errorf("CUDA %s: %s on %s: no files (%+v)", cuda, p.Name, a.Platform, pr)
				}
				for _, u := range pr.Unusable {
					if u != reasonWindows && !strings.Contains(u, "supports capabilities 7.5 and newer (from cuTENSOR 2.3)") {
						t.Errorf("CUDA %s: %s on %s: unexpected reason %q", cuda, p.Name, a.Platform, u)
					}
				}
				fixuptest.CheckFiles(t, fmt.Sprintf("CUDA %s: %s on %s", cuda, p.Name, a.Platform), pr.Files)
			}
			if len(r.Platforms) != len(p.Archives) {
				t.Errorf("CUDA %s: %s: %d platforms answered for %d archives", cuda, p.Name, len(r.Platforms), len(p.Archives))
			}
		}
	}
}

// TestFolders is the lib/<cuda major> choice on real sets.
func TestFolders(t *testing.T) {
	tests := []struct {
		cuda, pkg, release, platform string
		shared                       []string
	}{
		{"11.4.4", "libcutensor_1_3", "1.3.3", "linux-x86_64", []string{"lib/11/libcutensor.so.1"}},
		{"11.8.0", "libcutensor_1_7", "1.7.0", "linux-ppc64le", []string{"lib/11/libcutensor.so.1", "lib/11/libcutensorMg.so.1"}},
		{"12.4.1", "libcutensor_1_7", "1.7.0", "linux-sbsa", []string{"lib/12/libcutensor.so.1", "lib/12/libcutensorMg.so.1"}},
		{"11.8.0", "libcutensor_2_2", "2.2.0", "linux-x86_64", []string{"lib/11/libcutensor.so.2", "lib/11/libcutensorMg.so.2"}},
		{"12.4.1", "libcutensor_2_2", "2.2.0", "linux-x86_64", []string{"lib/12/libcutensor.so.2", "lib/12/libcutensorMg.so.2"}},
		{"12.4.1", "libcutensor_2_3", "2.3.1", "linux-x86_64", []string{"lib/libcutensor.so.2", "lib/libcutensorMg.so.2"}},
		{"13.0.0", "libcutensor", "2.8.1", "linux-sbsa", []string{"lib/libcutensor.so.2", "lib/libcutensorMg.so.2"}},
	}
	cache := map[string]*sdk.Batch{}
	for _, tt := range tests {
		b := cache[tt.cuda]
		if b == nil {
			b = fx.Batch(t, "cutensor", tt.cuda, nil)
			cache[tt.cuda] = b
		}
		var pkg *sdk.Package
		for i := range b.Packages {
			if b.Packages[i].Name == tt.pkg {
				pkg = &b.Packages[i]
			}
		}
		if pkg == nil || pkg.Release != tt.release {
			t.Fatalf("CUDA %s: want %s at release %s in the set, have %+v", tt.cuda, tt.pkg, tt.release, pkg)
		}
		pr := fixup(t, b)[tt.pkg].Platforms[tt.platform]
		if d := cmp.Diff(tt.shared, fixuptest.Paths(pr.Files, sdk.SharedLib)); d != "" {
			t.Errorf("CUDA %s, cuTENSOR %s on %s: shared libraries (-want +got):\n%s", tt.cuda, tt.release, tt.platform, d)
		}
		// cuTENSORMp needs NCCL: data, never in the default link.
		if mp := tt.release >= "2.4"; mp != slices.Contains(fixuptest.Paths(pr.Files, sdk.Data), "lib/libcutensorMp.so.2") {
			t.Errorf("CUDA %s, cuTENSOR %s on %s: libcutensorMp as data is %v, want %v", tt.cuda, tt.release, tt.platform, !mp, mp)
		}
		var static []string
		for _, s := range tt.shared {
			if !strings.Contains(s, "Mp") {
				static = append(static, strings.Replace(s, ".so."+tt.release[:1], "_static.a", 1))
			}
		}
		if d := cmp.Diff(static, fixuptest.Paths(pr.Files, sdk.StaticLib)); d != "" {
			t.Errorf("CUDA %s, cuTENSOR %s on %s: static libraries (-want +got):\n%s", tt.cuda, tt.release, tt.platform, d)
		}
		if d := cmp.Diff([]string{"include"}, fixuptest.Paths(pr.Files, sdk.Headers)); d != "" {
			t.Errorf("CUDA %s, cuTENSOR %s on %s: headers (-want +got):\n%s", tt.cuda, tt.release, tt.platform, d)
		}
	}
}

func TestWindows(t *testing.T) {
	b := fx.Batch(t, "cutensor", "12.4.1", nil, "7.0", "8.0")
	res := fixup(t, b)
	for _, tt := range []struct {
		pkg  string
		want []string
	}{
		{"libcutensor_1_7", []string{reasonWindows}},
		{"libcutensor", []string{reasonWindows, "cuTENSOR 2.8.1 supports capabilities 7.5 and newer (from cuTENSOR 2.3); 7.0 (Volta) is selected"}},
	} {
		pr := res[tt.pkg].Platforms["windows-x86_64"]
		if d := cmp.Diff(tt.want, pr.Unusable); d != "" || len(pr.Files) > 0 {
			t.Errorf("%s on Windows: files %v, unusable (-want +got):\n%s", tt.pkg, pr.Files, d)
		}
	}
}

// feature is one platform of a nixpkgs feature manifest: which outputs
// nixpkgs' scan of the real archive found.
type feature struct {
	Outputs map[string]bool `json:"outputs"`
}

// deliberate lists where this plugin differs from nixpkgs' scans on
// purpose, by platform and output, with the reason.
var deliberate = map[string]string{
	"windows-x86_64 dev": "Windows archives are unusable (no Bazel emission for Windows yet): no file is claimed, headers included",
}

// TestFeatures compares the outputs our files make with nixpkgs' scans of
// the real archives (cutensor/features): lib (shared libraries), static,
// dev (headers), bin, sample, doc.
func TestFeatures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(shared.Manifests(t), "cutensor", "features", "feature_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cuTENSOR feature manifests: %v", err)
	}
	used := map[string]bool{}
	for _, f := range files {
		rel := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "feature_"), ".json")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var feat map[string]map[string]feature
		if err := json.Unmarshal(data, &feat); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for pkgName, plats := range feat {
			if !Declaration().Knows(pkgName) {
				t.Errorf("%s: package %s unknown", filepath.Base(f), pkgName)
				continue
			}
			// Every feature release is flat (before 2.3) and has lib/11.
			b := &sdk.Batch{Product: "cutensor", CUDA: "11.8.0"}
			p := sdk.Package{Name: pkgName, Manifest: pkgName, Release: rel, Version: rel}
			for plat := range plats {
				p.Archives = append(p.Archives, sdk.Archive{Platform: targetName(plat), Key: plat})
			}
			b.Packages = []sdk.Package{p}
			r := fixup(t, b)[pkgName]
			for plat, ft := range plats {
				pr := r.Platforms[targetName(plat)]
				if len(pr.Unusable) > 0 && !slices.Equal(pr.Unusable, []string{reasonWindows}) {
					t.Errorf("cuTENSOR %s on %s: unusable %q", rel, plat, pr.Unusable)
				}
				ours := outputs(pr.Files)
				for out, want := range ft.Outputs {
					if ours[out] == want {
						continue
					}
					key := plat + " " + out
					if _, ok := deliberate[key]; ok {
						used[key] = true
						continue
					}
					t.Errorf("cuTENSOR %s on %s: output %s: nixpkgs %v, ours %v", rel, plat, out, want, ours[out])
				}
			}
		}
	}
	for k := range deliberate {
		if !used[k] {
			t.Errorf("deliberate difference %q no longer occurs: drop it", k)
		}
	}
}

func targetName(key string) string {
	if key == "linux-aarch64" {
		return "linux-jetson"
	}
	return key
}

func outputs(files []sdk.File) map[string]bool {
	o := map[string]bool{}
	for _, f := range files {
		switch f.Kind {
		case sdk.SharedLib:
			o["lib"] = true
		case sdk.StaticLib:
			o["static"] = true
		case sdk.Headers:
			o["dev"] = true
		case sdk.Binary:
			o["bin"] = true
		}
	}
	return o
}

func TestUnusable(t *testing.T) {
	b := fx.Batch(t, "cutensor", "12.4.1", nil, "7.0", "8.0")
	res := fixup(t, b)
	got := res["libcutensor"].Platforms["linux-x86_64"].Unusable
	want := "cuTENSOR 2.8.1 supports capabilities 7.5 and newer (from cuTENSOR 2.3); 7.0 (Volta) is selected"
	if d := cmp.Diff([]string{want}, got); d != "" {
		t.Errorf("libcutensor 2.8.1 with capability 7.0 (-want +got):\n%s", d)
	}
	if u := res["libcutensor_2_2"].Platforms["linux-x86_64"].Unusable; len(u) > 0 {
		t.Errorf("libcutensor_2_2 with capability 7.0: unusable %q", u)
	}
	// CUDA 12.4's defaults have Volta, which nobody chose: cuTENSOR 2.8.1
	// is judged against the defaults from 7.5 on.
	pr := fixup(t, fx.Batch(t, "cutensor", "12.4.1", []string{"linux-x86_64"}))["libcutensor"].Platforms["linux-x86_64"]
	if len(pr.Unusable) != 0 || strings.Join(pr.Judged, ",") != "7.5,8.0,8.6,8.9,9.0" {
		t.Errorf("libcutensor 2.8.1 with CUDA 12.4.1's defaults: unusable %q, judged against %q", pr.Unusable, pr.Judged)
	}

	// A flat archive without the CUDA major's folder.
	flat := &sdk.Batch{Product: "cutensor", CUDA: "12.4.1", Packages: []sdk.Package{{Name: "libcutensor_1_6", Manifest: "libcutensor",
		Release: "1.6.2", Version: "1.6.2.3", Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64"}}}}}
	pr = fixup(t, flat)["libcutensor_1_6"].Platforms["linux-x86_64"]
	want = "cuTENSOR 1.6.2's archive has lib/10.2, lib/11 and no lib/12 for CUDA 12.4.1"
	if d := cmp.Diff([]string{want}, pr.Unusable); d != "" || len(pr.Files) != 0 {
		t.Errorf("cuTENSOR 1.6.2 with CUDA 12.4.1: files %v, unusable (-want +got):\n%s", pr.Files, d)
	}
}

// reasonWindows is the host's reason for a Windows archive, which
// fixuptest.Fix adds as the host does (Platforms leaves Windows out).
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"

// TestEveryManifestPackageKnown: no package of the manifests in ../shared
// is left to the generic layout.
func TestEveryManifestPackageKnown(t *testing.T) {
	fixuptest.EveryPackageKnown(t, "cutensor", Declaration().Knows)
}
