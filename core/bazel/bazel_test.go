package bazel

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
)

var update = flag.Bool("update", false, "rewrite the testdata/*/want trees")

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
		Deps:        []pkgset.Dep{{Name: "libcublas"}},
	}
	for pl := range p.Platforms {
		p.Files[pl] = libFiles("libcudnn", "8", pkgset.File{Path: "lib/libcudnn_ops_infer.so.8", Kind: "shared_lib", Role: "target", SONAME: "libcudnn_ops_infer.so.8"})
	}
	if jetsonReason != "" {
		p.Unavailable["linux-jetson"] = []string{jetsonReason, "cuDNN 8.9.7 has no linux-aarch64 archive for CUDA " + cuda}
	}
	return p
}

func nvcc(cuda string) *pkgset.Package {
	p := &pkgset.Package{Name: "cuda_nvcc", Product: "cuda", Manifest: "cuda_nvcc",
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
	return p
}

var cases = []struct {
	name    string
	cudas   []string
	targets []string
	sets    func() []*pkgset.Set
}{
	{
		// Two CUDA versions; cuDNN's cuda12 archive serves both (one
		// repository); cudnn_8_9 is a versioned name only 12.4.1 has; cuDNN
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
		// A product no plugin described (no Files), and a ppc64le target.
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

func TestGolden(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree, err := Generate(testConfig(t, c.cudas, c.targets), c.sets(), testOptions)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", c.name, "want")
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
			want := map[string]string{}
			err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				want[filepath.ToSlash(rel)] = string(b)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for p, b := range tree {
				got[p] = string(b)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("tree differs from %s (-want +got; refresh with go test ./core/bazel -update):\n%s", dir, d)
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

// testOptions name the toolchain's packages as the built-in catalog does.
var testOptions = Options{Toolchain: Toolchain{
	Compiler: "cuda_nvcc",
	Runtime:  "cuda_cudart",
	Headers: func(cuda version.Version) []string {
		if cuda.Major() < 13 {
			return []string{"cuda_cudart", "cuda_nvcc"}
		}
		return []string{"cuda_cudart", "cuda_crt"}
	},
}}
