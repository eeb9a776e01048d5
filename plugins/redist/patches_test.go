package redist

import (
	"context"
	"slices"
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// TestPatchBounds: cuda_nvcc gets both header patches from CUDA 11.7 (the
// oldest release whose header they were checked against) through 12.x, and
// none from 13.0, where the header is cuda_crt's and already fixed.
func TestPatchBounds(t *testing.T) {
	for _, tc := range []struct {
		cuda, nvcc string
		want       []string
	}{
		{"11.6.2", "11.6.124", nil},
		{"11.7.1", "11.7.99", []string{"glibc-2.41-math-functions", "aarch64-vector-types"}},
		{"12.4.1", "12.4.131", []string{"glibc-2.41-math-functions", "aarch64-vector-types"}},
		{"12.9.0", "12.9.41", []string{"glibc-2.41-math-functions", "aarch64-vector-types"}},
		{"13.0.0", "13.0.48", nil},
	} {
		p := sdk.Package{Name: "cuda_nvcc", Manifest: "cuda_nvcc", Product: Product, Release: tc.cuda, Version: tc.nvcc,
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64"}}}
		b := &sdk.Batch{CUDA: tc.cuda, Product: Product, Config: sdk.Config{Targets: []string{"linux-x86_64"}}, Packages: []sdk.Package{p}}
		r, err := New().Fixup(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, pa := range r.Packages[0].Patches {
			got = append(got, pa.Name)
			for _, e := range pa.Edits {
				if e.Path != "include/crt/math_functions.h" {
					t.Errorf("CUDA %s: patch %s edits %s", tc.cuda, pa.Name, e.Path)
				}
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("CUDA %s: patches %v, want %v", tc.cuda, got, tc.want)
		}
	}
}
