package cudnn

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

// cudaVersions are the toolkit releases the tests build sets for: both ends
// of every CUDA major the manifests cover and the releases where cuDNN's
// variants change.
var cudaVersions = []string{"11.4.4", "11.8.0", "12.0.1", "12.2.2", "12.4.1", "12.6.3", "12.8.1", "12.9.0", "13.0.0"}

var batches = fx.NewCache("cudnn")

func batch(t *testing.T, cuda string) *sdk.Batch { return batches.Batch(t, cuda) }

func fixup(t *testing.T, b *sdk.Batch) map[string]sdk.PackageResult {
	t.Helper()
	return fixuptest.Fix(t, New(), b)
}

// TestAllSets answers every cuDNN batch of every CUDA version and checks the
// answer's shape: every package and archive answered, known, with files of
// safe relative paths, shared libraries by SONAME, deps only on packages of
// the set.
func TestAllSets(t *testing.T) {
	for _, cuda := range cudaVersions {
		b := batch(t, cuda)
		inSet := map[string]bool{}
		for _, p := range b.SetPackages {
			inSet[p.Manifest] = true
		}
		res := fixup(t, b)
		for _, p := range b.Packages {
			r, ok := res[p.Name]
			if !ok {
				t.Errorf("CUDA %s: no answer for %s", cuda, p.Name)
				continue
			}
			for _, d := range r.Deps {
				if !inSet[d.Package] {
					t.Errorf("CUDA %s: %s depends on %s, which the set does not have", cuda, p.Name, d.Package)
				}
			}
			for _, a := range p.Archives {
				pr, ok := r.Platforms[a.Platform]
				if !ok {
					t.Errorf("CUDA %s: %s: no answer for %s", cuda, p.Name, a.Platform)
					continue
				}
				switch {
				case a.Platform == "windows-x86_64":
					if len(pr.Files) > 0 || len(pr.Unusable) == 0 || pr.Unusable[0] != reasonWindows {
						t.Errorf("CUDA %s: %s on Windows: %+v, want no files and %q first", cuda, p.Name, pr, reasonWindows)
					}
				case len(pr.Files) == 0:
					t.Errorf("CUDA %s: %s on %s: no files (unusable: %q)", cuda, p.Name, a.Platform, pr.Unusable)
				}
				for _, u := range pr.Unusable {
					if strings.Contains(u, "does not know") {
						t.Errorf("CUDA %s: %s on %s: %s", cuda, p.Name, a.Platform, u)
					}
				}
				fixuptest.CheckFiles(t, p.Name+" on "+a.Platform, pr.Files)
			}
			for plat := range r.Platforms {
				if !slices.ContainsFunc(p.Archives, func(a sdk.Archive) bool { return a.Platform == plat }) {
					t.Errorf("CUDA %s: %s: answer for %s, which has no archive", cuda, p.Name, plat)
				}
			}
		}
	}
}

