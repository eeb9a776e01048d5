package pkgset_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
)

func load(t testing.TB) *manifest.Collection {
	t.Helper()
	c, err := manifest.LoadDir(shared.Manifests(t))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func available(t testing.TB, c *manifest.Collection) config.Available {
	t.Helper()
	return pkgset.Available(c, builtintest.Products(t))
}

// layer is a test's configuration, applied over the defaults.
type layer = config.Options

func build(t testing.TB, c *manifest.Collection, l layer) []*pkgset.Set {
	t.Helper()
	cfg, err := config.Evaluate(available(t, c), config.Defaults{}, config.Literal{From: "test", Options: l})
	if err != nil {
		t.Fatal(err)
	}
	sets, err := pkgset.Build(context.Background(), cfg, c, builtintest.Products(t))
	if err != nil {
		t.Fatal(err)
	}
	return sets
}

func one(t *testing.T, sets []*pkgset.Set) *pkgset.Set {
	t.Helper()
	if len(sets) != 1 {
		t.Fatalf("%d sets, want 1", len(sets))
	}
	return sets[0]
}

func pkg(t *testing.T, s *pkgset.Set, name string) *pkgset.Package {
	t.Helper()
	p, ok := s.Package(name)
	if !ok {
		t.Fatalf("CUDA %s: no package %s", s.CUDA, name)
	}
	return p
}

// rawManifest reads a manifest with plain encoding/json, independently of
// the parser, to check the sets against NVIDIA's own text.
func rawManifest(t *testing.T, rel string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(shared.Manifests(t) + "/" + rel)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Every package of CUDA 12.4.1 is in the sbsa set with its version and the
// sha256 NVIDIA published, or is unavailable with a reason.
func TestCUDA1241SBSA(t *testing.T) {
	c := load(t)
	s := one(t, build(t, c, layer{CUDA: []string{"12.4.1"}, Targets: []string{"linux-sbsa"}}))
	raw := rawManifest(t, "cuda/redistrib_12.4.1.json")
	n := 0
	for name, v := range raw {
		obj, ok := v.(map[string]any)
		if !ok {
			continue
		}
		n++
		p := pkg(t, s, name)
		if p.Version.String() != obj["version"] {
			t.Errorf("%s version %s, want %s", name, p.Version, obj["version"])
		}
		sbsa, has := obj["linux-sbsa"].(map[string]any)
		a, got := p.Platforms["linux-sbsa"]
		switch {
		case has && !got:
			t.Errorf("%s: sbsa archive missing: %v", name, p.Unavailable)
		case has && a.SHA256 != sbsa["sha256"]:
			t.Errorf("%s: sha256 %s, want %s", name, a.SHA256, sbsa["sha256"])
		case has && a.URLs[len(a.URLs)-1] != "https://developer.download.nvidia.com/compute/cuda/redist/"+sbsa["relative_path"].(string):
			t.Errorf("%s: url %v", name, a.URLs)
		case !has && (got || len(p.Unavailable["linux-sbsa"]) == 0):
			t.Errorf("%s: no sbsa archive in the manifest, but the set has %v / reasons %v", name, a, p.Unavailable)
		}
	}
	if n != 41 {
		t.Errorf("manifest has %d packages, want 41", n)
	}
	// TensorRT 10.14 and later build for sbsa only against CUDA 13.
	want := map[string]string{"cuda": "12.4.1", "cudnn": "9.12.0", "cutensor": "2.8.1", "tensorrt": "10.13.0"}
	for p, v := range want {
		if s.Releases[p].String() != v {
			t.Errorf("release of %s = %s, want %s", p, s.Releases[p], v)
		}
	}
	cudnn := pkg(t, s, "cudnn")
	if a := cudnn.Platforms["linux-sbsa"]; a.Variant != "cuda12" || cudnn.Version.String() != "9.12.0.46" {
		t.Errorf("cudnn = %s %+v", cudnn.Version, a)
	}
	if a := pkg(t, s, "cudnn_8_9").Platforms["linux-sbsa"]; !strings.Contains(a.RelativePath, "8.9.7.29_cuda12") {
		t.Errorf("cudnn_8_9 = %+v", a)
	}
	if a := pkg(t, s, "tensorrt_10_7").Platforms["linux-sbsa"]; a.StripPrefix != "TensorRT-10.7.0.23" ||
		a.URLs[0] != "https://developer.nvidia.com/downloads/compute/machine-learning/tensorrt/10.7.0/tars/TensorRT-10.7.0.23.Linux.aarch64-gnu.cuda-12.6.tar.gz" {
		t.Errorf("tensorrt_10_7 = %+v", a)
	}
	if a := pkg(t, s, "cuda_nvcc").Platforms["linux-sbsa"]; a.StripPrefix != "cuda_nvcc-linux-sbsa-12.4.131-archive" {
		t.Errorf("strip prefix %q", a.StripPrefix)
	}
}

// On Jetson, what exists comes from linux-aarch64, and the rest says why.
func TestCUDA1241Jetson(t *testing.T) {
	c := load(t)
	s := one(t, build(t, c, layer{CUDA: []string{"12.4.1"}, Targets: []string{"linux-aarch64"}}))
	tests := []struct {
		name, key, variant, reason string
	}{
		{"cuda_nvcc", "linux-aarch64", "", ""},
		{"libcudla", "linux-aarch64", "", ""},
		{"cuda_compat", "linux-aarch64", "", ""},
		{"cudnn", "linux-aarch64", "cuda12", ""},
		{"cuda_nvprof", "", "", "cuda_nvprof 12.4.127 has no linux-aarch64 archive in CUDA 12.4.1"},
		{"libcutensor", "", "", "libcutensor 2.8.1.0 has no linux-aarch64 archive"},
		{"cudnn_8_9", "", "", "cudnn 8.9.7.29 has no linux-aarch64 archive"},
		// The newest TensorRT with a Jetson build for CUDA 12 is chosen.
		{"tensorrt", "linux-aarch64", "cuda12", ""},
		{"tensorrt_10_13", "", "", "tensorrt 10.13.0.35 has no linux-aarch64 archive"},
	}
	for _, tt := range tests {
		p := pkg(t, s, tt.name)
		if tt.reason != "" {
			got := strings.Join(p.Unavailable["linux-jetson"], "; ")
			if got != tt.reason {
				t.Errorf("%s: reasons %q, want %q", tt.name, got, tt.reason)
			}
			continue
		}
		a, ok := p.Platforms["linux-jetson"]
		if !ok || a.Key != tt.key || a.Variant != tt.variant {
			t.Errorf("%s: %+v %v, want key %s variant %q", tt.name, a, p.Unavailable, tt.key, tt.variant)
		}
	}
}

// With several targets the newest release that serves any of them is chosen;
// a target it misses says why, and names no older release: the plugins have
// not judged those yet (ChooseDefaults serves the name from one they find
// usable).
func TestMissedTargetNamesNoOlderRelease(t *testing.T) {
	c := load(t)
	s := one(t, build(t, c, layer{CUDA: []string{"12.4.1"}, Targets: []string{"linux-x86_64", "linux-jetson"}}))
	p := pkg(t, s, "tensorrt")
	if p.Version.String() != "11.3.0.99" {
		t.Errorf("tensorrt %s, want 11.3.0.99", p.Version)
	}
	want := "tensorrt 11.3.0.99 has no linux-aarch64 archive"
	if got := strings.Join(p.Unavailable["linux-jetson"], "; "); got != want {
		t.Errorf("reasons %q, want %q", got, want)
	}
}

// From CUDA 13.0 Jetson (Thor) is served by the sbsa archives.
func TestCUDA13JetsonUsesSBSA(t *testing.T) {
	c := load(t)
	s := one(t, build(t, c, layer{CUDA: []string{"13.0.0"}, Targets: []string{"linux-jetson"}}))
	for _, name := range []string{"cuda_nvcc", "cuda_crt", "libnvvm", "cuda_cudart", "libcublas"} {
		if a := pkg(t, s, name).Platforms["linux-jetson"]; a.Key != "linux-sbsa" {
			t.Errorf("%s: key %q, want linux-sbsa", name, a.Key)
		}
	}
	if r := pkg(t, s, "cuda_opencl").Unavailable["linux-jetson"]; len(r) != 1 || !strings.Contains(r[0], "(CUDA 13.0.0 serves linux-jetson through the linux-sbsa archives)") {
		t.Errorf("cuda_opencl reasons %q", r)
	}
	// Asking for Orin before CUDA 13.2 is explained, not silently served by
	// Thor's build.
	s = one(t, build(t, c, layer{CUDA: []string{"13.0.0"}, Targets: []string{"linux-jetson"}, Capabilities: []string{"8.7"}}))
	if r := pkg(t, s, "cuda_nvcc").Unavailable["linux-jetson"]; len(r) != 1 ||
		!strings.Contains(r[0], "capability 8.7 (Orin) needs CUDA 12.x, whose linux-aarch64 archives serve it, or CUDA 13.2 or later") {
		t.Errorf("reasons %q", r)
	}
}

// From CUDA 13.2 Orin (8.7) is served as Thor is, by the sbsa archives.
func TestCUDA13OrinUsesSBSA(t *testing.T) {
	c := load(t)
	for _, cuda := range []string{"13.3.0", "13.4.1"} {
		for _, caps := range [][]string{{"8.7"}, {"8.7", "11.0"}, nil} {
			s := one(t, build(t, c, layer{CUDA: []string{cuda}, Targets: []string{"linux-jetson"}, Capabilities: caps}))
			for _, name := range []string{"cuda_nvcc", "cuda_cudart", "libcublas", "cuda_compat_orin"} {
				p := pkg(t, s, name)
				if a, ok := p.Platforms["linux-jetson"]; !ok || a.Key != "linux-sbsa" {
					t.Errorf("CUDA %s %v %s: archive %+v (reasons %q), want linux-sbsa's", cuda, caps, name, a, p.Unavailable["linux-jetson"])
				}
			}
		}
	}
}

func TestPins(t *testing.T) {
	c := load(t)
	sets := build(t, c, layer{CUDA: []string{"12.2.2", "12.4.1", "13.0.0"}, Targets: []string{"linux-x86_64"},
		Pins: []string{"cudnn@12.2=8.9", "tensorrt=10.7"}})
	want := []struct{ cudnn, tensorrt string }{{"8.9.7", "10.7.0"}, {"9.12.0", "10.7.0"}, {"9.12.0", ""}}
	for i, s := range sets {
		if got := s.Releases["cudnn"].String(); got != want[i].cudnn {
			t.Errorf("CUDA %s: cudnn %s, want %s", s.CUDA, got, want[i].cudnn)
		}
		if got := s.Releases["tensorrt"].String(); got != want[i].tensorrt {
			t.Errorf("CUDA %s: tensorrt %s, want %s", s.CUDA, got, want[i].tensorrt)
		}
	}
	// tensorrt 10.7 has no CUDA 13 build: the packages stay, with the reason.
	s13 := sets[2]
	wantReason := "tensorrt is pinned to 10.7 (tensorrt=10.7), and no tensorrt 10.7 release serves CUDA 13.0.0"
	if s13.NoRelease["tensorrt"] != wantReason {
		t.Errorf("no_release = %q", s13.NoRelease["tensorrt"])
	}
	if r := pkg(t, s13, "tensorrt").Unavailable["linux-x86_64"]; len(r) != 1 || r[0] != wantReason {
		t.Errorf("tensorrt reasons %q", r)
	}
	// Versioned names do not depend on the pin.
	pkg(t, s13, "tensorrt_11_3")
}

// cuTENSOR before 2.3 ships one archive for several CUDA majors.
func TestFlatCutensor(t *testing.T) {
	c := load(t)
	sets := build(t, c, layer{CUDA: []string{"11.8.0", "13.0.0"}, Targets: []string{"linux-x86_64"}})
	if got := sets[0].Releases["cutensor"].String(); got != "2.2.0" {
		t.Errorf("CUDA 11.8: cutensor %s, want 2.2.0 (flat, lib/11)", got)
	}
	if a := pkg(t, sets[0], "libcutensor_1_3").Platforms["linux-x86_64"]; a.Variant != "" || a.SHA256 == "" {
		t.Errorf("libcutensor_1_3 = %+v", a)
	}
	if _, ok := sets[1].Package("libcutensor_2_2"); ok {
		t.Error("CUDA 13: cutensor 2.2 (lib/11, lib/12 only) offered")
	}
	if a := pkg(t, sets[1], "libcutensor").Platforms["linux-x86_64"]; a.Variant != "cuda13" {
		t.Errorf("CUDA 13 libcutensor = %+v", a)
	}
}

func TestMirrorsComeFirst(t *testing.T) {
	c := load(t)
	s := one(t, build(t, c, layer{CUDA: []string{"12.4.1"}, Targets: []string{"linux-x86_64"},
		Mirrors: []string{"https://m1.example/nv/", "http://m2.example"}}))
	got := pkg(t, s, "libcublas").Platforms["linux-x86_64"].URLs
	want := []string{
		"https://m1.example/nv/compute/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-12.4.5.8-archive.tar.xz",
		"http://m2.example/compute/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-12.4.5.8-archive.tar.xz",
		"https://developer.download.nvidia.com/compute/cuda/redist/libcublas/linux-x86_64/libcublas-linux-x86_64-12.4.5.8-archive.tar.xz",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// Every set of every CUDA version, on every platform: each package says for
// each target either which archive serves it or why none does.
func TestNothingSilentlyDropped(t *testing.T) {
	c := load(t)
	all := []string{"linux-x86_64", "linux-sbsa", "linux-jetson", "linux-ppc64le", "windows-x86_64"}
	sets := build(t, c, layer{Targets: all})
	if want := len(c.Releases("cuda")); len(sets) != want {
		t.Fatalf("%d sets, want one per CUDA release (%d)", len(sets), want)
	}
	for _, s := range sets {
		for _, p := range s.Packages {
			for _, tgt := range all {
				_, ok := p.Platforms[tgt]
				reasons := p.Unavailable[tgt]
				if ok == (len(reasons) > 0) {
					t.Errorf("CUDA %s %s on %s: archive %v, reasons %v", s.CUDA, p.Name, tgt, ok, reasons)
				}
			}
		}
	}
	// ppc64le left after 12.4.
	s125 := sets[0]
	for _, s := range sets {
		if s.CUDA.String() == "12.5.0" {
			s125 = s
		}
	}
	if r := pkg(t, s125, "cuda_nvcc").Unavailable["linux-ppc64le"]; len(r) == 0 || r[0] != "cuda_nvcc 12.5.40 has no linux-ppc64le archive in CUDA 12.5.0" {
		t.Errorf("ppc64le reasons %q", r)
	}
}

func TestDeterministic(t *testing.T) {
	c := load(t)
	a := build(t, c, layer{})
	b := build(t, c, layer{})
	if diff := cmp.Diff(a, b, cmp.Comparer(func(x, y version.Version) bool { return x.String() == y.String() })); diff != "" {
		t.Errorf("two builds differ:\n%s", diff)
	}
}

// A product that needs no CUDA (NVPL's CPU libraries, linux-sbsa only, no
// cuda_variant) is in every CUDA version's set, from the same archive, with
// its release chosen as any other product's; a product whose unsplit
// release is in no FlatCUDA range is in none.
func TestNoCUDAProductInEverySet(t *testing.T) {
	c := load(t)
	nvpl := pkgset.Product{Name: "nvpl", Base: "https://developer.download.nvidia.com", Path: "compute/nvpl/redist", NoCUDA: true}
	raw := rawManifest(t, "nvpl/redistrib_26.5.json")
	blasSHA := raw["nvpl_blas"].(map[string]any)["linux-sbsa"].(map[string]any)["sha256"].(string)
	cudas := []string{"11.8.0", "12.9.0", "13.0.0", "13.4.1"}
	targets := []string{"linux-x86_64", "linux-sbsa"}
	for _, tt := range []struct {
		name   string
		noCUDA bool
	}{{"no CUDA", true}, {"unsplit, no range", false}} {
		t.Run(tt.name, func(t *testing.T) {
			p := nvpl
			p.NoCUDA = tt.noCUDA
			products := withProduct(builtintest.Products(t), p)
			cfg, err := config.Evaluate(pkgset.Available(c, products), config.Defaults{},
				config.Literal{From: "test", Options: layer{CUDA: cudas, Targets: targets}})
			if err != nil {
				t.Fatal(err)
			}
			sets, err := pkgset.Build(context.Background(), cfg, c, products)
			if err != nil {
				t.Fatal(err)
			}
			if len(sets) != len(cudas) {
				t.Fatalf("%d sets, want %d", len(sets), len(cudas))
			}
			for _, s := range sets {
				blas := pkg(t, s, "nvpl_blas")
				got := s.Releases["nvpl"].String()
				if !tt.noCUDA {
					if got != "" || !strings.Contains(s.NoRelease["nvpl"], "no known CUDA version") || len(blas.Platforms) != 0 {
						t.Errorf("CUDA %s: release %q, no release %q, platforms %v: want none served", s.CUDA, got, s.NoRelease["nvpl"], blas.Platforms)
					}
					continue
				}
				if got != "26.5" {
					t.Errorf("CUDA %s: nvpl release %q (%s), want 26.5", s.CUDA, got, s.NoRelease["nvpl"])
				}
				a, ok := blas.Platforms["linux-sbsa"]
				if !ok || a.SHA256 != blasSHA || a.Variant != "" || a.Key != "linux-sbsa" {
					t.Errorf("CUDA %s: nvpl_blas on linux-sbsa = %+v (%v), want NVIDIA's archive %s", s.CUDA, a, blas.Unavailable["linux-sbsa"], blasSHA)
				}
				if r := blas.Unavailable["linux-x86_64"]; len(r) != 1 || r[0] != "nvpl_blas 0.6.0 has no linux-x86_64 archive" {
					t.Errorf("CUDA %s: nvpl_blas on linux-x86_64: reasons %q", s.CUDA, r)
				}
				if v := pkg(t, s, "nvpl_blas_26_5"); v.Platforms["linux-sbsa"].SHA256 != blasSHA {
					t.Errorf("CUDA %s: nvpl_blas_26_5 = %+v", s.CUDA, v.Platforms)
				}
			}
		})
	}
}

// withProduct replaces the product of p's name in ps, or adds it.
func withProduct(ps []pkgset.Product, p pkgset.Product) []pkgset.Product {
	out := []pkgset.Product{}
	for _, q := range ps {
		if q.Name != p.Name {
			out = append(out, q)
		}
	}
	return append(out, p)
}
