package tensorrt

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/cudnn"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// fx holds the products this package's batches are built with.
var fx = fixuptest.New(redist.New(), cudnn.New(), New())

var cudaVersions = []string{"11.8.0", "12.0.1", "12.4.1", "12.6.3", "12.8.1", "12.9.0", "13.0.0"}

var batches = fx.NewCache("tensorrt")

func batch(t *testing.T, cuda string) *sdk.Batch { return batches.Batch(t, cuda) }

func fixup(t *testing.T, b *sdk.Batch) map[string]sdk.PackageResult {
	t.Helper()
	return fixuptest.Fix(t, New(), b)
}

type manifestArchive struct {
	pkg, version, key, variant, path string
}

// readManifests returns every archive of every TensorRT manifest.
func readManifests(t *testing.T) []manifestArchive {
	t.Helper()
	var out []manifestArchive
	manifests := fixuptest.Manifests(t, "tensorrt")
	for _, f := range slices.Sorted(maps.Keys(manifests)) {
		for name, raw := range manifests[f] {
			var pkg map[string]json.RawMessage
			if json.Unmarshal(raw, &pkg) != nil {
				continue // release_date and the other strings
			}
			var ver string
			_ = json.Unmarshal(pkg["version"], &ver)
			for key, v := range pkg {
				var variants map[string]struct {
					RelativePath string `json:"relative_path"`
				}
				if json.Unmarshal(v, &variants) != nil {
					continue
				}
				for variant, a := range variants {
					if a.RelativePath != "" {
						out = append(out, manifestArchive{name, ver, key, variant, a.RelativePath})
					}
				}
			}
			if len(pkg) > 0 && !slices.ContainsFunc(out, func(m manifestArchive) bool { return m.pkg == name && m.version == ver }) {
				out = append(out, manifestArchive{pkg: name, version: ver})
			}
		}
	}
	return out
}

func TestEveryManifestPackageKnown(t *testing.T) {
	for _, a := range readManifests(t) {
		if !Declaration().Knows(a.pkg) {
			t.Errorf("TensorRT %s: package %s is not known to the tensorrt plugin", a.version, a.pkg)
		}
		if a.path != "" && builtWith(a.path).IsZero() {
			t.Errorf("TensorRT %s: archive %s does not say which CUDA it is built with", a.version, a.path)
		}
	}
}

func TestAllSets(t *testing.T) {
	for _, cuda := range cudaVersions {
		b := batch(t, cuda)
		inSet := map[string]bool{}
		for _, p := range b.SetPackages {
			inSet[p.Manifest] = true
		}
		res := fixup(t, b)
		for _, p := range b.Packages {
			r := res[p.Name]
			for _, d := range r.Deps {
				if !inSet[d.Package] {
					t.Errorf("CUDA %s: %s depends on %s, which the set does not have", cuda, p.Name, d.Package)
				}
			}
			if len(r.Platforms) != len(p.Archives) {
				t.Errorf("CUDA %s: %s: %d platforms answered for %d archives", cuda, p.Name, len(r.Platforms), len(p.Archives))
			}
			for _, a := range p.Archives {
				pr := r.Platforms[a.Platform]
				windows := a.Platform == "windows-x86_64"
				switch {
				case windows && (len(pr.Files) > 0 || len(pr.Unusable) == 0 || pr.Unusable[0] != reasonWindows):
					t.Errorf("CUDA %s: %s on Windows: %+v, want no files and %q first", cuda, p.Name, pr, reasonWindows)
				case !windows && len(pr.Files) == 0:
					t.Errorf("CUDA %s: %s on %s: no files", cuda, p.Name, a.Platform)
				}
				for _, u := range pr.Unusable {
					if strings.Contains(u, "does not know") || strings.Contains(u, "describes TensorRT 10 and 11") {
						t.Errorf("CUDA %s: %s on %s: %s", cuda, p.Name, a.Platform, u)
					}
				}
				fixuptest.CheckFiles(t, fmt.Sprintf("CUDA %s: %s on %s", cuda, p.Name, a.Platform), pr.Files)
			}
		}
	}
}

