// Package gpucap reads the GPU capabilities a batch names, for the built-in
// plugins, from the project's GPU table.
package gpucap

import (
	"fmt"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Lookup reads a capability as the batch names it ("8.0", "9.0a") and
// returns its major.minor and architecture name. Other spellings (sm_90) and
// unknown capabilities are not a batch's, and return false.
func Lookup(name string) (version.Version, string, bool) {
	if strings.HasPrefix(name, "sm_") || strings.HasPrefix(name, "compute_") {
		return version.Version{}, "", false
	}
	c, err := gpu.Lookup(name)
	if err != nil {
		return version.Version{}, "", false
	}
	return version.New(c.Major, c.Minor), c.Arch, true
}

// Below names, for a reason, the capabilities of caps (as a batch names
// them) older than min: "6.0 (Pascal) is selected", "6.0 (Pascal) and 7.0
// (Volta) are selected", the first three and a count past three; "" when
// none is. One sentence per floor, not one per capability: a reason says
// the first cause once.
func Below(caps []string, min version.Version) string {
	var below []string
	for _, c := range caps {
		if cv, arch, ok := Lookup(c); ok && cv.Less(min) {
			below = append(below, c+" ("+arch+")")
		}
	}
	switch n := len(below); {
	case n == 0:
		return ""
	case n == 1:
		return below[0] + " is selected"
	case n <= 3:
		return strings.Join(below[:n-1], ", ") + " and " + below[n-1] + " are selected"
	default:
		return fmt.Sprintf("%s and %d more are selected", strings.Join(below[:3], ", "), n-3)
	}
}
