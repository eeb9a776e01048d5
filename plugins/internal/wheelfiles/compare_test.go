package wheelfiles

import (
	"slices"
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// TestCompare: what a plugin claims for a wheel's packages must be in the
// wheel, data included, and every file of the wheel must be claimed by a
// package of its release (or allowed). The nvcc cases are issue 21: bin/crt
// claimed where the wheel has none, and link.stub in the wheel where the
// tables did not claim bin/crt.
func TestCompare(t *testing.T) {
	nvcc := Listing{Wheel: "nvidia-cuda-nvcc", Version: "13.0.88", Arch: "x86_64", Release: "13.0.1"}
	crt := sdk.File{Path: "bin/crt", Kind: sdk.Data, Role: sdk.Exec}
	nvccBin := sdk.File{Path: "bin/nvcc", Kind: sdk.Binary, Role: sdk.Exec}
	include := sdk.File{Path: "include", Kind: sdk.Headers, Role: sdk.Target}
	cudart := sdk.File{Path: "lib/libcudart.so.13", SONAME: "libcudart.so.13", Kind: sdk.SharedLib, Role: sdk.Target}
	for _, tc := range []struct {
		name  string
		files []string
		own   []sdk.File
		other []sdk.File // the other packages of the release
		want  []string
	}{
		{"data present", []string{"bin/nvcc", "bin/crt/link.stub"}, []sdk.File{nvccBin, crt}, nil, nil},
		{"data claimed, wheel lacks it", []string{"bin/nvcc"}, []sdk.File{nvccBin, crt}, nil,
			[]string{"nvidia-cuda-nvcc==13.0.88 (x86_64): the plugin names data bin/crt, which the wheel lacks"}},
		{"wheel file unclaimed", []string{"bin/nvcc", "bin/crt/link.stub", "bin/crt/prelink.stub"}, []sdk.File{nvccBin}, nil,
			[]string{
				"nvidia-cuda-nvcc==13.0.88 (x86_64): the wheel has bin/crt/link.stub, which no package claims",
				"nvidia-cuda-nvcc==13.0.88 (x86_64): the wheel has bin/crt/prelink.stub, which no package claims",
			}},
		{"claimed by another package of the release", []string{"bin/nvcc", "include/crt/host_config.h"}, []sdk.File{nvccBin}, []sdk.File{include}, nil},
		{"tool claimed, wheel lacks it", []string{"bin/crt/link.stub"}, []sdk.File{nvccBin, crt}, nil,
			[]string{"nvidia-cuda-nvcc==13.0.88 (x86_64): the plugin names binary bin/nvcc, which the wheel lacks"}},
		{"shared library unnamed", []string{"bin/nvcc", "lib/libcudart.so.13"}, []sdk.File{nvccBin}, nil,
			[]string{"nvidia-cuda-nvcc==13.0.88 (x86_64): the wheel has shared library lib/libcudart.so.13, which no package names"}},
		{"shared library named", []string{"bin/nvcc", "lib/libcudart.so.13"}, []sdk.File{nvccBin}, []sdk.File{cudart}, nil},
		{"packaging records allowed", []string{"bin/nvcc", ".metadata/.sizes.txt"}, []sdk.File{nvccBin}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := nvcc
			l.Files = tc.files
			got := Compare(l, tc.own, append(slices.Clone(tc.own), tc.other...), Allowed)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Compare:\n got  %q\n want %q", got, tc.want)
			}
		})
	}
}

// TestWheelBatch: a release without a manifest is the batch of its listed
// wheels, at their versions, for the wheels' platform.
func TestWheelBatch(t *testing.T) {
	ls := []Listing{
		{Product: "cuda", Release: "13.0.1", Also: []string{"13.0.2"}, Packages: []string{"cuda_nvcc"}, Arch: "x86_64", Wheel: "nvidia-cuda-nvcc", Version: "13.0.88"},
		{Product: "cuda", Release: "13.0.2", Packages: []string{"cuda_cudart"}, Arch: "x86_64", Wheel: "nvidia-cuda-runtime", Version: "13.0.96"},
		{Product: "cuda", Release: "13.0.2", Packages: []string{"cuda_cudart"}, Arch: "aarch64", Wheel: "nvidia-cuda-runtime", Version: "13.0.96"},
		{Product: "cuda", Release: "13.0.1", Packages: []string{"cuda_cudart"}, Arch: "x86_64", Wheel: "nvidia-cuda-runtime", Version: "13.0.88"},
		{Product: "cuda", Release: "13.1.0", Packages: []string{"cuda_cccl"}, Arch: "x86_64", Wheel: "nvidia-cuda-cccl", Version: "13.1.78.post1"},
	}
	b := WheelBatch(ls, "cuda", "13.0.2", "13.0.2", "x86_64")
	var got []string
	for _, p := range b.Packages {
		got = append(got, p.Manifest+" "+p.Release+" "+p.Version+" "+p.Archives[0].Platform)
	}
	want := []string{"cuda_nvcc 13.0.2 13.0.88 linux-x86_64", "cuda_cudart 13.0.2 13.0.96 linux-x86_64"}
	if b.CUDA != "13.0.2" || !slices.Equal(got, want) || !slices.Equal(b.Config.Targets, []string{"linux-x86_64"}) || len(b.SetPackages) != 2 {
		t.Errorf("WheelBatch(13.0.2): CUDA %s targets %v packages %q, want %q", b.CUDA, b.Config.Targets, got, want)
	}
	if b := WheelBatch(ls, "cuda", "13.1.0", "13.1.0", "x86_64"); len(b.Packages) != 1 || b.Packages[0].Version != "13.1.78" {
		t.Errorf("WheelBatch(13.1.0): %+v, want cuda_cccl 13.1.78 (the .post1 rebuild's component)", b.Packages)
	}
}

func TestSameVersion(t *testing.T) {
	for _, tc := range []struct {
		wheel, manifest string
		want            bool
	}{
		{"13.0.88", "13.0.88", true},
		{"12.4.127.post1", "12.4.127", true},
		{"2.3.1", "2.3.1.0", true},
		{"13.0.88", "13.0.96", false},
		{"13.0.8", "13.0.88", false},
	} {
		if got := SameVersion(tc.wheel, tc.manifest); got != tc.want {
			t.Errorf("SameVersion(%s, %s) = %v", tc.wheel, tc.manifest, got)
		}
	}
}