// find returns the package of the batch with the given set name.
func find(t *testing.T, b *sdk.Batch, name string) sdk.Package {
	t.Helper()
	for _, p := range b.Packages {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("CUDA %s: no package %s in the batch", b.CUDA, name)
	return sdk.Package{}
}

func TestFiles(t *testing.T) {
	b12, b13 := batch(t, "12.4.1"), batch(t, "13.0.0")
	res12, res13 := fixup(t, b12), fixup(t, b13)
	tests := []struct {
		res            map[string]sdk.PackageResult
		pkg, platform  string
		shared, static []string
		headers        []string
	}{
		{res12, "cudnn_8_9", "linux-x86_64",
			[]string{"lib/libcudnn.so.8", "lib/libcudnn_ops_infer.so.8", "lib/libcudnn_ops_train.so.8",
				"lib/libcudnn_cnn_infer.so.8", "lib/libcudnn_cnn_train.so.8", "lib/libcudnn_adv_infer.so.8", "lib/libcudnn_adv_train.so.8"},
			[]string{"lib/libcudnn_ops_infer_static.a", "lib/libcudnn_ops_train_static.a", "lib/libcudnn_cnn_infer_static.a",
				"lib/libcudnn_cnn_train_static.a", "lib/libcudnn_adv_infer_static.a", "lib/libcudnn_adv_train_static.a"},
			[]string{"include"}},
		{res13, "cudnn", "linux-sbsa",
			[]string{"lib/libcudnn.so.9", "lib/libcudnn_graph.so.9", "lib/libcudnn_engines_precompiled.so.9",
				"lib/libcudnn_engines_runtime_compiled.so.9", "lib/libcudnn_heuristic.so.9",
				"lib/libcudnn_ops.so.9", "lib/libcudnn_cnn.so.9", "lib/libcudnn_adv.so.9"},
			[]string{"lib/libcudnn_graph_static.a", "lib/libcudnn_engines_precompiled_static.a",
				"lib/libcudnn_engines_runtime_compiled_static.a", "lib/libcudnn_heuristic_static.a",
				"lib/libcudnn_ops_static.a", "lib/libcudnn_cnn_static.a", "lib/libcudnn_adv_static.a"},
			[]string{"include"}},
		{res12, "cudnn_9_0", "linux-jetson",
			[]string{"lib/libcudnn.so.9", "lib/libcudnn_graph.so.9", "lib/libcudnn_engines_precompiled.so.9",
				"lib/libcudnn_engines_runtime_compiled.so.9", "lib/libcudnn_heuristic.so.9",
				"lib/libcudnn_ops.so.9", "lib/libcudnn_cnn.so.9", "lib/libcudnn_adv.so.9"},
			[]string{"lib/libcudnn_graph_static.a", "lib/libcudnn_engines_precompiled_static.a",
				"lib/libcudnn_engines_runtime_compiled_static.a", "lib/libcudnn_heuristic_static.a",
				"lib/libcudnn_ops_static.a", "lib/libcudnn_cnn_static.a", "lib/libcudnn_adv_static.a"},
			[]string{"include"}},
		{res13, "cudnn_jit", "linux-x86_64",
			[]string{"lib/libcudnn.so.9", "lib/libcudnn_graph.so.9", "lib/libcudnn_engines_runtime_compiled.so.9"},
			nil,
			[]string{"include"}},
	}
	for _, tt := range tests {
		pr := tt.res[tt.pkg].Platforms[tt.platform]
		if d := cmp.Diff(tt.shared, fixuptest.Paths(pr.Files, sdk.SharedLib)); d != "" {
			t.Errorf("%s on %s: shared libraries (-want +got):\n%s", tt.pkg, tt.platform, d)
		}
		if d := cmp.Diff(tt.static, fixuptest.Paths(pr.Files, sdk.StaticLib)); d != "" {
			t.Errorf("%s on %s: static libraries (-want +got):\n%s", tt.pkg, tt.platform, d)
		}
		if d := cmp.Diff(tt.headers, fixuptest.Paths(pr.Files, sdk.Headers)); d != "" {
			t.Errorf("%s on %s: headers (-want +got):\n%s", tt.pkg, tt.platform, d)
		}
	}

	// Samples: sources as data, per platform in cuDNN 8, one source archive in 9.
	want := map[string]string{"cudnn_samples_8_9": "src/cudnn_samples_v8", "cudnn_samples": "src/cudnn_samples_v9"}
	for name, dir := range want {
		p := find(t, b12, name)
		for _, a := range p.Archives {
			if a.Platform == "windows-x86_64" {
				continue
			}
			got := res12[name].Platforms[a.Platform].Files
			if d := cmp.Diff([]sdk.File{{Path: dir, Kind: sdk.Data, Role: sdk.Target}}, got); d != "" {
				t.Errorf("%s on %s (key %s): files (-want +got):\n%s", name, a.Platform, a.Key, d)
			}
		}
	}
	if p := find(t, b12, "cudnn_samples"); !slices.ContainsFunc(p.Archives, func(a sdk.Archive) bool { return a.Key == "source" }) {
		t.Errorf("cudnn_samples 9.x should be served by its source archive: %+v", p.Archives)
	}
}

// TestTensorIRFrom921 checks the version-dependent sub-library list on a
// release no manifest here has.
func TestTensorIRFrom921(t *testing.T) {
	b := &sdk.Batch{Product: "cudnn", CUDA: "13.0.0", Packages: []sdk.Package{
		{Name: "cudnn", Manifest: "cudnn", Release: "9.21.0", Version: "9.21.0.1",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64", Variant: "cuda13"}}},
		{Name: "cudnn_9_20", Manifest: "cudnn", Release: "9.20.0", Version: "9.20.0.1",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64", Variant: "cuda13"}}},
	}}
	res := fixup(t, b)
	has := func(name string) bool {
		return slices.Contains(fixuptest.Paths(res[name].Platforms["linux-x86_64"].Files, sdk.SharedLib), "lib/libcudnn_engines_tensor_ir.so.9")
	}
	if !has("cudnn") || has("cudnn_9_20") {
		t.Errorf("libcudnn_engines_tensor_ir.so.9: in 9.21 %v (want true), in 9.20 %v (want false)", has("cudnn"), has("cudnn_9_20"))
	}
}

func TestDeps(t *testing.T) {
	for _, cuda := range []string{"11.8.0", "12.4.1", "13.0.0"} {
		b := batch(t, cuda)
		res := fixup(t, b)
		// Static cuDNN links NVRTC; the shared one loads it.
		want := []sdk.Dep{{Package: "libcublas"}, {Package: "cuda_nvrtc", Runtime: true}, {Package: "cuda_nvrtc", Static: true}}
		for _, p := range b.Packages {
			var w []sdk.Dep
			switch p.Manifest {
			case pkgCudnn:
				w = want
				if got := res[p.Name].StaticLinkopts; !slices.Equal(got, []string{"-lz"}) {
					t.Errorf("CUDA %s: %s static link options %v, want [-lz] (zlib)", cuda, p.Name, got)
				}
			case pkgJIT:
				w = []sdk.Dep{{Package: "cuda_nvrtc", Runtime: true}}
			case pkgSamples:
				w = []sdk.Dep{{Package: "cudnn", Release: majorMinor(p.Release)}, {Package: "cuda_cudart"}}
			}
			if d := cmp.Diff(w, res[p.Name].Deps); d != "" {
				t.Errorf("CUDA %s: %s (%s): deps (-want +got):\n%s", cuda, p.Name, p.Release, d)
			}
		}
	}
}

func majorMinor(release string) string {
	parts := strings.SplitN(release, ".", 3)
	return parts[0] + "." + parts[1]
}

func TestUnusable(t *testing.T) {
	tests := []struct {
		name          string
		cuda          string
		caps          []string
		pkg, platform string
		want          []string // substrings of the one reason expected
	}{
		{"Kepler on cuDNN 8.9", "11.8.0", []string{"3.5", "8.0"}, "cudnn_8_9", "linux-x86_64",
			[]string{"cuDNN 8.9.7 supports capabilities 5.0 and newer (cuDNN 8.8 dropped Kepler (3.5, 3.7); 8.7 was the last for them); 3.5 (Kepler) is selected"}},
		{"Kepler on cuDNN 9", "11.8.0", []string{"3.7"}, "cudnn", "linux-x86_64",
			[]string{"3.7 (Kepler) is selected", "cuDNN 9.7.1", "8.7 was the last"}},
		{"Pascal on cuDNN 9.12", "12.8.1", []string{"6.1", "9.0"}, "cudnn", "linux-x86_64",
			[]string{"cuDNN 9.12.0 supports capabilities 7.5 and newer (cuDNN 9.11 dropped Maxwell, Pascal and Volta; 9.10 was the last for them); 6.1 (Pascal) is selected"}},
		{"Xavier on cuDNN 9.12", "12.2.2", []string{"7.2"}, "cudnn", "linux-jetson",
			[]string{"7.2 (Volta) is selected", "cuDNN 9.12.0", "9.10 was the last"}},
		{"Turing on cudnn_jit", "13.0.0", []string{"7.5", "8.6"}, "cudnn_jit", "linux-x86_64",
			[]string{"cudnn_jit 9.12.0 supports capabilities 8.0 (NVIDIA Ampere) and newer, as its graph JIT engines do; 7.5 (Turing) is selected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := fx.Batch(t, "cudnn", tt.cuda, nil, tt.caps...)
			res := fixup(t, b)
			got := res[tt.pkg].Platforms[tt.platform].Unusable
			if len(got) != 1 {
				t.Fatalf("%s on %s: unusable %q, want one reason", tt.pkg, tt.platform, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("reason %q lacks %q", got[0], w)
				}
			}
		})
	}

	// The same sets stay usable where the release still serves the GPUs.
	b := fx.Batch(t, "cudnn", "12.8.1", nil, "6.1", "9.0")
	res := fixup(t, b)
	for _, name := range []string{"cudnn_9_7", "cudnn_8_9", "cudnn_samples"} {
		for plat, pr := range res[name].Platforms {
			if len(pr.Unusable) > 0 && plat != "windows-x86_64" {
				t.Errorf("%s on %s: unusable %q", name, plat, pr.Unusable)
			}
		}
	}
	// The default capabilities of CUDA 12.0 to 12.4 still include Pascal and
	// Volta (nixpkgs' defaults), which the default cuDNN 9.12 no longer
	// serves, and every default set has Turing, which cudnn_jit does not
	// serve. Nobody chose them: each package is judged against the defaults
	// it supports, so the default sets carry no reason but Windows'.
	for _, cuda := range cudaVersions {
		for name, r := range fixup(t, batch(t, cuda)) {
			for plat, pr := range r.Platforms {
				for _, u := range pr.Unusable {
					if u != reasonWindows {
						t.Errorf("CUDA %s default capabilities: %s on %s unusable: %q", cuda, name, plat, u)
					}
				}
			}
		}
	}
	jit := fixup(t, batch(t, "13.0.0"))[pkgJIT].Platforms["linux-x86_64"]
	if strings.Join(jit.Judged, ",") != "8.0,8.6,8.9,9.0,10.0,10.3,12.0,12.1" {
		t.Errorf("cudnn_jit with CUDA 13.0.0's defaults: judged against %q, want the defaults from 8.0 on", jit.Judged)
	}
}

// reasonWindows is the host's reason for a Windows archive, which
// fixuptest.Fix adds as the host does (Platforms leaves Windows out).
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"

// TestEveryManifestPackageKnown: no package of the manifests in ../shared
// is left to the generic layout.
func TestEveryManifestPackageKnown(t *testing.T) {
	fixuptest.EveryPackageKnown(t, "cudnn", Declaration().Knows)
}
