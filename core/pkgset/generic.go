package pkgset

import (
	"fmt"
	"maps"
	"slices"

	"github.com/cudapkgs/cudapkgs/core/file"
)

// The conventional layout of a redist archive, which a package no plugin
// knows is served from. Headers are declared as a folder; the emitters add
// what cannot be named before the archive is unpacked: every shared library
// matching GenericLibGlobs, and everything under GenericBin as tools.
const (
	GenericInclude = "include"
	GenericBin     = "bin"
)

// GenericLibGlobs match the shared libraries of an archive's conventional
// layout (versioned names included: libfoo.so.1.2).
func GenericLibGlobs() []string {
	return []string{"lib/*.so", "lib/*.so.*", "lib64/*.so", "lib64/*.so.*"}
}

// MarkGeneric serves pkg on plat from the archive's conventional layout,
// because no plugin knows it (a package NVIDIA added after the plugin was
// written, or a user's product without overrides), and records a warning on
// the set. It is never silently an empty library or "unusable".
func MarkGeneric(s *Set, pkg *Package, plat string) {
	if pkg.Generic == nil {
		pkg.Generic = map[string]bool{}
	}
	pkg.Generic[plat] = true
	if pkg.Files == nil {
		pkg.Files = map[string][]File{}
	}
	pkg.Files[plat] = []File{{Path: GenericInclude, Kind: file.Headers, Role: file.Target}}
	if pkg.Role == "" {
		pkg.Role = file.Target
	}
	w := fmt.Sprintf("CUDA %s: %s %s (product %s) is known to no plugin: served from the archive's conventional layout "+
		"(headers from %s/, shared libraries from lib/, tools from %s/); a newer cudapkgs may know it", s.CUDA, pkg.Manifest, pkg.Version, pkg.Product, GenericInclude, GenericBin)
	if !slices.Contains(s.Warnings, w) {
		s.Warnings = append(s.Warnings, w)
	}
}

// GenericWhereEmpty marks generic every package of the given products (a
// user's own, which no plugin fixes) that has an archive on a platform and
// no files there once the overrides ran: without it, it would be an empty
// library.
//
// An override usually names the default (libnccl), not its versioned names
// (libnccl_2_21): where another package of the set has files for the same
// archive, those are the archive's files, and they are used instead.
func GenericWhereEmpty(s *Set, products []string) {
	type filed struct {
		files []File
		role  file.Role
	}
	known := map[string]filed{} // archive sha256 -> a package's files for it
	for _, p := range s.Packages {
		for _, plat := range slices.Sorted(maps.Keys(p.Platforms)) {
			a := p.Platforms[plat]
			if fs := p.Files[plat]; len(fs) > 0 && known[a.SHA256].files == nil {
				known[a.SHA256] = filed{fs, p.Role}
			}
		}
	}
	for _, p := range s.Packages {
		if !slices.Contains(products, p.Product) {
			continue
		}
		for _, plat := range slices.Sorted(maps.Keys(p.Platforms)) {
			if len(p.Unavailable[plat]) > 0 || len(p.Files[plat]) > 0 {
				continue
			}
			if k := known[p.Platforms[plat].SHA256]; k.files != nil {
				if p.Files == nil {
					p.Files = map[string][]File{}
				}
				p.Files[plat] = k.files
				if p.Role == "" {
					p.Role = k.role
				}
				continue
			}
			MarkGeneric(s, p, plat)
		}
	}
}
