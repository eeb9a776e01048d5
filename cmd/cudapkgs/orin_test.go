package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// jetsonQuery is the part of query's JSON the Orin tests read.
type jetsonQuery map[string]struct {
	Packages map[string]struct {
		Deps []struct {
			Name    string `json:"name"`
			Runtime bool   `json:"runtime"`
		} `json:"deps"`
		Platforms map[string]struct {
			Key string `json:"nvidia_key"`
		} `json:"platforms"`
		Unavailable map[string][]string `json:"unavailable"`
	} `json:"packages"`
}

// orinPackages: 13.0.0 has no cuda_compat_orin, and query refuses a
// --package that matches nothing.
const orinPackages = "cuda_nvcc,cuda_cudart,libcublas,cuda_compat_orin,cudnn"

func queryJetson(t *testing.T, pkgs string, args ...string) jetsonQuery {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"query", "--manifests", shared.Manifests(t), "--format", "json", "--platform", "linux-jetson",
		"--forward-compat", "--package", pkgs}, args...)
	if code := run(context.Background(), args, &out, &errb, false); code != 0 {
		t.Fatalf("query %v: exit %d: %s", args, code, errb.String())
	}
	var q jetsonQuery
	if err := json.Unmarshal(out.Bytes(), &q); err != nil {
		t.Fatal(err)
	}
	return q
}

// From CUDA 13.2 Jetson Orin (8.7) is served by the linux-sbsa archives with
// cuda_compat_orin; Thor (11.0) is served by them without it; before 13.2
// Orin gets a reason that says where it is served.
func TestQueryJetsonOrinOnCUDA13(t *testing.T) {
	for _, cuda := range []string{"13.3.0", "13.4.1"} {
		s := queryJetson(t, orinPackages, "--cuda", cuda, "--capabilities", "8.7")[cuda]
		for _, name := range []string{"cuda_nvcc", "cuda_cudart", "libcublas", "cuda_compat_orin", "cudnn"} {
			p, ok := s.Packages[name]
			if !ok {
				t.Errorf("CUDA %s Orin: no %s", cuda, name)
				continue
			}
			if got := p.Platforms["linux-jetson"].Key; got != "linux-sbsa" || len(p.Unavailable["linux-jetson"]) > 0 {
				t.Errorf("CUDA %s Orin: %s served by %q, reasons %q; want linux-sbsa's archive", cuda, name, got, p.Unavailable["linux-jetson"])
			}
		}
		if !hasRuntimeDep(s.Packages["cuda_cudart"].Deps, "cuda_compat_orin") {
			t.Errorf("CUDA %s Orin: cuda_cudart has no forward-compatibility edge to cuda_compat_orin: %+v", cuda, s.Packages["cuda_cudart"].Deps)
		}

		s = queryJetson(t, orinPackages, "--cuda", cuda, "--capabilities", "11.0")[cuda]
		if got := s.Packages["cuda_nvcc"].Platforms["linux-jetson"].Key; got != "linux-sbsa" {
			t.Errorf("CUDA %s Thor: cuda_nvcc served by %q, want linux-sbsa", cuda, got)
		}
		if r := s.Packages["cuda_compat_orin"].Unavailable["linux-jetson"]; len(r) != 1 || !strings.Contains(r[0], "Jetson Orin (capability 8.7)") {
			t.Errorf("CUDA %s Thor: cuda_compat_orin reasons %q, want Orin's only", cuda, r)
		}
		if hasRuntimeDep(s.Packages["cuda_cudart"].Deps, "cuda_compat_orin") {
			t.Errorf("CUDA %s Thor: cuda_cudart loads cuda_compat_orin", cuda)
		}
	}

	s := queryJetson(t, "cuda_nvcc,cuda_cudart,libcublas,cudnn", "--cuda", "13.0.0", "--capabilities", "8.7")["13.0.0"]
	want := "capability 8.7 (Orin) needs CUDA 12.x, whose linux-aarch64 archives serve it, or CUDA 13.2 or later, whose linux-sbsa archives do"
	for _, name := range []string{"cuda_nvcc", "cuda_cudart", "libcublas", "cudnn"} {
		if r := s.Packages[name].Unavailable["linux-jetson"]; len(r) == 0 || !strings.Contains(r[0], want) {
			t.Errorf("CUDA 13.0.0 Orin: %s reasons %q, want %q", name, r, want)
		}
	}
}

func hasRuntimeDep(deps []struct {
	Name    string `json:"name"`
	Runtime bool   `json:"runtime"`
}, name string) bool {
	for _, d := range deps {
		if d.Name == name && d.Runtime {
			return true
		}
	}
	return false
}
