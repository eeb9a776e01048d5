package builtin_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// TestDeclaredFacts: each declared product's plugin describes itself under
// the product's name with NVIDIA's base and path and the platforms it
// serves, so that the host says "not supported" for the others.
func TestDeclaredFacts(t *testing.T) {
	linux := []string{"linux-x86_64", "linux-sbsa", "linux-jetson"}
	withPPC := append(linux[:3:3], "linux-ppc64le")
	for _, want := range []sdk.ProductFacts{
		{Product: "cudss", Base: sdk.NVIDIABase, Path: "compute/cudss/redist", Platforms: linux,
			Wheels: []sdk.WheelProject{{Project: "nvidia-cudss-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "libcudss", Prefix: "nvidia/cu{major}"}}},
		{Product: "cusparselt", Base: sdk.NVIDIABase, Path: "compute/cusparselt/redist", Platforms: linux,
			Wheels: []sdk.WheelProject{
				{Project: "nvidia-cusparselt-cu12", CUDAMajors: []string{"12"}, Package: "libcusparse_lt", Prefix: "nvidia/cusparselt"},
				{Project: "nvidia-cusparselt-cu13", CUDAMajors: []string{"13"}, Package: "libcusparse_lt", Prefix: "nvidia/cu13"},
			}},
		{Product: "nccl", Platforms: []string{"linux-x86_64", "linux-sbsa"},
			Wheels: []sdk.WheelProject{{Project: "nvidia-nccl-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "nccl", Prefix: "nvidia/nccl"}}},
		{Product: "cudnn", Base: sdk.NVIDIABase, Path: "compute/cudnn/redist", Platforms: withPPC},
		{Product: "cutensor", Base: sdk.NVIDIABase, Path: "compute/cutensor/redist", Platforms: withPPC},
		{Product: "tensorrt", Unlisted: true, Base: "https://developer.nvidia.com/downloads", Path: "compute/machine-learning",
			StripPrefix: "TensorRT-{version}", Platforms: linux},
	} {
		d := builtin.Plugins()[want.Product]().Describe()
		if d.Name != want.Product || !cmp.Equal(d.Products, []string{want.Product}) || len(d.Facts) != 1 {
			t.Errorf("%s: Describe() = %+v", want.Product, d)
			continue
		}
		got := d.Facts[0]
		got.FlatCUDA = nil // cuTENSOR's, held to its folders by its own test
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: facts (-want +got):\n%s", want.Product, diff)
		}
	}
}
