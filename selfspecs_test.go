package cudapkgs_test

import (
	"testing"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
)

// The default built-ins run from this program's own image, not from its path
// looked up again (core/fixup's TestSelfReplacedMidRun shows what Self does).
func TestBuiltinSpecsAreSelf(t *testing.T) {
	specs, err := cudapkgs.BuiltinSpecs()
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != len(builtin.Names()) {
		t.Fatalf("%d specs for %d built-ins", len(specs), len(builtin.Names()))
	}
	for _, s := range specs {
		if !s.Self || !s.Builtin {
			t.Errorf("built-in %s: Self %v, Builtin %v; want both", s.Name, s.Self, s.Builtin)
		}
	}
}
