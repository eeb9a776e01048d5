package sdk

import (
	"fmt"
	"strings"
)

// Capability reads a capability as the batch names it ("8.0", "9.0a") and
// returns its major.minor and architecture name, from the table the host
// sends (Architectures). A capability the host does not know returns false.
func (c Config) Capability(name string) (Version, string, bool) {
	arch, ok := c.Architectures[name]
	if !ok {
		return Version{}, "", false
	}
	// The feature variants (9.0a, 10.0f) are their base's major.minor.
	v, err := ParseVersion(strings.TrimRight(name, "abcdefghijklmnopqrstuvwxyz"))
	if err != nil {
		return Version{}, "", false
	}
	return v.Truncate(2), arch, true
}

// Below names, for a reason, the capabilities of caps (as a batch names
// them) older than min: "6.0 (Pascal) is selected", "6.0 (Pascal) and 7.0
// (Volta) are selected", the first three and a count past three; "" when
// none is. One sentence per floor, not one per capability: a reason says
// the first cause once.
func (c Config) Below(caps []string, min Version) string {
	var below []string
	for _, name := range caps {
		if v, arch, ok := c.Capability(name); ok && v.Less(min) {
			below = append(below, name+" ("+arch+")")
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
