package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// TestNewProductsUsable is issue 23's "done when" for the products with
// NVIDIA manifests: query --format json with the defaults and ../shared's
// manifests shows each package usable (an archive, files, no reason, not
// generic) on the platforms NVIDIA serves it for. NPP+ 0.10.0 ships for
// CUDA 11 and 12 only, so it is checked with CUDA 12.9.0, as nvJPEG2000;
// NVPL needs no CUDA and is linux-sbsa only. NCCL, NVSHMEM and cuFFTMp come
// from wheels, not ../shared's manifests: TestWheelProductsUsable.
func TestNewProductsUsable(t *testing.T) {
	both := []string{"linux-x86_64", "linux-sbsa"}
	nvpl := []string{"nvpl_blas", "nvpl_common", "nvpl_fft", "nvpl_lapack", "nvpl_rand", "nvpl_scalapack", "nvpl_sparse", "nvpl_tensor"}
	tests := []usableCase{
		{"13.0.0", []string{"libcublasmp", "libcusolvermp", "nvcomp", "libnvtiff", "libnvjpeg_2k"}, both},
		{"13.0.0", nvpl, []string{"linux-sbsa"}},
		{"12.9.0", []string{"libnpp_plus", "libnvjpeg_2k", "libcublasmp", "libcusolvermp", "nvcomp", "libnvtiff"}, both},
		{"12.9.0", nvpl, []string{"linux-sbsa"}},
	}
	checkUsable(t, tests, "--manifests", shared.Manifests(t))
}

// TestWheelProductsUsable: with no --manifests, the embedded snapshot's
// manifests made from NVIDIA's wheels serve NCCL, NVSHMEM and cuFFTMp,
// usable on both Linux targets the wheels exist for, with CUDA 12 and 13.
func TestWheelProductsUsable(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "no-cache"))
	wheels := []string{"nccl", "nvshmem", "libcufftmp"}
	both := []string{"linux-x86_64", "linux-sbsa"}
	checkUsable(t, []usableCase{{"13.0.0", wheels, both}, {"12.9.0", wheels, both}}, "--workspace", t.TempDir())
}

type usableCase struct {
	cuda      string
	packages  []string
	platforms []string
}

// checkUsable runs query --format json once per CUDA version, with args,
// and fails on a package of a case that is missing, unavailable, without
// files or served generically on one of the case's platforms.
func checkUsable(t *testing.T, tests []usableCase, args ...string) {
	t.Helper()
	out := map[string][]byte{}
	for _, tt := range tests {
		if out[tt.cuda] == nil {
			out[tt.cuda] = runOK(t, append([]string{"query", "--cuda", tt.cuda, "--format", "json"}, args...)...)
		}
		var sets map[string]struct {
			Packages map[string]jsonPackage `json:"packages"`
		}
		if err := json.Unmarshal(out[tt.cuda], &sets); err != nil {
			t.Fatal(err)
		}
		pkgs := sets[tt.cuda].Packages
		for _, name := range tt.packages {
			p, ok := pkgs[name]
			if !ok {
				t.Errorf("CUDA %s: no package %s", tt.cuda, name)
				continue
			}
			for _, plat := range tt.platforms {
				a, has := p.Platforms[plat]
				switch {
				case !has || a.URL == "":
					t.Errorf("CUDA %s: %s has no archive for %s", tt.cuda, name, plat)
				case len(p.Unavailable[plat]) > 0:
					t.Errorf("CUDA %s: %s on %s: %s", tt.cuda, name, plat, strings.Join(p.Unavailable[plat], "; "))
				case len(p.Files[plat]) == 0:
					t.Errorf("CUDA %s: %s on %s has no files", tt.cuda, name, plat)
				}
				for _, g := range p.Generic {
					if g == plat {
						t.Errorf("CUDA %s: %s on %s is served generically", tt.cuda, name, plat)
					}
				}
			}
		}
	}
}