func byKind(files []sdk.File) map[sdk.Kind][]string {
	out := map[sdk.Kind][]string{}
	for _, f := range files {
		out[f.Kind] = append(out[f.Kind], f.Path)
	}
	return out
}

func TestFiles(t *testing.T) {
	res := fixup(t, batch(t, "12.6.3"))
	linux10 := map[sdk.Kind][]string{
		sdk.Headers: {"include"},
		sdk.SharedLib: {"lib/libnvinfer.so.10", "lib/libnvinfer_plugin.so.10", "lib/libnvonnxparser.so.10",
			"lib/libnvinfer_lean.so.10", "lib/libnvinfer_dispatch.so.10", "lib/libnvinfer_vc_plugin.so.10"},
		// Opened by libnvinfer at run time, never linked (SONAME
		// do_not_link_against_nvinfer_builder_resource).
		sdk.Data: {"lib/libnvinfer_builder_resource.so.10.3.0"},
		sdk.StaticLib: {"lib/libnvinfer_static.a", "lib/libnvinfer_plugin_static.a", "lib/libnvonnxparser_static.a",
			"lib/libnvinfer_lean_static.a", "lib/libnvinfer_dispatch_static.a", "lib/libonnx_proto.a"},
		sdk.Binary: {"bin/trtexec"},
	}
	tests := []struct {
		pkg, platform string
		want          map[sdk.Kind][]string
	}{
		{"tensorrt_10_3", "linux-x86_64", linux10},
		{"tensorrt_10_3", "linux-jetson", linux10},
		{"tensorrt", "linux-x86_64", map[sdk.Kind][]string{ // 11.3.0: no static libraries
			sdk.Headers: {"include"},
			sdk.SharedLib: {"lib/libnvinfer.so.11", "lib/libnvinfer_plugin.so.11", "lib/libnvonnxparser.so.11",
				"lib/libnvinfer_lean.so.11", "lib/libnvinfer_dispatch.so.11", "lib/libnvinfer_vc_plugin.so.11"},
			sdk.Data: {"lib/libnvinfer_builder_resource_sm75.so.11.3.0", "lib/libnvinfer_builder_resource_sm80.so.11.3.0",
				"lib/libnvinfer_builder_resource_sm86.so.11.3.0", "lib/libnvinfer_builder_resource_sm89.so.11.3.0",
				"lib/libnvinfer_builder_resource_sm90.so.11.3.0", "lib/libnvinfer_builder_resource_sm100.so.11.3.0",
				"lib/libnvinfer_builder_resource_sm120.so.11.3.0", "lib/libnvinfer_builder_resource_ptx.so.11.3.0"},
			sdk.Binary: {"bin/trtexec"},
		}},
	}
	for _, tt := range tests {
		pr, ok := res[tt.pkg].Platforms[tt.platform]
		if !ok {
			t.Fatalf("%s: no %s answer", tt.pkg, tt.platform)
		}
		if d := cmp.Diff(tt.want, byKind(pr.Files)); d != "" {
			t.Errorf("%s on %s: files (-want +got):\n%s", tt.pkg, tt.platform, d)
		}
	}
	var trtexec sdk.File
	for _, f := range res["tensorrt_10_3"].Platforms["linux-x86_64"].Files {
		if f.Kind == sdk.Binary {
			trtexec = f
		}
	}
	if trtexec.Role != sdk.Exec {
		t.Errorf("trtexec: %+v, want role exec", trtexec)
	}
}

