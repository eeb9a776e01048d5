// Package gpucap reads the GPU capabilities a batch names, for the built-in
// plugins, from the project's GPU table.
package gpucap

import (
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
