package fixup_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
)

// Sets are immutable once built: Apply returns new sets and changes neither
// the sets it is given nor a package another set shares with them (as the
// sets an override returns share its unchanged packages).
func TestApplyLeavesItsInput(t *testing.T) {
	cfg, sets := builtintest.Env().Sets(t, []string{"12.4.1"}, []string{"linux-x86_64", "linux-jetson"})
	before := sets[0].Clone()
	sharing := *sets[0]
	sharing.Packages = slices.Clone(sets[0].Packages)
	h := fixup.InProcess(fixup.Options{}, builtin.Fixers()...)
	out, err := h.Apply(context.Background(), cfg, sets)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sets[0], before) {
		t.Error("Apply changed the set it was given")
	}
	if !reflect.DeepEqual(sharing.Packages, before.Packages) {
		t.Error("Apply changed a package another set shares")
	}
	if len(out) != 1 || out[0] == sets[0] {
		t.Fatalf("Apply returned %d sets, the first the one it was given: %t", len(out), len(out) > 0 && out[0] == sets[0])
	}
	filled := 0
	for i, p := range out[0].Packages {
		if len(p.Files) > 0 {
			filled++
		}
		if p == sets[0].Packages[i] {
			t.Errorf("package %s is the input's, not a copy", p.Name)
		}
	}
	if filled < len(out[0].Packages)/2 {
		t.Errorf("only %d of %d packages have files after Apply", filled, len(out[0].Packages))
	}
	// The same input gives the same answer: nothing of the first call stayed
	// behind in it.
	again, err := h.Apply(context.Background(), cfg, sets)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, out) {
		t.Error("a second Apply of the same sets gave other sets")
	}
}
