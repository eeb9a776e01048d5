package fixup

import (
	"fmt"
	"slices"

	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// rename is a plugin's sdk.Rename, parsed.
type rename struct {
	pkg, replaces string
	since         version.Version
	plugin        string   // who declared it, for messages
	products      []string // the declaring plugin's: the new package must be one of theirs
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
		if file.CheckPath(r.Package) != nil || file.CheckPath(r.Replaces) != nil {
			return nil, fmt.Errorf("rename %+v: expected plain package names", r)
		}
		v, err := version.Parse(r.Since)
		if err != nil {
			return nil, fmt.Errorf("rename of %s to %s: since: %w", r.Replaces, r.Package, err)
		}
		out = append(out, rename{pkg: r.Package, replaces: r.Replaces, since: v, plugin: d.Name, products: d.Products})
	}
	return out, nil
}

// check refuses renames that would make an old name ambiguous: two renames
// of one name (from one plugin or two). Edges and aliases then always agree.
func (rs renames) check() error {
	seen := map[string]rename{}
	for _, r := range rs {
		if prev, dup := seen[r.replaces]; dup {
			return fmt.Errorf("plugins %s and %s both rename %s (to %s since %s, and to %s since %s): expected one rename of a name",
				prev.plugin, r.plugin, r.replaces, prev.pkg, prev.since, r.pkg, r.since)
		}
		seen[r.replaces] = r
	}
	return nil
}

// successorIn is the package that replaces manifest name old in the batch's
// set (CUDA cuda), if a rename says so and the new package is in the set and
// of the declaring plugin's products, as alias requires.
func (rs renames) successorIn(b *sdk.Batch, old string, cuda version.Version) (string, bool) {
	for _, r := range rs {
		if r.replaces != old || cuda.Less(r.since) {
			continue
		}
		for _, sp := range b.SetPackages {
			if sp.Manifest == r.pkg && slices.Contains(r.products, sp.Product) {
				return r.pkg, true
			}
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
		np, hasNew := s.Package(r.pkg)
		_, hasOld := s.Package(r.replaces)
		// A plugin renames its own products' packages only.
		if !hasNew || hasOld || !slices.Contains(r.products, np.Product) {
			continue
		}
		if s.Aliases == nil {
			s.Aliases = map[string]string{}
		}
		s.Aliases[r.replaces] = r.pkg
	}
}