// TestBuilderResources: TensorRT 10.16 and 11.x ship one builder-resource
// library per GPU architecture and a PTX one (tensorrt-cu12-libs 10.16.1),
// not the single file of earlier releases; sm110 (Thor) only in CUDA 13
// builds of 11.x.
func TestBuilderResources(t *testing.T) {
	perArch := func(v string, archs ...string) []string {
		var out []string
		for _, a := range archs {
			out = append(out, "lib/libnvinfer_builder_resource_"+a+".so."+v)
		}
		return out
	}
	common := []string{"sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm120", "ptx"}
	for _, tc := range []struct {
		cuda, pkg, platform string
		want                []string
	}{
		{"12.6.3", "tensorrt_10_3", "linux-x86_64", []string{"lib/libnvinfer_builder_resource.so.10.3.0"}},
		{"12.9.0", "tensorrt_10_14", "linux-x86_64", []string{"lib/libnvinfer_builder_resource.so.10.14.1"}},
		{"12.9.0", "tensorrt_10_16", "linux-x86_64", perArch("10.16.1", common...)},
		{"13.0.0", "tensorrt_10_16", "linux-x86_64", perArch("10.16.1", common...)},
		{"12.9.0", "tensorrt_11_0", "linux-x86_64", perArch("11.0.0", common...)},
		{"13.0.0", "tensorrt_11_3", "linux-sbsa", perArch("11.3.0", append(common, "sm110")...)},
	} {
		var got []string
		for _, f := range fixup(t, batch(t, tc.cuda))[tc.pkg].Platforms[tc.platform].Files {
			if strings.Contains(f.Path, "builder_resource") {
				got = append(got, f.Path)
				if f.Kind != sdk.Data || f.SONAME != "" {
					t.Errorf("%s: kind %s soname %q, want data: libnvinfer opens it, nothing links it", f.Path, f.Kind, f.SONAME)
				}
			}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("CUDA %s %s on %s: builder resources (-want +got):\n%s", tc.cuda, tc.pkg, tc.platform, d)
		}
	}
}

func TestDeps(t *testing.T) {
	cudart, nvrtc := sdk.Dep{Package: "cuda_cudart"}, sdk.Dep{Package: "cuda_nvrtc", Runtime: true}
	cudnn89 := sdk.Dep{Package: "cudnn", Release: "8.9", Runtime: true}
	cudla := sdk.Dep{Package: "libcudla", Platforms: []string{"linux-jetson"}}
	tests := []struct {
		cuda, pkg string
		want      []sdk.Dep
	}{
		{"12.6.3", "tensorrt_10_7", []sdk.Dep{cudart, nvrtc, cudnn89, cudla}}, // x86, sbsa, Jetson
		{"12.6.3", "tensorrt_10_8", []sdk.Dep{cudart, nvrtc, cudnn89}},        // no Jetson archive
		{"11.8.0", "tensorrt_10_0", []sdk.Dep{cudart, nvrtc, cudnn89}},        // x86 and Windows, cuda11
		{"12.6.3", "tensorrt", []sdk.Dep{cudart, nvrtc}},                      // 11.3: no cuDNN
		{"13.0.0", "tensorrt_10_14", []sdk.Dep{cudart, nvrtc}},                // cuda13 builds: no cuDNN 8.9; no libcudla in 13.0
		{"12.9.0", "tensorrt_10_14", []sdk.Dep{cudart, nvrtc, cudnn89}},       // x86 cuda-12.9
		{"12.4.1", "tensorrt_10_0", []sdk.Dep{cudart, nvrtc, cudnn89, cudla}}, // l4t cuda-12.4
		{"12.9.0", "tensorrt_10_16", []sdk.Dep{cudart, nvrtc, cudnn89}},       // x86 cuda-12.9
		{"13.0.0", "tensorrt", []sdk.Dep{cudart, nvrtc}},                      // 11.3
	}
	for _, tt := range tests {
		r := fixup(t, batch(t, tt.cuda))[tt.pkg]
		if d := cmp.Diff(tt.want, r.Deps); d != "" {
			t.Errorf("CUDA %s: %s deps (-want +got):\n%s", tt.cuda, tt.pkg, d)
		}
	}

	// libcudla only when Jetson is a target.
	b := fx.Batch(t, "tensorrt", "12.6.3", []string{"linux-x86_64", "linux-sbsa"})
	for name, r := range fixup(t, b) {
		if slices.ContainsFunc(r.Deps, func(d sdk.Dep) bool { return d.Package == "libcudla" }) {
			t.Errorf("%s depends on libcudla without a Jetson target: %+v", name, r.Deps)
		}
	}

	// A build whose platform loads no cuDNN limits the edge to the others:
	// 10.14's SBSA build for CUDA 12 (the support matrix lists none).
	syn := &sdk.Batch{Product: "tensorrt", CUDA: "12.9.0", SetPackages: batch(t, "12.9.0").SetPackages, Packages: []sdk.Package{{
		Name: "tensorrt_10_14", Manifest: "tensorrt", Release: "10.14.1", Version: "10.14.1.48",
		Archives: []sdk.Archive{
			{Platform: "linux-sbsa", Key: "linux-sbsa", Variant: "cuda12", RelativePath: "tensorrt/10.14.1/tars/TensorRT-10.14.1.48.Linux.aarch64-gnu.cuda-12.9.tar.gz"},
			{Platform: "linux-x86_64", Key: "linux-x86_64", Variant: "cuda12", RelativePath: "tensorrt/10.14.1/tars/TensorRT-10.14.1.48.Linux.x86_64-gnu.cuda-12.9.tar.gz"},
		}}}}
	want := []sdk.Dep{cudart, nvrtc, {Package: "cudnn", Release: "8.9", Runtime: true, Platforms: []string{"linux-x86_64"}}}
	if d := cmp.Diff(want, fixup(t, syn)["tensorrt_10_14"].Deps); d != "" {
		t.Errorf("10.14 with an SBSA build for CUDA 12: deps (-want +got):\n%s", d)
	}
}

