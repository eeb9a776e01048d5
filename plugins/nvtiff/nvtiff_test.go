package nvtiff

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// TestPerCUDAAndPlatform: on the real manifest, libnvtiff answers with its
// files and the cudart edge where an archive serves, and Windows is
// unusable; CUDA 12 and 13 alike (0.8.0 serves both).
func TestPerCUDAAndPlatform(t *testing.T) {
	for _, tt := range []struct {
		cuda    string
		targets []string
	}{
		{"12.9.0", []string{"linux-x86_64", "linux-sbsa", "linux-jetson", "windows-x86_64"}},
		{"13.0.0", []string{"linux-x86_64", "linux-sbsa", "windows-x86_64"}},
	} {
		t.Run(tt.cuda, func(t *testing.T) {
			b := fx.Batch(t, Product, tt.cuda, tt.targets)
			res := fixuptest.Fix(t, New(), b)
			r, ok := res["libnvtiff"]
			if !ok {
				t.Fatalf("no libnvtiff in %v", res)
			}
			if diff := cmp.Diff([]sdk.Dep{{Package: "cuda_cudart"}}, r.Deps); diff != "" {
				t.Errorf("deps (-want +got):\n%s", diff)
			}
			for _, tgt := range tt.targets {
				pr := r.Platforms[tgt]
				if tgt == "windows-x86_64" {
					if len(pr.Unusable) != 1 || len(pr.Files) != 0 {
						t.Errorf("%s: %+v, want unusable", tgt, pr)
					}
					continue
				}
				if diff := cmp.Diff(files(), pr.Files); diff != "" || len(pr.Unusable) > 0 {
					t.Errorf("%s: unusable %q, files (-want +got):\n%s", tgt, pr.Unusable, diff)
				}
			}
		})
	}
}

// TestOtherMajor: a release of another major is unusable with a reason, and
// an unknown package is served generically.
func TestOtherMajor(t *testing.T) {
	b := &sdk.Batch{CUDA: "13.0.0", Product: Product, Packages: []sdk.Package{
		{Name: "libnvtiff", Manifest: "libnvtiff", Product: Product, Release: "1.0.0", Version: "1.0.0.1",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64"}}},
		{Name: "libnvtiff_tools", Manifest: "libnvtiff_tools", Product: Product, Release: "0.8.0", Version: "0.8.0.1",
			Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64"}}},
	}}
	res := fixuptest.Fix(t, New(), b)
	if u := res["libnvtiff"].Platforms["linux-x86_64"].Unusable; len(u) != 1 {
		t.Errorf("nvTIFF 1.0: %q, want one reason", u)
	}
	if !res["libnvtiff_tools"].Platforms["linux-x86_64"].Generic {
		t.Errorf("unknown package: %+v, want generic", res["libnvtiff_tools"])
	}
}
