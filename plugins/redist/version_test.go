package redist

import (
	"fmt"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// ver is a dotted version ("12.4.5.8", "580.65.06"): the SDK's, as every
// plugin reads versions.
type ver = sdk.Version

func parseVer(s string) (ver, error) { return sdk.ParseVersion(s) }

// within reports whether v lies between since and until, both inclusive
// prefixes ("12.0" ≤ v, v ≤ "12" meaning any 12.x); empty bounds are open.
// The tables' bounds are code: one that is not a version panics.
func within(v ver, since, until string) bool {
	if since != "" && cmpPrefix(v, since) < 0 {
		return false
	}
	return until == "" || cmpPrefix(v, until) <= 0
}

// cmpPrefix compares v, cut to as many parts as prefix has, with prefix.
func cmpPrefix(v ver, prefix string) int {
	p, err := sdk.ParseVersion(prefix)
	if err != nil {
		panic(fmt.Sprintf("redist: bad version bound in the tables: %v", err))
	}
	return v.Truncate(p.Parts()).Compare(p)
}