func TestCUDARange(t *testing.T) {
	tests := []struct {
		cuda, pkg, platform string
		want                string // a substring of the one reason; "" for usable
	}{
		// x86_64 builds serve every minor of their major, older and newer.
		{"12.4.1", "tensorrt_10_8", "linux-x86_64", ""},  // cuda-12.8
		{"12.0.1", "tensorrt_10_13", "linux-x86_64", ""}, // cuda-12.9
		{"12.6.3", "tensorrt", "linux-x86_64", ""},       // 11.3, cuda-12.9
		{"13.0.0", "tensorrt_10_16", "linux-x86_64", ""}, // cuda-13.2
		// SBSA and JetPack builds: their own CUDA or a later minor.
		{"12.4.1", "tensorrt_10_0", "linux-sbsa", ""},   // cuda-12.4
		{"12.9.0", "tensorrt_10_3", "linux-sbsa", ""},   // cuda-12.5, newer minor
		{"12.6.3", "tensorrt_10_3", "linux-jetson", ""}, // l4t cuda-12.6
		{"12.4.1", "tensorrt_10_8", "linux-sbsa",
			"TensorRT 10.8.0.43's SBSA build is made with CUDA 12.8 and serves CUDA 12.8 to 12.x only (NVIDIA's support matrix), not CUDA 12.4.1"},
		{"12.4.1", "tensorrt_10_3", "linux-jetson",
			"TensorRT 10.3.0.26's JetPack build is made with CUDA 12.6 and serves CUDA 12.6 to 12.x only (NVIDIA's support matrix), not CUDA 12.4.1"},
		{"13.0.0", "tensorrt_10_16", "linux-sbsa", "SBSA build is made with CUDA 13.2"},
		{"13.0.0", "tensorrt_11_0", "linux-sbsa", "TensorRT 11.0.0.114's SBSA build is made with CUDA 13.2 and serves CUDA 13.2 to 13.x only (NVIDIA's support matrix), not CUDA 13.0.0"},
	}
	for _, tt := range tests {
		r := fixup(t, batch(t, tt.cuda))[tt.pkg]
		pr, ok := r.Platforms[tt.platform]
		if !ok {
			t.Fatalf("CUDA %s: %s has no %s archive", tt.cuda, tt.pkg, tt.platform)
		}
		var got []string
		for _, u := range pr.Unusable {
			if strings.Contains(u, "CUDA") && !strings.Contains(u, "capability") {
				got = append(got, u)
			}
		}
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("CUDA %s: %s on %s: unusable %q", tt.cuda, tt.pkg, tt.platform, got)
		case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
			t.Errorf("CUDA %s: %s on %s: reasons %q, want one with %q", tt.cuda, tt.pkg, tt.platform, got, tt.want)
		case strings.Contains(strings.Join(got, ""), "serves CUDA "+tt.cuda+" there"):
			// Another release named before every plugin judged it was
			// the contradiction of issue 21.
			t.Errorf("CUDA %s: %s on %s: reasons %q, want one with %q", tt.cuda, tt.pkg, tt.platform, got, tt.want)
		}
	}

	// Another major never serves.
	if got := cudaReason("10.16.1.11", sdk.MustVersion("12.9.0"), sdk.MustVersion("13.2"), "linux-x86_64"); got != "TensorRT 10.16.1.11's linux-x86_64 archive is built with CUDA 13.2 and serves CUDA 13.x only, not CUDA 12.9.0" {
		t.Errorf("CUDA 12.9.0 with a CUDA 13.2 build: %q", got)
	}
}

