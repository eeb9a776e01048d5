// Package pkgset builds the package sets: for every CUDA version, the
// packages of the toolkit release and of the release of each other product
// chosen for it, per target platform, with the archive that serves each
// platform or the reasons none does.
//
// The package knows no package or product by name. What differs between
// products (where archives live, which CUDA versions an unsplit archive
// serves, how archives unpack) comes in as Product values from outside the
// core.
//
// A set is not changed once a stage has returned it; later stages return
// new values. Mutation is allowed in exactly these places, each on values
// no one else holds yet: Build while it makes the sets; fixup.Host.Apply on
// the clones (Set.Clone) it makes of the sets it is given, where it folds
// in the plugins' answers and calls ChooseDefaults and MarkGeneric;
// starlark's ApplyOverrides, which returns new sets whose changed packages
// are changed copies (Package.Clone); and the composition root's Sets,
// which calls GenericWhereEmpty and prepends the warnings on the sets the
// overrides just returned, before it hands them out. Emitters, the report,
// queries and splicing only read.
package pkgset

import (
	"path"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pyindex"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Product describes one product's manifests to the core.
type Product struct {
	// Name is the product's folder in a manifests tree.
	Name string
	// Toolkit marks the product whose releases are the CUDA versions.
	Toolkit bool
	// Unlisted marks a product NVIDIA publishes no manifests for:
	// its manifests come from a folder or a product URL the user gives.
	Unlisted bool
	// Base and Path locate archives: Base + "/" + Path + "/" + relative_path.
	// Mirrors replace Base and keep Path.
	Base, Path string
	// FlatCUDA says which CUDA versions (prefixes such as "11" or "10.2") a
	// release serves when its archives are not split by cuda_variant. Nil
	// means such a release serves none, and the set says so.
	FlatCUDA func(release version.Version) []version.Version
	// NoCUDA marks a product that needs no CUDA at all (CPU libraries): a
	// release whose archives are not split by cuda_variant serves every
	// CUDA version, so each set has the same archives. FlatCUDA is then
	// unused.
	NoCUDA bool
	// StripPrefix names the top folder of an archive. Nil: the archive's
	// file name without its extension, as in NVIDIA's redist tree.
	StripPrefix func(pkg *manifest.Package, a manifest.Archive) string
	// Wheels are the Python package index projects `manifests fetch`
	// turns into the product's manifests, one per package and CUDA major.
	Wheels []pyindex.Project
}

// URLs returns the archive's URLs: each mirror in order, then the product's
// own base.
func (p Product) URLs(mirrors []string, rel string) []string {
	var out []string
	for _, m := range append(append([]string(nil), mirrors...), p.Base) {
		out = append(out, strings.TrimRight(m, "/")+"/"+p.MirrorPath(rel))
	}
	return out
}

// MirrorPath is the part of an archive's URL below a base (NVIDIA's or a
// mirror's): the product's path, then the manifest's relative path.
func (p Product) MirrorPath(rel string) string { return strings.Trim(p.Path, "/") + "/" + rel }

func (p Product) stripPrefix(pkg *manifest.Package, a manifest.Archive) string {
	if a.StripPrefix != "" {
		return a.StripPrefix
	}
	if p.StripPrefix != nil {
		return p.StripPrefix(pkg, a)
	}
	return TrimArchiveExt(path.Base(a.RelativePath))
}

// ArchiveType is the format of an archive whose file name does not say it to
// Bazel's or Buck2's downloader: a wheel (.whl) is a zip.
func ArchiveType(rel string) string {
	if strings.HasSuffix(rel, ".whl") {
		return "zip"
	}
	return ""
}

// TrimArchiveExt removes .tar.xz, .tar.gz, .tar.zst, .tar.bz2, .tgz, .zip
// or .whl: manifest.TrimArchiveExt, whose grammar checks that what is left of
// a relative_path's base name is a folder name.
func TrimArchiveExt(name string) string { return manifest.TrimArchiveExt(name) }

// Sources are the sources each product's manifests can come from, its
// default first: NVIDIA's where the product has a folder there, and a
// Python package index where it declares wheels (config.ParseSources).
func Sources(products []Product) map[string][]string {
	out := map[string][]string{}
	for _, p := range products {
		var s []string
		if p.Unlisted || p.Base != "" {
			s = append(s, config.SourceNVIDIA)
		}
		if len(p.Wheels) > 0 {
			s = append(s, config.SourceWheels)
		}
		out[p.Name] = s
	}
	return out
}

// Available is what a collection offers for these products, for
// config.Evaluate: the toolkit's name and every product's releases (a
// product the collection has no release of is listed with none, so a pin
// on it says so rather than calling it unknown).
func Available(coll *manifest.Collection, products []Product) config.Available {
	a := config.Available{Releases: map[string][]version.Version{}, Refused: map[string][]config.RefusedRelease{}}
	for _, r := range coll.Refused() {
		a.Refused[r.Product] = append(a.Refused[r.Product], config.RefusedRelease{Release: r.Release, Reason: r.Err.Error()})
	}
	for _, p := range products {
		if p.Toolkit {
			a.Toolkit = p.Name
		}
		a.Releases[p.Name] = nil
		for _, m := range coll.Releases(p.Name) {
			a.Releases[p.Name] = append(a.Releases[p.Name], m.Release)
		}
	}
	return a
}
