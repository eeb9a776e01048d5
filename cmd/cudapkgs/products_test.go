package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// productQuery is what query says of cuSPARSELt's and cuDSS's packages.
type productQuery map[string]struct {
	Releases  map[string]string `json:"releases"`
	NoRelease map[string]string `json:"no_release"`
	Packages  map[string]struct {
		Product string `json:"product"`
		Release string `json:"release"`
		Deps    []struct {
			Name    string `json:"name"`
			Runtime bool   `json:"runtime"`
			Headers bool   `json:"headers"`
		} `json:"deps"`
		Files       map[string]map[string][]struct{ Path, SONAME string } `json:"files"`
		Unavailable map[string][]string                                   `json:"unavailable"`
	} `json:"packages"`
}

func queryProducts(t *testing.T, args ...string) productQuery {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"query", "--manifests", shared.Manifests(t), "--format", "json",
		"--package", "libcusparse_lt*,libcudss*"}, args...)...)
	if code != 0 {
		t.Fatalf("query %v: exit %d: %s", args, code, errs)
	}
	var q productQuery
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatalf("query %v: %v", args, err)
	}
	return q
}

// TestQueryCuSPARSELtAndCuDSS: query shows both products for the CUDA
// versions their manifests serve, under default and versioned names, with
// the plugins' files and edges, and says why CUDA 11 has neither.
func TestQueryCuSPARSELtAndCuDSS(t *testing.T) {
	q := queryProducts(t, "--cuda", "11.8.0,12.9.0,13.0.0", "--platform", "linux-x86_64,linux-sbsa", "--capabilities", "8.0,9.0")
	tests := []struct {
		cuda, pkg, release string // release "": not in the set
		soname, deps       string
	}{
		{"12.9.0", "libcusparse_lt", "0.8.1", "libcusparseLt.so.0", "cuda_cudart,cuda_nvrtc,libcusparse"},
		{"12.9.0", "libcusparse_lt_0_8", "0.8.1", "libcusparseLt.so.0", "cuda_cudart,cuda_nvrtc,libcusparse"},
		{"12.9.0", "libcusparse_lt_0_10", "", "", ""},
		{"13.0.0", "libcusparse_lt", "0.10.0", "libcusparseLt.so.0", "cuda_cudart,cuda_nvrtc"},
		{"13.0.0", "libcusparse_lt_0_8", "0.8.1", "libcusparseLt.so.0", "cuda_cudart,cuda_nvrtc,libcusparse"},
		{"13.0.0", "libcusparse_lt_0_10", "0.10.0", "libcusparseLt.so.0", "cuda_cudart,cuda_nvrtc"},
		{"12.9.0", "libcudss", "0.8.0", "libcudss.so.0", "cuda_cudart,libcublas"},
		{"12.9.0", "libcudss_0_6", "0.6.0", "libcudss.so.0", "cuda_cudart,libcublas"},
		{"12.9.0", "libcudss_0_8", "0.8.0", "libcudss.so.0", "cuda_cudart,libcublas"},
		{"13.0.0", "libcudss", "0.8.0", "libcudss.so.0", "cuda_cudart,libcublas"},
		{"13.0.0", "libcudss_0_6", "", "", ""},
		{"13.0.0", "libcudss_0_8", "0.8.0", "libcudss.so.0", "cuda_cudart,libcublas"},
	}
	for _, tt := range tests {
		p, ok := q[tt.cuda].Packages[tt.pkg]
		if tt.release == "" {
			if ok {
				t.Errorf("CUDA %s: %s is in the set (release %s), want it absent", tt.cuda, tt.pkg, p.Release)
			}
			continue
		}
		if !ok || p.Release != tt.release {
			t.Errorf("CUDA %s: %s = %+v, want release %s", tt.cuda, tt.pkg, p, tt.release)
			continue
		}
		var deps []string
		for _, d := range p.Deps {
			deps = append(deps, d.Name)
		}
		if got := strings.Join(deps, ","); got != tt.deps {
			t.Errorf("CUDA %s: %s deps %s, want %s", tt.cuda, tt.pkg, got, tt.deps)
		}
		for _, plat := range []string{"linux-x86_64", "linux-sbsa"} {
			if u := p.Unavailable[plat]; len(u) > 0 {
				t.Errorf("CUDA %s: %s unusable on %s with Ampere and Hopper: %q", tt.cuda, tt.pkg, plat, u)
			}
			libs := p.Files[plat]["shared_lib"]
			if len(libs) != 1 || libs[0].SONAME != tt.soname {
				t.Errorf("CUDA %s: %s on %s shared libraries %+v, want %s", tt.cuda, tt.pkg, plat, libs, tt.soname)
			}
		}
	}
	// cuDSS's layers need MPI, NCCL or OpenMP: data, never linked.
	var data []string
	for _, f := range q["12.9.0"].Packages["libcudss"].Files["linux-x86_64"]["data"] {
		data = append(data, f.Path)
	}
	if want := []string{"lib/libcudss_commlayer_nccl.so.0", "lib/libcudss_commlayer_openmpi.so.0", "lib/libcudss_mtlayer_gomp.so.0"}; !slices.Equal(data, want) {
		t.Errorf("CUDA 12.9.0: libcudss data %v, want %v", data, want)
	}
	for product, want := range map[string]string{
		"cusparselt": "no cusparselt release in the manifests serves CUDA 11.8.0 (newest: 0.10.0, for CUDA 13)",
		"cudss":      "no cudss release in the manifests serves CUDA 11.8.0 (newest: 0.8.0, for CUDA 12, CUDA 13)",
	} {
		if got := q["11.8.0"].NoRelease[product]; got != want {
			t.Errorf("CUDA 11.8.0: no_release[%s] = %q, want %q", product, got, want)
		}
		if got := q["12.9.0"].Releases[product]; got == "" {
			t.Errorf("CUDA 12.9.0: no %s release chosen", product)
		}
	}

	// The default capabilities include Turing, which nobody chose:
	// cuSPARSELt (8.0 and newer) is judged against the defaults it
	// supports and is usable; named by the user, Turing rules it out, with
	// the reason. cuDSS (6.0 and newer) is usable either way.
	d := queryProducts(t, "--cuda", "12.9.0", "--platform", "linux-x86_64")
	if u := d["12.9.0"].Packages["libcusparse_lt"].Unavailable["linux-x86_64"]; len(u) > 0 {
		t.Errorf("CUDA 12.9.0 defaults: libcusparse_lt unavailable %q", u)
	}
	want := "cuSPARSELt 0.8.1 needs the Sparse Tensor Cores of capabilities 8.0 (NVIDIA Ampere) and newer; 7.5 (Turing) is selected"
	named := queryProducts(t, "--cuda", "12.9.0", "--platform", "linux-x86_64", "--capabilities", "7.5,8.0")
	if u := named["12.9.0"].Packages["libcusparse_lt"].Unavailable["linux-x86_64"]; !slices.Contains(u, want) {
		t.Errorf("CUDA 12.9.0, capabilities 7.5,8.0: libcusparse_lt unavailable %q, want %q among them", u, want)
	}
	if u := d["12.9.0"].Packages["libcudss"].Unavailable["linux-x86_64"]; len(u) > 0 {
		t.Errorf("CUDA 12.9.0 defaults: libcudss unavailable %q", u)
	}
}