func TestJetsonTensorRT11(t *testing.T) {
	res := fixup(t, batch(t, "13.0.0"))
	u := res["tensorrt"].Platforms["linux-jetson"].Unusable
	if len(u) == 0 || !strings.Contains(u[0], "TensorRT 11.3.0.99 does not support Jetson") {
		t.Errorf("11.3 on Jetson: %q", u)
	}
	if u := res["tensorrt_10_14"].Platforms["linux-jetson"].Unusable; len(u) > 0 {
		t.Errorf("10.14 on Jetson (Thor through SBSA): %q", u)
	}
	if u := res["tensorrt"].Platforms["linux-sbsa"].Unusable; slices.ContainsFunc(u, func(s string) bool { return strings.Contains(s, "Jetson") }) {
		t.Errorf("11.3 on SBSA: %q", u)
	}
}

func TestCapabilities(t *testing.T) {
	b := fx.Batch(t, "tensorrt", "12.4.1", nil, "7.0", "8.6")
	res := fixup(t, b)
	want := "TensorRT 10.8.0.43 supports capabilities 7.5 and newer (TensorRT 10.5 dropped Volta); 7.0 (Volta) is selected"
	if d := cmp.Diff([]string{want}, res["tensorrt_10_8"].Platforms["linux-x86_64"].Unusable); d != "" {
		t.Errorf("10.8 with Volta (-want +got):\n%s", d)
	}
	if u := res["tensorrt_10_4"].Platforms["linux-x86_64"].Unusable; len(u) > 0 {
		t.Errorf("10.4 with Volta: %q", u)
	}
	// Pascal: no TensorRT 10 or 11 serves it. One reason names every
	// capability below the floor, and never blames Volta's removal for
	// Pascal.
	b = fx.Batch(t, "tensorrt", "12.4.1", nil, "6.1")
	want = "TensorRT 10.0.1.6 supports capabilities 7.0 and newer; 6.1 (Pascal) is selected"
	if d := cmp.Diff([]string{want}, fixup(t, b)["tensorrt_10_0"].Platforms["linux-x86_64"].Unusable); d != "" {
		t.Errorf("10.0 with Pascal (-want +got):\n%s", d)
	}
	b = fx.Batch(t, "tensorrt", "12.4.1", nil, "6.0", "6.1", "7.0", "8.6")
	want = "TensorRT 10.8.0.43 supports capabilities 7.5 and newer (TensorRT 10.5 dropped Volta); 6.0 (Pascal), 6.1 (Pascal) and 7.0 (Volta) are selected"
	if d := cmp.Diff([]string{want}, fixup(t, b)["tensorrt_10_8"].Platforms["linux-x86_64"].Unusable); d != "" {
		t.Errorf("10.8 with Pascal and Volta (-want +got):\n%s", d)
	}
	// CUDA 12.2's defaults have Pascal and Volta, which nobody chose: the
	// default TensorRT is judged against the defaults from 7.5 on.
	pr := fixup(t, fx.Batch(t, "tensorrt", "12.2.2", []string{"linux-x86_64"}))["tensorrt"].Platforms["linux-x86_64"]
	if len(pr.Unusable) != 0 || strings.Join(pr.Judged, ",") != "7.5,8.0,8.6,8.9,9.0" {
		t.Errorf("tensorrt with CUDA 12.2.2's defaults: unusable %q, judged against %q", pr.Unusable, pr.Judged)
	}
}

