package bazel

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/splice"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/emittest"
)

var update = flag.Bool("update", false, "rewrite the testdata/*/want trees")

func TestGolden(t *testing.T) {
	for _, c := range emittest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			tree, err := Generate(emittest.Config(t, c.CUDAs, c.Targets), c.Sets(), testOptions)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", c.Name, "want")
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
			want := emittest.ReadDir(t, dir)
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
	for _, c := range emittest.Cases() {
		cfg := emittest.Config(t, c.CUDAs, c.Targets)
		a, err := Generate(cfg, c.Sets(), testOptions)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			b, err := Generate(cfg, c.Sets(), testOptions)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(a, b); d != "" {
				t.Fatalf("%s: run %d differs:\n%s", c.Name, i, d)
			}
		}
	}
}

func TestLint(t *testing.T) {
	for _, c := range emittest.Cases() {
		tree, err := Generate(emittest.Config(t, c.CUDAs, c.Targets), c.Sets(), testOptions)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range Lint(tree) {
			t.Errorf("%s: %s", c.Name, p)
		}
	}
}

// testOptions name the toolchain's packages as the built-in catalog does.
var testOptions = Options{Toolchain: splice.Toolchain{
	Compiler: "cuda_nvcc",
	Runtime:  "cuda_cudart",
	Headers: func(cuda version.Version) []string {
		if cuda.Major() < 13 {
			return []string{"cuda_cudart", "cuda_nvcc"}
		}
		return []string{"cuda_cudart", "cuda_crt"}
	},
},
	LocalProduct:  "cuda",
	LocalIdentify: []string{"cuda_nvcc", "cuda_cudart"},
	LocalHints: []localcuda.Hint{
		{Component: "cuda_nvcc", Rel: "bin/nvcc", Kind: localcuda.KindText, Key: ", V"},
		{Component: "cuda_cudart", Rel: "lib", Kind: localcuda.KindName, Key: "libcudart.so."},
	},
}
