package builtin_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
)

// TestReleasesPerCUDA: for the products whose archives are split by
// cuda_variant, which release each name serves for a CUDA version, from
// which variant and (for Jetson) which manifest key, on which platforms:
// the set's reading of the real manifests, which no plugin repeats.
func TestReleasesPerCUDA(t *testing.T) {
	all := []string{"linux-jetson", "linux-sbsa", "linux-x86_64", "windows-x86_64"}
	cudss := map[string]string{"libcudss": "0.8.0", "libcudss_0_6": "0.6.0", "libcudss_0_8": "0.8.0"}
	cudss13 := map[string]string{"libcudss": "0.8.0", "libcudss_0_8": "0.8.0"}
	lt := map[string]string{"libcusparse_lt": "0.8.1", "libcusparse_lt_0_8": "0.8.1"}
	lt13 := map[string]string{"libcusparse_lt": "0.10.0", "libcusparse_lt_0_8": "0.8.1", "libcusparse_lt_0_10": "0.10.0"}
	tests := []struct {
		product, cuda string
		names         map[string]string // set name -> release
		variant       string
		jetson        string // the manifest key serving linux-jetson
	}{
		{"cudss", "12.0.1", cudss, "cuda12", "linux-aarch64"},
		{"cudss", "12.9.0", cudss, "cuda12", "linux-aarch64"},
		// 0.6.0 has no cuda13 archive; 0.8.0 has no cuda13 linux-aarch64
		// one, and CUDA 13 serves Jetson Thor from linux-sbsa.
		{"cudss", "13.0.0", cudss13, "cuda13", "linux-sbsa"},
		{"cudss", "13.3.0", cudss13, "cuda13", "linux-sbsa"},
		// Jetson: 0.8.1's linux-aarch64 archive before CUDA 13, the SBSA
		// one from CUDA 13 (0.10.0 has no linux-aarch64 at all).
		{"cusparselt", "12.0.1", lt, "cuda12", "linux-aarch64"},
		{"cusparselt", "12.9.0", lt, "cuda12", "linux-aarch64"},
		{"cusparselt", "13.0.0", lt13, "cuda13", "linux-sbsa"},
		{"cusparselt", "13.3.0", lt13, "cuda13", "linux-sbsa"},
	}
	env := builtintest.Env()
	for _, tt := range tests {
		b := env.Batch(t, tt.product, tt.cuda, nil)
		got := map[string]string{}
		for _, p := range b.Packages {
			got[p.Name] = p.Release
			var plats []string
			for _, a := range p.Archives {
				plats = append(plats, a.Platform)
				if a.Variant != tt.variant {
					t.Errorf("%s for CUDA %s: %s on %s from variant %q, want %q", tt.product, tt.cuda, p.Name, a.Platform, a.Variant, tt.variant)
				}
				if a.Platform == "linux-jetson" && a.Key != tt.jetson {
					t.Errorf("%s for CUDA %s: %s on Jetson from %s, want %s", tt.product, tt.cuda, p.Name, a.Key, tt.jetson)
				}
			}
			sort.Strings(plats)
			if d := cmp.Diff(all, plats); d != "" {
				t.Errorf("%s for CUDA %s: %s platforms (-want +got):\n%s", tt.product, tt.cuda, p.Name, d)
			}
			if u := p.Unavailable["linux-ppc64le"]; len(u) != 1 || !strings.Contains(u[0], "has no linux-ppc64le archive") {
				t.Errorf("%s for CUDA %s: %s on ppc64le: %q", tt.product, tt.cuda, p.Name, u)
			}
		}
		if d := cmp.Diff(tt.names, got); d != "" {
			t.Errorf("%s for CUDA %s: names and releases (-want +got):\n%s", tt.product, tt.cuda, d)
		}
	}
}

// TestNoReleaseForCUDA11: no cuDSS or cuSPARSELt manifest has a cuda11
// variant, so CUDA 11 sets keep the names with the reason, and no batch
// reaches the plugin.
func TestNoReleaseForCUDA11(t *testing.T) {
	_, sets := builtintest.Env().Sets(t, []string{"11.8.0"}, []string{"linux-x86_64"})
	for _, tt := range []struct{ product, pkg, want string }{
		{"cudss", "libcudss", "no cudss release in the manifests serves CUDA 11.8.0 (newest: 0.8.0, for CUDA 12"},
		{"cusparselt", "libcusparse_lt", "no cusparselt release in the manifests serves CUDA 11.8.0 (newest: 0.10.0, for CUDA 13)"},
	} {
		got := sets[0].NoRelease[tt.product]
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("CUDA 11.8.0: %s no_release %q, want %q", tt.product, got, tt.want)
		}
		p, ok := sets[0].Package(tt.pkg)
		if !ok || !slices.Equal(p.Unavailable["linux-x86_64"], []string{got}) {
			t.Errorf("CUDA 11.8.0: %s = %+v", tt.pkg, p)
		}
	}
}
