package fixup

import (
	"slices"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// clang's header lists follow the CUDA version as nvcc's do: the last entry
// at or below it.
func TestConvertToolchainClangHeaders(t *testing.T) {
	tc, err := convertToolchain(sdk.Toolchain{
		Compiler: "cc", Runtime: "rt",
		Headers: []sdk.ToolchainHeaders{{Packages: []string{"rt"}}},
		ClangHeaders: []sdk.ToolchainHeaders{
			{Packages: []string{"rand", "old_cccl"}},
			{Since: "13.3", Packages: []string{"rand", "cccl"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for cuda, want := range map[string][]string{"12.4.1": {"rand", "old_cccl"}, "13.2.0": {"rand", "old_cccl"}, "13.3.0": {"rand", "cccl"}} {
		if got := tc.ClangHeaders(version.MustParse(cuda)); !slices.Equal(got, want) {
			t.Errorf("ClangHeaders(%s) = %v, want %v", cuda, got, want)
		}
	}
	if got := tc.Headers(version.MustParse("13.3.0")); !slices.Equal(got, []string{"rt"}) {
		t.Errorf("Headers(13.3.0) = %v", got)
	}
	if _, err := convertToolchain(sdk.Toolchain{Compiler: "cc", Runtime: "rt", Headers: []sdk.ToolchainHeaders{{Packages: []string{"rt"}}}, ClangHeaders: []sdk.ToolchainHeaders{{Since: "x.y"}}}); err == nil {
		t.Error("a bad since in the clang headers: no error")
	}
}