func TestCudnnOfAnotherVersion(t *testing.T) {
	base := batch(t, "12.6.3")
	without := func(drop func(sdk.SetPackage) bool) *sdk.Batch {
		b := *base
		b.SetPackages = slices.DeleteFunc(slices.Clone(base.SetPackages), drop)
		return &b
	}
	tests := []struct {
		name string
		b    *sdk.Batch
		want string
	}{
		{"no cuDNN 8.9", without(func(p sdk.SetPackage) bool { return p.Manifest == "cudnn" && strings.HasPrefix(p.Release, "8.9") }),
			"TensorRT 10.7.0.23 loads cuDNN 8.9 (libcudnn.so.8) for its cuDNN-backed layers and plugins, but this set has cuDNN 9.12.0 (cudnn) and no cuDNN 8.9"},
		{"no cuDNN", without(func(p sdk.SetPackage) bool { return p.Product == "cudnn" }),
			"TensorRT 10.7.0.23 loads cuDNN 8.9 (libcudnn.so.8) for its cuDNN-backed layers and plugins, but this set has no cuDNN and no cuDNN 8.9"},
	}
	for _, tt := range tests {
		res := fixup(t, tt.b)
		r := res["tensorrt_10_7"]
		for _, plat := range []string{"linux-x86_64", "linux-sbsa", "linux-jetson"} {
			if d := cmp.Diff([]string{tt.want}, r.Platforms[plat].Unusable); d != "" {
				t.Errorf("%s: tensorrt_10_7 on %s (-want +got):\n%s", tt.name, plat, d)
			}
		}
		if slices.ContainsFunc(r.Deps, func(d sdk.Dep) bool { return d.Package == "cudnn" }) {
			t.Errorf("%s: an edge to a cuDNN the set does not have: %+v", tt.name, r.Deps)
		}
		if u := res["tensorrt"].Platforms["linux-x86_64"].Unusable; len(u) > 0 {
			t.Errorf("%s: 11.3 loads no cuDNN, yet %q", tt.name, u)
		}
	}
	// With the versioned cudnn_8_9 only (the default cudnn being 9.12), the
	// edge names the release and the host resolves it to cudnn_8_9.
	r := fixup(t, base)["tensorrt_10_7"]
	for plat, pr := range r.Platforms {
		if len(pr.Unusable) > 0 {
			t.Errorf("CUDA 12.6.3: tensorrt_10_7 on %s: %q", plat, pr.Unusable)
		}
	}
}

