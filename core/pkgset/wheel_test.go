package pkgset_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// A wheel's archive is downloaded from the URL its manifest gives (mirrors
// with NVIDIA's layout do not hold it), unpacked as a zip, and stripped of
// the wheel's own prefix.
func TestWheelArchive(t *testing.T) {
	cuda, err := os.ReadFile(shared.Manifests(t) + "/cuda/redistrib_13.0.0.json")
	if err != nil {
		t.Fatal(err)
	}
	cm, err := manifest.Parse("cuda.json", "cuda", "13.0.0", cuda)
	if err != nil {
		t.Fatal(err)
	}
	sha := strings.Repeat("a", 64)
	url := "https://files.pythonhosted.org/packages/aa/bb/nvidia_nccl_cu13-2.28.3-py3-none-manylinux_2_18_x86_64.whl"
	wm, err := manifest.Parse("nccl.json", "nccl", "2.28.3", []byte(`{"nccl": {"version": "2.28.3", "linux-x86_64": {"cuda13": {
	  "relative_path": "nvidia-nccl-cu13/nvidia_nccl_cu13-2.28.3-py3-none-manylinux_2_18_x86_64.whl",
	  "url": "`+url+`", "sha256": "`+sha+`", "size": 12, "strip_prefix": "nvidia/nccl"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	coll, err := manifest.NewCollection([]*manifest.Manifest{cm, wm})
	if err != nil {
		t.Fatal(err)
	}
	products := []pkgset.Product{
		{Name: "cuda", Toolkit: true, Base: "https://developer.download.nvidia.com", Path: "compute/cuda/redist"},
		{Name: "nccl", Base: "https://pypi.org", Path: "simple"},
	}
	cfg, err := config.Evaluate(pkgset.Available(coll, products), config.Defaults{},
		config.Literal{From: "test", Options: config.Options{CUDA: []string{"13.0.0"}, Targets: []string{"linux-x86_64"}, Mirrors: []string{"https://m1.example/nv/"}}})
	if err != nil {
		t.Fatal(err)
	}
	sets, err := pkgset.Build(context.Background(), cfg, coll, products)
	if err != nil {
		t.Fatal(err)
	}
	got := pkg(t, one(t, sets), "nccl").Platforms["linux-x86_64"]
	want := pkgset.Archive{Key: "linux-x86_64", Variant: "cuda13", URLs: []string{url},
		RelativePath: "nvidia-nccl-cu13/nvidia_nccl_cu13-2.28.3-py3-none-manylinux_2_18_x86_64.whl",
		SHA256:       sha, Size: 12, StripPrefix: "nvidia/nccl", Type: "zip"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	if a := pkg(t, one(t, sets), "cuda_cudart").Platforms["linux-x86_64"]; a.Type != "" || len(a.URLs) != 2 {
		t.Errorf("an NVIDIA archive: type %q, urls %v", a.Type, a.URLs)
	}
}
