package nvpl

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// fx holds the products this package's batches are built with.
var fx = fixuptest.New(redist.New(), New())

func TestProductFacts(t *testing.T) {
	want := []sdk.ProductFacts{{Product: Product, Base: "https://developer.download.nvidia.com", Path: "compute/nvpl/redist",
		Platforms: []string{"linux-sbsa"}, NoCUDA: true}}
	if d := cmp.Diff(want, New().Describe().Facts); d != "" {
		t.Errorf("Describe().Facts (-want +got):\n%s", d)
	}
}

// TestEverySet: NVPL 26.5 is in the CUDA 12 and 13 sets alike, every
// package known, each with its linked libraries and edges on linux-sbsa.
func TestEverySet(t *testing.T) {
	linked := map[string][]string{
		"nvpl_blas":      {"libnvpl_blas_core.so.0", "libnvpl_blas_lp64_gomp.so.0"},
		"nvpl_lapack":    {"libnvpl_lapack_core.so.0", "libnvpl_lapack_lp64_gomp.so.0"},
		"nvpl_scalapack": nil,
		"nvpl_fft":       {"libnvpl_fftw.so.0"},
		"nvpl_rand":      {"libnvpl_rand.so.0"},
		"nvpl_sparse":    {"libnvpl_sparse.so.0"},
		"nvpl_tensor":    {"libnvpl_tensor.so.0"},
		"nvpl_common":    nil,
	}
	deps := map[string][]sdk.Dep{
		"nvpl_lapack":    {{Package: "nvpl_blas"}},
		"nvpl_scalapack": {{Package: "nvpl_lapack"}, {Package: "nvpl_blas"}},
		"nvpl_tensor":    {{Package: "nvpl_blas"}},
	}
	data := map[string]int{"nvpl_blas": 3, "nvpl_lapack": 3, "nvpl_scalapack": 10, "nvpl_rand": 1}
	for _, cuda := range []string{"12.9.0", "13.0.0"} {
		b := fx.Batch(t, Product, cuda, []string{"linux-sbsa"})
		res := fixuptest.Fix(t, New(), b)
		// Each package under its default name and its versioned one
		// (nvpl_blas_26_5).
		if len(res) != 2*len(linked) {
			t.Errorf("CUDA %s: %d packages, want %d", cuda, len(res), 2*len(linked))
		}
		for pkg, want := range linked {
			r, ok := res[pkg]
			if !ok {
				t.Errorf("CUDA %s: no %s", cuda, pkg)
				continue
			}
			if d := cmp.Diff(deps[pkg], r.Deps); d != "" {
				t.Errorf("CUDA %s: %s deps (-want +got):\n%s", cuda, pkg, d)
			}
			pr := r.Platforms["linux-sbsa"]
			var got []string
			nData := 0
			for _, f := range pr.Files {
				switch f.Kind {
				case sdk.SharedLib:
					got = append(got, f.SONAME)
				case sdk.Data:
					nData++
				}
			}
			if !slices.Equal(want, got) || nData != data[pkg] || len(pr.Unusable) > 0 || pr.Generic {
				t.Errorf("CUDA %s: %s: linked %q (want %q), %d data (want %d), unusable %q, generic %v",
					cuda, pkg, got, want, nData, data[pkg], pr.Unusable, pr.Generic)
			}
		}
	}
}

// TestNoCUDABatch: a batch without a CUDA version is answered (the product
// needs none).
func TestNoCUDABatch(t *testing.T) {
	b := fx.Batch(t, Product, "13.0.0", []string{"linux-sbsa"})
	b.CUDA = ""
	if _, err := New().Fixup(context.Background(), b); err != nil {
		t.Errorf("no CUDA version: %v", err)
	}
}

// TestComponentMajor: a component of another major than 0 is unusable with
// a reason naming it, and a version that does not parse is an error.
func TestComponentMajor(t *testing.T) {
	b := &sdk.Batch{CUDA: "13.0.0", Product: Product, Packages: []sdk.Package{
		{Name: "nvpl_blas", Manifest: "nvpl_blas", Product: Product, Release: "27.1", Version: "1.0.0",
			Archives: []sdk.Archive{{Platform: "linux-sbsa", Key: "linux-sbsa"}}},
		{Name: "nvpl_fft", Manifest: "nvpl_fft", Product: Product, Release: "27.1", Version: "0.7.0",
			Archives: []sdk.Archive{{Platform: "linux-sbsa", Key: "linux-sbsa"}}},
	}}
	res := fixuptest.Fix(t, New(), b)
	want := []string{"the nvpl plugin describes NVPL components 0.x, not nvpl_blas 1.0.0: its files and dependencies are not described"}
	if pr := res["nvpl_blas"].Platforms["linux-sbsa"]; !slices.Equal(pr.Unusable, want) || len(pr.Files) != 0 {
		t.Errorf("nvpl_blas 1.0.0: %+v, want %q", pr, want)
	}
	if pr := res["nvpl_fft"].Platforms["linux-sbsa"]; len(pr.Unusable) != 0 || len(pr.Files) != 2 {
		t.Errorf("nvpl_fft 0.7.0: %+v, want usable", pr)
	}
	b.Packages[1].Version = "0.x"
	if _, err := New().Fixup(context.Background(), b); err == nil {
		t.Error("component version 0.x: no error")
	}
}