// TestNixpkgsReleases compares our CUDA range and cuDNN with nixpkgs'
// TensorRT table for the releases both know; every difference must be one of
// the listed deliberate ones.
func TestNixpkgsReleases(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(shared.Manifests(t), "tensorrt", "releases", "releases_nixpkgs_07c6a900.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table map[string][]struct {
		Version        string  `json:"version"`
		MinCudaVersion string  `json:"minCudaVersion"`
		MaxCudaVersion string  `json:"maxCudaVersion"`
		CudnnVersion   *string `json:"cudnnVersion"`
		Filename       string  `json:"filename"`
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	archives := readManifests(t)
	compared := 0
	for key, rows := range table {
		for _, row := range rows {
			i := slices.IndexFunc(archives, func(a manifestArchive) bool { return strings.HasSuffix(a.path, "/"+row.Filename) })
			if i < 0 {
				continue // a release the manifests here do not have (8.x, 10.9)
			}
			a := archives[i]
			if a.key != key {
				t.Errorf("%s: nixpkgs has it under %s, the manifest under %s", row.Filename, key, a.key)
			}
			compared++
			rel := sdk.MustVersion(a.version).Truncate(3)
			built := builtWith(a.path)
			min, max := minCUDA(built, a.key).String(), fmt.Sprintf("%d.x", built.Major())
			if min != row.MinCudaVersion {
				t.Errorf("%s: min CUDA ours %s, nixpkgs %s", row.Filename, min, row.MinCudaVersion)
			}
			// Deliberate: nixpkgs caps at the build's CUDA; later minors run
			// through CUDA minor-version compatibility.
			if row.MaxCudaVersion != built.String() {
				t.Errorf("%s: max CUDA ours %s, nixpkgs %s (only a cap at the build's CUDA %s is a known difference)", row.Filename, max, row.MaxCudaVersion, built)
			}
			ours := cudnnFor(rel, built, targetName(a.key))
			theirs := ""
			if row.CudnnVersion != nil {
				theirs = *row.CudnnVersion
			}
			// Deliberate: nixpkgs pairs the CUDA 12 builds with the cuDNN 9
			// of their day; NVIDIA's support matrices list cuDNN 8.9 (and the
			// plugins open libcudnn.so.8).
			if ours != theirs && !(ours == "8.9" && built.Major() == 12 && strings.HasPrefix(theirs, "9.")) {
				t.Errorf("%s: cuDNN ours %q, nixpkgs %q", row.Filename, ours, theirs)
			}
		}
	}
	if compared < 4 {
		t.Errorf("compared %d rows with nixpkgs' table, want the 10.3 and 10.8 ones at least", compared)
	}
}

func targetName(key string) string {
	if key == "linux-aarch64" {
		return "linux-jetson"
	}
	return key
}

func TestUnknownAndBadInput(t *testing.T) {
	b := &sdk.Batch{Product: "tensorrt", CUDA: "12.8.1", Packages: []sdk.Package{
		{Name: "tensorrt_llm", Manifest: "tensorrt_llm", Release: "1.0.0", Version: "1.0.0.1", Archives: []sdk.Archive{{Platform: "linux-x86_64"}}},
		{Name: "tensorrt_8_6", Manifest: "tensorrt", Release: "8.6.1", Version: "8.6.1.6", Archives: []sdk.Archive{{Platform: "linux-x86_64"}}},
	}}
	res := fixup(t, b)
	if pr := res["tensorrt_llm"].Platforms["linux-x86_64"]; !pr.Generic || len(pr.Unusable) != 0 {
		t.Errorf("tensorrt_llm: %+v, want generic", pr)
	}
	for name, want := range map[string]string{"tensorrt_8_6": "not TensorRT 8.6.1"} {
		pr := res[name].Platforms["linux-x86_64"]
		if len(pr.Unusable) != 1 || !strings.Contains(pr.Unusable[0], want) || len(pr.Files) > 0 || len(res[name].Deps) > 0 {
			t.Errorf("%s: %+v, want only a reason with %q", name, res[name], want)
		}
	}
	for _, bad := range []*sdk.Batch{
		{Product: "tensorrt", CUDA: ""},
		{Product: "cudnn", CUDA: "12.8.1"},
		{Product: "tensorrt", CUDA: "12.8.1", Packages: []sdk.Package{{Name: "tensorrt", Manifest: "tensorrt", Release: "10.x", Version: "10.0.0.1"}}},
		{Product: "tensorrt", CUDA: "12.8.1", Packages: []sdk.Package{{Name: "tensorrt", Manifest: "tensorrt", Release: "10.0.1", Version: "ten"}}},
	} {
		if _, err := New().Fixup(context.Background(), bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// reasonWindows is the host's reason for a Windows archive, which
// fixuptest.Fix adds as the host does (Platforms leaves Windows out).
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"
