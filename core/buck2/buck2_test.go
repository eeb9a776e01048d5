package buck2

import (
	"context"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bazelbuild/buildtools/build"
	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/catalog"
	cudnnplugin "github.com/cudapkgs/cudapkgs/plugins/cudnn"
	"github.com/cudapkgs/cudapkgs/plugins/cutensor"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/tensorrt"
)

var update = flag.Bool("update", false, "rewrite the testdata/golden trees")

func testConfig(t *testing.T, cudas, targets []string) *config.Config {
	t.Helper()
	var rel []version.Version
	for _, c := range cudas {
		rel = append(rel, version.MustParse(c))
	}
	cfg, err := config.Evaluate(config.Available{Toolkit: "cuda", Releases: map[string][]version.Version{"cuda": rel}},
		config.Defaults{}, config.Literal{From: "test", Options: config.Options{CUDA: cudas, Targets: targets}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const nv = "https://developer.download.nvidia.com/compute/"

func archive(product, name, key, ver, variant, sha string) pkgset.Archive {
	base := name + "-" + key + "-" + ver
	if variant != "" {
		base += "_" + variant
	}
	base += "-archive"
	rel := name + "/" + key + "/" + base + ".tar.xz"
	return pkgset.Archive{Key: key, Variant: variant, SHA256: sha, StripPrefix: base, RelativePath: rel,
		URLs: []string{"https://mirror.example.com/" + product + "/redist/" + rel, nv + product + "/redist/" + rel}}
}

func sha(s string) string { return strings.Repeat(s, 64/len(s)) }

func libFiles(lib, major string, extra ...pkgset.File) []pkgset.File {
	return append([]pkgset.File{
		{Path: "include", Kind: "headers", Role: "target"},
		{Path: "lib/" + lib + ".so." + major, Kind: "shared_lib", Role: "target", SONAME: lib + ".so." + major},
		{Path: "lib/" + lib + "_static.a", Kind: "static_lib", Role: "target"},
	}, extra...)
}

func cudart(cuda, ver, shaPrefix string) *pkgset.Package {
	p := &pkgset.Package{Name: "cuda_cudart", Product: "cuda", Manifest: "cuda_cudart",
		Release: version.MustParse(cuda), Version: version.MustParse(ver), Role: "target",
		Platforms: map[string]pkgset.Archive{}, Files: map[string][]pkgset.File{}}
	for i, pl := range []struct{ name, key string }{{"linux-x86_64", "linux-x86_64"}, {"linux-sbsa", "linux-sbsa"}, {"linux-jetson", "linux-aarch64"}} {
		p.Platforms[pl.name] = archive("cuda", "cuda_cudart", pl.key, ver, "", sha(shaPrefix+string(rune('a'+i))))
		p.Files[pl.name] = libFiles("libcudart", "12", pkgset.File{Path: "lib/stubs/libcuda.so", Kind: "stub_lib", Role: "target"})
	}
	return p
}

func cudnn(name string, cuda string, jetsonReason string) *pkgset.Package {
	p := &pkgset.Package{Name: name, Product: "cudnn", Manifest: "cudnn",
		Release: version.MustParse("8.9.7"), Version: version.MustParse("8.9.7.29"), Role: "target",
		Platforms: map[string]pkgset.Archive{
			"linux-x86_64": archive("cudnn", "cudnn", "linux-x86_64", "8.9.7.29", "cuda12", sha("d1")),
			"linux-sbsa":   archive("cudnn", "cudnn", "linux-sbsa", "8.9.7.29", "cuda12", sha("d2")),
		},
		Unavailable: map[string][]string{},
		Files:       map[string][]pkgset.File{},
		// A linked edge and one loaded at run time.
		Deps: []pkgset.Dep{{Name: "libcublas"}, {Name: "cuda_nvrtc", Runtime: true}},
	}
	for pl := range p.Platforms {
		p.Files[pl] = libFiles("libcudnn", "8",
			pkgset.File{Path: "lib/libcudnn_ops_infer.so.8", Kind: "shared_lib", Role: "target", SONAME: "libcudnn_ops_infer.so.8"},
			pkgset.File{Path: "include/cudnn_version.h", Kind: "headers", Role: "target"})
	}
	if jetsonReason != "" {
		p.Unavailable["linux-jetson"] = []string{jetsonReason, "cuDNN 8.9.7 has no linux-aarch64 archive for CUDA " + cuda}
	}
	return p
}

func nvcc(cuda string) *pkgset.Package {
	return &pkgset.Package{Name: "cuda_nvcc", Product: "cuda", Manifest: "cuda_nvcc",
		Release: version.MustParse(cuda), Version: version.MustParse(cuda), Role: "exec",
		Platforms: map[string]pkgset.Archive{
			"linux-x86_64": archive("cuda", "cuda_nvcc", "linux-x86_64", cuda, "", sha("e"+cuda[len(cuda)-1:])),
		},
		Unavailable: map[string][]string{"linux-sbsa": {"the test set has no sbsa nvcc"}},
		Files: map[string][]pkgset.File{"linux-x86_64": {
			{Path: "bin/nvcc", Kind: "binary", Role: "exec"},
			{Path: "bin/ptxas", Kind: "binary", Role: "exec"},
			{Path: "include", Kind: "headers", Role: "target"},
			{Path: "nvvm/libdevice/libdevice.10.bc", Kind: "data", Role: "exec"},
		}},
	}
}

var cases = []struct {
	name    string
	cudas   []string
	targets []string
	sets    func() []*pkgset.Set
}{
	{
		// Two CUDA versions; cuDNN's cuda12 archive serves both (one
		// package); cudnn_8_9 is a versioned name only 12.4.1 has; cuDNN
		// is unusable on Jetson; nvcc only serves x86_64.
		name: "two-versions", cudas: []string{"12.4.1", "12.6.3"},
		targets: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"},
		sets: func() []*pkgset.Set {
			return []*pkgset.Set{
				{CUDA: version.MustParse("12.6.3"), Packages: []*pkgset.Package{
					cudart("12.6.3", "12.6.77", "b"), cudnn("cudnn", "12.6.3", "no Jetson build for this CUDA"), nvcc("12.6.3")}},
				{CUDA: version.MustParse("12.4.1"), Packages: []*pkgset.Package{
					cudart("12.4.1", "12.4.127", "a"), cudnn("cudnn", "12.4.1", "no Jetson build for this CUDA"), cudnn("cudnn_8_9", "12.4.1", ""), nvcc("12.4.1")}},
			}
		},
	},
	{
		// A product no plugin described (no Files), and a ppc64le target
		// (a CPU the prelude has no constraint for).
		name: "unfixed-ppc64le", cudas: []string{"12.4.1"}, targets: []string{"linux-x86_64", "linux-ppc64le"},
		sets: func() []*pkgset.Set {
			return []*pkgset.Set{{CUDA: version.MustParse("12.4.1"), Packages: []*pkgset.Package{{
				Name: "mylib", Product: "mylib", Manifest: "mylib", Version: version.MustParse("1.2.3"),
				Platforms: map[string]pkgset.Archive{
					"linux-x86_64":  archive("mylib", "mylib", "linux-x86_64", "1.2.3", "", sha("f1")),
					"linux-ppc64le": archive("mylib", "mylib", "linux-ppc64le", "1.2.3", "", sha("f2")),
				}}}}}
		},
	},
}

// testOptions name the toolchain's packages as the built-in catalog does.
var testOptions = Options{Toolchain: catalog.Toolchain()}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree, err := Generate(testConfig(t, c.cudas, c.targets), c.sets(), testOptions)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "golden", c.name)
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				for p, b := range tree {
					full := filepath.Join(dir, filepath.FromSlash(p))
					if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(full, b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			got := map[string]string{}
			for p, b := range tree {
				got[p] = string(b)
			}
			if d := cmp.Diff(readDir(t, dir), got); d != "" {
				t.Errorf("tree differs from %s (-want +got; refresh with go test ./core/buck2 -update):\n%s", dir, d)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, c := range cases {
		cfg := testConfig(t, c.cudas, c.targets)
		a, err := Generate(cfg, c.sets(), testOptions)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			b, err := Generate(cfg, c.sets(), testOptions)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(a, b); d != "" {
				t.Fatalf("%s: run %d differs:\n%s", c.name, i, d)
			}
		}
	}
}

func TestLint(t *testing.T) {
	for _, c := range cases {
		tree, err := Generate(testConfig(t, c.cudas, c.targets), c.sets(), testOptions)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range Lint(tree) {
			t.Errorf("%s: %s", c.name, p)
		}
	}
}

// TestNoToolchain: without a compiler package there is no toolchain
// package, and the rest stands on its own.
func TestNoToolchain(t *testing.T) {
	c := cases[0]
	tree, err := Generate(testConfig(t, c.cudas, c.targets), c.sets(), Options{Name: "nvidia"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tree["toolchain/BUCK"]; ok {
		t.Error("toolchain/BUCK generated without a compiler package")
	}
	if !strings.Contains(string(tree["rules/cuda.bzl"]), `"nvidia//toolchain:cuda"`) {
		t.Error("rules/cuda.bzl does not name the cell nvidia")
	}
	for _, p := range Lint(tree) {
		t.Error(p)
	}
}

func TestErrors(t *testing.T) {
	c := cases[0]
	cfg := testConfig(t, c.cudas, c.targets)
	for _, tt := range []struct {
		name string
		sets func() []*pkgset.Set
		opts Options
		want string
	}{
		{"bad name", c.sets, Options{Name: "my-cuda"}, `cell name "my-cuda"`},
		{"digit name", c.sets, Options{Name: "1cuda"}, `cell name "1cuda"`},
		{"no sets", func() []*pkgset.Set { return nil }, Options{}, "no package sets"},
		{"duplicate version", func() []*pkgset.Set {
			s := c.sets()
			return append(s, &pkgset.Set{CUDA: s[0].CUDA})
		}, Options{}, "two package sets for CUDA 12.6.3"},
		{"no sha256", func() []*pkgset.Set {
			s := c.sets()
			a := s[0].Packages[0].Platforms["linux-x86_64"]
			a.SHA256 = ""
			s[0].Packages[0].Platforms["linux-x86_64"] = a
			return s
		}, Options{}, "CUDA 12.6.3: cuda_cudart on linux-x86_64: archive cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.6.77-archive.tar.xz has no sha256"},
		{"no URL", func() []*pkgset.Set {
			s := c.sets()
			a := s[0].Packages[0].Platforms["linux-x86_64"]
			a.URLs = nil
			s[0].Packages[0].Platforms["linux-x86_64"] = a
			return s
		}, Options{}, "has no URL"},
		{"one archive, two manifests", func() []*pkgset.Set {
			s := c.sets()
			s[0].Packages[2].Platforms["linux-x86_64"] = s[0].Packages[0].Platforms["linux-x86_64"]
			return s
		}, Options{}, "serves both cuda_cudart and cuda_nvcc"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Generate(cfg, tt.sets(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Generate: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestRealManifests generates from NVIDIA's real manifests (../shared),
// fixed up by the built-in plugins in process, and checks that every file
// parses as what it is and lints clean.
func TestRealManifests(t *testing.T) {
	cfg, sets := fixuptest.Sets(t, []string{"12.4.1", "12.6.3", "13.0.0"}, []string{"linux-x86_64", "linux-sbsa", "linux-jetson"})
	h := fixup.InProcess(fixup.Options{}, redist.New(), cudnnplugin.New(), cutensor.New(), tensorrt.New())
	if err := h.Apply(context.Background(), cfg, sets); err != nil {
		t.Fatal(err)
	}
	tree, err := Generate(cfg, sets, Options{Toolchain: catalog.Toolchain()})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"BUCK", "platforms/BUCK", "unusable/BUCK", "rules/cuda.bzl", "toolchain/BUCK"} {
		if _, ok := tree[p]; !ok {
			t.Errorf("no %s", p)
		}
	}
	for _, p := range tree.Paths() {
		var err error
		if strings.HasSuffix(p, ".bzl") {
			_, err = build.ParseBzl(p, tree[p])
		} else {
			_, err = build.ParseBuild(p, tree[p])
		}
		if err != nil {
			t.Error(err)
		}
	}
	for _, p := range Lint(tree) {
		t.Error(p)
	}
	hub := string(tree["BUCK"])
	for _, want := range []string{`name = "libcublas"`, `":cuda_13_0_0_linux_jetson"`, `"DEFAULT": "//unusable:cudnn"`} {
		if !strings.Contains(hub, want) {
			t.Errorf("BUCK lacks %s", want)
		}
	}
	tc := string(tree["toolchain/BUCK"])
	if !strings.Contains(tc, `name = "nvcc_12_6_3_linux_x86_64"`) || !strings.Contains(tc, `path = "bin/nvcc"`) {
		t.Errorf("toolchain/BUCK has no x86_64 nvcc for 12.6.3:\n%s", tc)
	}
}
