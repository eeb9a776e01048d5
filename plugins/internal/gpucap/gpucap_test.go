package gpucap

import (
	"fmt"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/version"
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

func TestBelow(t *testing.T) {
	for _, tt := range []struct {
		caps []string
		want string
	}{
		{nil, ""},
		{[]string{"7.5", "8.0"}, ""},
		{[]string{"6.0", "8.0"}, "6.0 (Pascal) is selected"},
		{[]string{"6.0", "7.0", "8.0"}, "6.0 (Pascal) and 7.0 (Volta) are selected"},
		{[]string{"5.0", "6.0", "6.1", "7.0", "7.2"}, "5.0 (Maxwell), 6.0 (Pascal), 6.1 (Pascal) and 2 more are selected"},
		{[]string{"sm_60", "6.0"}, "6.0 (Pascal) is selected"},
	} {
		if got := Below(tt.caps, version.MustParse("7.5")); got != tt.want {
			t.Errorf("Below(%q) = %q, want %q", tt.caps, got, tt.want)
		}
	}
}
