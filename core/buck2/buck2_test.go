package buck2

import (
	"context"
	"strings"
	"testing"

	"github.com/bazelbuild/buildtools/build"

	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/internal/emittest"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
)

// emitter runs the tests every emitter shares. rules/cuda.bzl is no copy
// but the template filled in for the cell, so its golden stays.
func emitter(t testing.TB) emittest.Emitter {
	return emittest.Emitter{Format: Format(), Options: emit.Options{Toolchain: builtintest.Toolchain(t)}}
}

func TestGolden(t *testing.T)        { emitter(t).TestGolden(t) }
func TestDeterministic(t *testing.T) { emitter(t).TestDeterministic(t) }
func TestLint(t *testing.T)          { emitter(t).TestLint(t) }

// TestNoToolchain: without a compiler package there is no toolchain
// package, and the rest stands on its own.
func TestNoToolchain(t *testing.T) {
	c := emittest.Cases()[0]
	tree, err := Generate(emittest.Config(t, c.CUDAs, c.Targets), c.Sets(), emit.Options{Name: "nvidia"})
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
	c := emittest.Cases()[0]
	cfg := emittest.Config(t, c.CUDAs, c.Targets)
	for _, tt := range []struct {
		name string
		sets func() []*pkgset.Set
		opts emit.Options
		want string
	}{
		{"bad name", c.Sets, emit.Options{Name: "my-cuda"}, `cell name "my-cuda"`},
		{"digit name", c.Sets, emit.Options{Name: "1cuda"}, `cell name "1cuda"`},
		{"no sets", func() []*pkgset.Set { return nil }, emit.Options{}, "no package sets"},
		{"duplicate version", func() []*pkgset.Set {
			s := c.Sets()
			return append(s, &pkgset.Set{CUDA: s[0].CUDA})
		}, emit.Options{}, "two package sets for CUDA 12.6.3"},
		{"no sha256", func() []*pkgset.Set {
			s := c.Sets()
			a := s[0].Packages[0].Platforms["linux-x86_64"]
			a.SHA256 = ""
			s[0].Packages[0].Platforms["linux-x86_64"] = a
			return s
		}, emit.Options{}, "CUDA 12.6.3: cuda_cudart on linux-x86_64: archive cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.6.77-archive.tar.xz has no sha256"},
		{"no URL", func() []*pkgset.Set {
			s := c.Sets()
			a := s[0].Packages[0].Platforms["linux-x86_64"]
			a.URLs = nil
			s[0].Packages[0].Platforms["linux-x86_64"] = a
			return s
		}, emit.Options{}, "has no URL"},
		{"one archive, two manifests", func() []*pkgset.Set {
			s := c.Sets()
			s[0].Packages[2].Platforms["linux-x86_64"] = s[0].Packages[0].Platforms["linux-x86_64"]
			return s
		}, emit.Options{}, "serves both cuda_cudart and cuda_nvcc"},
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
	cfg, sets := builtintest.Env().Sets(t, []string{"12.4.1", "12.6.3", "13.0.0"}, []string{"linux-x86_64", "linux-sbsa", "linux-jetson"})
	h := fixup.InProcess(fixup.Options{}, builtin.Fixers()...)
	applied, err := h.Apply(context.Background(), cfg, sets)
	if err != nil {
		t.Fatal(err)
	}
	sets = applied
	tree, err := Generate(cfg, sets, emit.Options{Toolchain: builtintest.Toolchain(t)})
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

// TestEverySource: an archive's package keeps every URL it has, mirrors
// first and NVIDIA's last, as the Bazel output does; .buckconfig's
// [cuda] url_index chooses the one the prelude's http_archive downloads.
func TestEverySource(t *testing.T) {
	c := emittest.Cases()[0]
	sets := c.Sets()
	tree, err := Generate(emittest.Config(t, c.CUDAs, c.Targets), sets, emit.Options{Toolchain: builtintest.Toolchain(t)})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range sets {
		for _, p := range s.Packages {
			for _, a := range p.Platforms {
				if len(a.URLs) < 2 {
					t.Fatalf("%s: the case has no mirror: %q", p.Name, a.URLs)
				}
				want := "urls = [\n"
				for _, u := range a.URLs {
					want += "        \"" + u + "\",\n"
				}
				found := false
				for name, b := range tree {
					if strings.HasPrefix(name, "repos/") && strings.Contains(string(b), want) {
						found = true
						if !strings.Contains(string(b), "\ncuda_archive(\n") || !strings.Contains(string(b), `load("//rules:cuda.bzl", "cuda_archive")`) {
							t.Errorf("%s: urls not given to cuda_archive:\n%s", name, b)
						}
					}
				}
				if !found {
					t.Errorf("%s %s: no package lists every source %q", p.Name, a.Key, a.URLs)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no archive checked")
	}
	if !strings.Contains(string(tree["rules/cuda.bzl"]), `read_config("cuda", "url_index", "0")`) {
		t.Error("rules/cuda.bzl: cuda_archive does not read [cuda] url_index")
	}
}
