package pkgset

import (
	"maps"
	"slices"
)

// Clone is a copy of the set that shares nothing a stage may change: every
// package is cloned, as are the set's own maps and lists. A stage that
// completes sets (the fixup host) works on clones, so the sets it was given
// stay as they were.
func (s *Set) Clone() *Set {
	c := *s
	c.Releases = maps.Clone(s.Releases)
	c.NoRelease = maps.Clone(s.NoRelease)
	c.Aliases = maps.Clone(s.Aliases)
	c.Warnings = slices.Clone(s.Warnings)
	c.Packages = make([]*Package, len(s.Packages))
	for i, p := range s.Packages {
		c.Packages[i] = p.Clone()
	}
	return &c
}

// Clone is a copy of the package whose maps and lists are its own, so that
// changing the copy never reaches the package it was copied from.
func (p *Package) Clone() *Package {
	c := *p
	c.Platforms = maps.Clone(p.Platforms)
	c.Unavailable = cloneLists(p.Unavailable)
	c.Files = cloneLists(p.Files)
	c.Patches = cloneLists(p.Patches)
	c.Deps = slices.Clone(p.Deps)
	for i := range c.Deps {
		c.Deps[i].Platforms = slices.Clone(c.Deps[i].Platforms)
	}
	c.Served = maps.Clone(p.Served)
	c.Tried = cloneLists(p.Tried)
	c.Generic = maps.Clone(p.Generic)
	c.Judged = cloneLists(p.Judged)
	c.StaticLinkopts = slices.Clone(p.StaticLinkopts)
	return &c
}

// cloneLists copies a map of lists, lists included (nil stays nil).
func cloneLists[V any](m map[string][]V) map[string][]V {
	if m == nil {
		return nil
	}
	out := make(map[string][]V, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
