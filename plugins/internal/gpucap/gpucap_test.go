package gpucap

import (
	"fmt"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/gpu"
)

func TestLookup(t *testing.T) {
	for _, c := range gpu.Capabilities() {
		v, arch, ok := Lookup(c.Name)
		if !ok || v.String() != fmt.Sprintf("%d.%d", c.Major, c.Minor) || arch != c.Arch {
			t.Errorf("Lookup(%q) = %v, %q, %v", c.Name, v, arch, ok)
		}
	}
	for _, bad := range []string{"sm_90", "compute_80", "4.2", "x"} {
		if _, _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) accepted", bad)
		}
	}
}
