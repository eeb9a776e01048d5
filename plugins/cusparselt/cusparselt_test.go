package cusparselt

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
)

// fx builds cuSPARSELt batches with the toolkit, whose packages its edges
// (cudart, NVRTC, cuSPARSE's headers) name.
var fx = fixuptest.New(redist.New(), New())

// TestManifestPackages: every package of the manifests in ../shared is
// declared, none left to the generic layout.
func TestManifestPackages(t *testing.T) { fixuptest.EveryPackageKnown(t, Product, Declaration().Knows) }
