package localcuda_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// TestSelect chooses, on a runfile install of CUDA 12.4.1, among a set's
// toolkit components: those with evidence are used, the complete ones they
// depend on too (cuda_cccl, only a shared include folder), incomplete ones
// are downloaded instead, and a required or asked-for one that is not there
// is a typed error.
func TestSelect(t *testing.T) {
	in, err := localcuda.Detect(tree(t, cudaHome("x86_64-linux", nil)), hints...)
	if err != nil {
		t.Fatal(err)
	}
	target, err := platform.Parse("linux-x86_64")
	if err != nil {
		t.Fatal(err)
	}
	pkg := func(name, ver string, files []pkgset.File, deps ...string) *pkgset.Package {
		p := &pkgset.Package{Name: name, Manifest: name, Product: "cuda", Version: version.MustParse(ver),
			Platforms: map[string]pkgset.Archive{"linux-x86_64": {SHA256: "sha-" + name}},
			Files:     map[string][]pkgset.File{"linux-x86_64": files}}
		for _, d := range deps {
			p.Deps = append(p.Deps, pkgset.Dep{Name: d})
		}
		return p
	}
	set := func(cudartVersion string) *pkgset.Set {
		return &pkgset.Set{CUDA: version.MustParse("12.4.1"), Packages: []*pkgset.Package{
			pkg("cuda_cccl", "12.4.127", []pkgset.File{{Path: "include", Kind: "headers"}}),
			pkg("cuda_cudart", cudartVersion, []pkgset.File{{Path: "include", Kind: "headers"}, {Path: "lib/libcudart.so.12", Kind: "shared_lib"}}, "cuda_cccl"),
			pkg("cuda_nvcc", "12.4.131", []pkgset.File{{Path: "bin/nvcc", Kind: "binary"}, {Path: "nvvm/libdevice", Kind: "data"}}),
			pkg("libcublas", "12.4.5.8", []pkgset.File{{Path: "include", Kind: "headers"}, {Path: "lib/libcublas.so.12", Kind: "shared_lib"}}),
			{Name: "cudnn", Manifest: "cudnn", Product: "cudnn"}, // another product: never the install's
		}}
	}
	required := []string{"cuda_nvcc", "cuda_cudart"}

	sel, err := localcuda.Select(in, localcuda.Choice{Set: set("12.4.127"), Product: "cuda", Target: target, Required: required})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"cuda_cccl 12.4.127", "cuda_cudart 12.4.127", "cuda_nvcc 12.4.131"}, sel.Used); d != "" {
		t.Errorf("used (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"libcublas"}, sel.Skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	if got := sel.Archives["sha-cuda_nvcc"]["bin/nvcc"]; !strings.HasSuffix(got, "/bin/nvcc") {
		t.Errorf("cuda_nvcc's bin/nvcc is %q", got)
	}
	if _, ok := sel.Archives["sha-libcublas"]; ok {
		t.Error("libcublas is taken from an install that lacks it")
	}

	for _, tc := range []struct {
		name     string
		choice   localcuda.Choice
		missing  string // the component of the *MissingError, or
		unknown  string // of the *UnknownComponentError
		problems string
	}{
		{"a required component of another version", localcuda.Choice{Set: set("12.4.99"), Product: "cuda", Target: target, Required: required},
			"cuda_cudart", "", "the install has version 12.4.127"},
		{"an asked-for component the install lacks", localcuda.Choice{Set: set("12.4.127"), Product: "cuda", Target: target,
			Explicit: []string{"libcublas"}, Required: []string{"libcublas"}}, "libcublas", "", "lib/libcublas.so.12 not found"},
		{"an asked-for component the release lacks", localcuda.Choice{Set: set("12.4.127"), Product: "cuda", Target: target,
			Explicit: []string{"cuda_nvcc", "cuda_nope"}, Required: []string{"cuda_nvcc", "cuda_nope"}}, "", "cuda_nope", "not a component of CUDA 12.4.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := localcuda.Select(in, tc.choice)
			var miss *localcuda.MissingError
			var unk *localcuda.UnknownComponentError
			switch {
			case tc.missing != "" && (!errors.As(err, &miss) || miss.Component != tc.missing):
				t.Fatalf("got %v, want a MissingError for %s", err, tc.missing)
			case tc.unknown != "" && (!errors.As(err, &unk) || unk.Component != tc.unknown):
				t.Fatalf("got %v, want an UnknownComponentError for %s", err, tc.unknown)
			}
			if !strings.Contains(err.Error(), tc.problems) {
				t.Errorf("%v does not say %q", err, tc.problems)
			}
		})
	}
}
