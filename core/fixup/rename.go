package fixup

import (
	"fmt"

	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// rename is a plugin's sdk.Rename, parsed.
type rename struct {
	pkg, replaces string
	since         version.Version
}

// renames are every rename the plugins in use declared.
type renames []rename

// parseRenames checks a plugin's declared renames: names of packages, and a
// version to start from. A plugin that lies here is refused at Describe.
func parseRenames(d sdk.Description) (renames, error) {
	var out renames
	for _, r := range d.Renames {
		if r.Package == "" || r.Replaces == "" || r.Package == r.Replaces {
			return nil, fmt.Errorf("rename %+v: expected a package that replaces another name", r)
		}
		if CheckPath(r.Package) != nil || CheckPath(r.Replaces) != nil {
			return nil, fmt.Errorf("rename %+v: expected plain package names", r)
		}
		v, err := version.Parse(r.Since)
		if err != nil {
			return nil, fmt.Errorf("rename of %s to %s: since: %w", r.Replaces, r.Package, err)
		}
		out = append(out, rename{pkg: r.Package, replaces: r.Replaces, since: v})
	}
	return out, nil
}

// successor is the package that replaces manifest name old in the CUDA cuda
// set, if a rename says so.
func (rs renames) successor(old string, cuda version.Version) (string, bool) {
	for _, r := range rs {
		if r.replaces == old && !cuda.Less(r.since) {
			return r.pkg, true
		}
	}
	return "", false
}

// alias gives a set, for every rename that holds in it, the old name as an
// alias of the new package, where the set has the new and not the old.
func (rs renames) alias(s *pkgset.Set) {
	for _, r := range rs {
		if s.CUDA.Less(r.since) {
			continue
		}
		_, hasNew := s.Package(r.pkg)
		_, hasOld := s.Package(r.replaces)
		if !hasNew || hasOld {
			continue
		}
		if s.Aliases == nil {
			s.Aliases = map[string]string{}
		}
		s.Aliases[r.replaces] = r.pkg
	}
}