// TestGenerateCuSPARSELtAndCuDSS: Bazel and Buck2 output name both
// products, under default and versioned names, for the CUDA versions they
// serve, lint clean, and keep cuDSS's layers out of the link.
func TestGenerateCuSPARSELtAndCuDSS(t *testing.T) {
	m := shared.Manifests(t)
	args := func(out, format string) []string {
		return []string{"generate", "--manifests", m, "--out", out, "--format", format,
			"--cuda", "12.9.0,13.0.0", "--platform", "linux-x86_64,linux-sbsa", "--capabilities", "8.0,9.0"}
	}

	bz := filepath.Join(t.TempDir(), "bazel")
	mustGenerate(t, args(bz, "bazel")...)
	tree := readTree(t, bz)
	delete(tree, outdir.StampFile) // not a Bazel file
	for _, p := range bazel.Lint(tree) {
		t.Error(p)
	}
	wantOutput(t, "BUILD.bazel", string(tree["BUILD.bazel"]),
		`name = "libcusparse_lt"`, `name = "libcusparse_lt_0_8"`, `name = "libcusparse_lt_0_10"`,
		`name = "libcudss"`, `name = "libcudss_0_6"`, `name = "libcudss_0_8"`,
		`":cuda_12.9.0_linux_x86_64": "@cuda_libcusparse_lt_0_8_1_1_linux_x86_64_cuda12//:libcusparse_lt"`,
		`":cuda_13.0.0_linux_sbsa": "@cuda_libcusparse_lt_0_10_0_12_linux_sbsa_cuda13//:libcusparse_lt"`,
		`":cuda_13.0.0_linux_x86_64": "@cuda_libcudss_0_8_0_10_linux_x86_64_cuda13//:libcudss"`,
		// cuDSS 0.6 has no cuda13 archive: unusable there, with the reason.
		`":cuda_13.0.0_linux_x86_64": "//unusable:libcudss_0_6_13_0_0_linux_x86_64"`)
	repo := string(tree["repos/cuda_libcudss_0_8_0_10_linux_x86_64_cuda12.BUILD"])
	wantOutput(t, "the libcudss repository", repo, `shared_library = "lib/libcudss.so.0"`, `static_library = "lib/libcudss_static.a"`,
		`"@cuda//:libcublas"`, `"@cuda//:libcublas_static"`, `name = "data"`, `"lib/libcudss_commlayer_nccl.so.0"`)
	if i := strings.Index(repo, `name = "data"`); strings.Contains(repo[:i], "commlayer") || strings.Contains(repo[:i], "mtlayer") {
		t.Errorf("a cuDSS layer outside the data filegroup:\n%s", repo)
	}
	wantOutput(t, "the libcusparse_lt repository", string(tree["repos/cuda_libcusparse_lt_0_10_0_12_linux_sbsa_cuda13.BUILD"]),
		`shared_library = "lib/libcusparseLt.so.0"`, `static_library = "lib/libcusparseLt_static.a"`, `"@cuda//:cuda_cudart"`)

	bk := filepath.Join(t.TempDir(), "buck2")
	mustGenerate(t, args(bk, "buck2")...)
	cell := readTree(t, bk)
	delete(cell, outdir.StampFile)
	for _, p := range buck2.Lint(cell) {
		t.Error(p)
	}
	wantOutput(t, "BUCK", string(cell["BUCK"]),
		`name = "libcusparse_lt"`, `name = "libcusparse_lt_0_10"`, `name = "libcudss"`, `name = "libcudss_0_6"`,
		`"//repos/libcusparse_lt_0_8_1_1_linux_x86_64_cuda12:libcusparse_lt"`,
		`"//repos/libcudss_0_8_0_10_linux_sbsa_cuda13:libcudss"`)
}
