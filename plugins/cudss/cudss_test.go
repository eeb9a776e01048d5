package cudss

import (
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
)

// fx builds cuDSS batches beside the toolkit's packages, which its edges name.
var fx = fixuptest.New(redist.New(), New())

// As defaults (which no CUDA version of ../shared gives cuDSS below its
// floor), the capabilities below the floor narrow what cuDSS is judged
// against instead of ruling it out.
func TestCapabilityFloorDefaults(t *testing.T) {
	b := fx.Batch(t, Product, "12.4.1", []string{"linux-x86_64", "linux-sbsa"}, "5.2", "6.1")
	b.Config.DefaultCapabilityTargets = []string{"linux-x86_64"}
	res := fixuptest.Fix(t, New(), b)
	if pr := res["libcudss"].Platforms["linux-x86_64"]; len(pr.Unusable) != 0 || strings.Join(pr.Judged, ",") != "6.1" {
		t.Errorf("defaults 5.2, 6.1: unusable %q, judged against %q, want usable, judged against 6.1", pr.Unusable, pr.Judged)
	}
	if pr := res["libcudss"].Platforms["linux-sbsa"]; len(pr.Unusable) != 1 || len(pr.Judged) != 0 {
		t.Errorf("the user's 5.2, 6.1: unusable %q, judged against %q, want 5.2's reason", pr.Unusable, pr.Judged)
	}
}

// TestEveryManifestPackageKnown: no package of the manifests in ../shared
// is left to the generic layout.
func TestEveryManifestPackageKnown(t *testing.T) {
	fixuptest.EveryPackageKnown(t, Product, Declaration().Knows)
}
