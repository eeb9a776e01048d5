package nccl

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/golden"
	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
	"github.com/cudapkgs/cudapkgs/plugins/sdk/sdktest"
)

// TestGolden holds the plugin's answers to the batches its wheels make
// (wheelfiles.Batches, kept in testdata): it runs without ../shared, which
// has no manifests of a wheel-only product.
func TestGolden(t *testing.T) {
	if golden.Update() {
		bs, err := wheelfiles.Batches(Product, "cuda_cudart")
		if err != nil {
			t.Fatal(err)
		}
		sdktest.WriteFixtures(t, "testdata", bs)
	}
	sdktest.Golden(t, New(), "testdata", golden.Update())
}
