package redist

import (
	"context"
	"path"
	"slices"
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// TestWheels checks the tables against the file lists of NVIDIA's wheels of
// the same component versions (plugins/internal/wheelfiles, docs/wheels.md):
// a shared library, header folder, tool or data the tables name must be in
// the wheel, and every file of the wheel must be claimed by a package.
func TestWheels(t *testing.T) { wheelfiles.Check(t, fx, New(), Product) }

// TestLinkStub: nvcc -dlink compiles bin/crt/link.stub, so cuda_nvcc claims
// bin/crt at exactly the CUDA releases whose nvcc wheel has it: every CUDA
// 13 release but 13.0.0 (issue 21: it was claimed from 13.3 only, and
// relocatable device code failed with 13.0.1 to 13.2.2's nvcc).
func TestLinkStub(t *testing.T) {
	ls, err := wheelfiles.Load()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range ls {
		if l.Wheel != "nvidia-cuda-nvcc" {
			continue
		}
		has := slices.Contains(l.Files, "bin/crt/link.stub")
		for _, release := range l.Releases() {
			n++
			b := wheelfiles.WheelBatch(ls, Product, release, release, l.Arch)
			res, err := New().Fixup(context.Background(), b)
			if err != nil {
				t.Fatal(err)
			}
			claimed := false
			for _, p := range res.Packages {
				if p.Name != "cuda_nvcc" {
					continue
				}
				for _, f := range p.Platforms[l.Platform()].Files {
					claimed = claimed || (f.Kind == sdk.Data && path.Clean(f.Path) == "bin/crt")
				}
			}
			if claimed != has {
				t.Errorf("CUDA %s (%s): cuda_nvcc claims bin/crt: %v; the wheel has bin/crt/link.stub: %v", release, l.Key(), claimed, has)
			}
		}
	}
	if n < 20 {
		t.Errorf("%d nvcc wheel releases checked, want every CUDA 13 release", n)
	}
}
