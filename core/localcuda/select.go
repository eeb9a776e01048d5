package localcuda

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Choice is what Select chooses from: the package set of the install's CUDA
// release, the product whose packages are the toolkit's components, the
// install's platform, the components asked for (none: every complete one)
// and those that must be there (the toolchain's compiler and runtime when
// none are asked for).
type Choice struct {
	Set      *pkgset.Set
	Product  string
	Target   platform.Platform
	Explicit []string
	Required []string
}

// Selection is what of the release an install serves.
type Selection struct {
	// Archives maps the sha256 of each archive the install replaces to the
	// install's file for each of the archive's paths; "|system" follows a
	// folder the install shares with other software.
	Archives map[string]map[string]string
	// Used are the components taken from the install ("<name> <version>"),
	// Skipped those not complete there, downloaded instead; both in the
	// set's order.
	Used, Skipped []string
}

// MissingError is a component that must come from the install and does not
// (rules/local.bzl says the same at Bazel time).
type MissingError struct {
	Component string
	Version   version.Version
	Problems  []string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("component %s %s is missing: %s", e.Component, e.Version, strings.Join(e.Problems, "; "))
}

// UnknownComponentError is a component asked for that the release does not
// have.
type UnknownComponentError struct {
	Component string
	Release   version.Version
}

func (e *UnknownComponentError) Error() string {
	return fmt.Sprintf("%s is not a component of CUDA %s", e.Component, e.Release)
}

// essential says whether a component cannot stand in for its archive
// without a file of this kind: what its main target and the toolchain use.
// A missing static library, stub or data file only leaves the target that
// names it unusable.
func essential(kind file.Kind) bool {
	return kind == file.Headers || kind == file.SharedLib || kind == file.Binary
}

// Select maps, for every component of the choice's product on its platform,
// each of the archive's paths to the install's file. A component with
// evidence of its own in the install (a file that is its alone, or a version
// the install states; any asked-for component) is used, and so,
// transitively, is every complete one a used component depends on (the
// runtime's headers include a header-only library's, and in Debian's
// /usr/include, a shared folder, no file tells that library apart), so that
// an install's components never depend on downloaded ones it has. A required component
// that is not used is a *MissingError; an asked-for one the release does
// not have an *UnknownComponentError.
func Select(in *Install, c Choice) (*Selection, error) {
	type candidate struct {
		pkg      *pkgset.Package
		sha256   string
		files    map[string]string
		problems []string
		evidence bool
	}
	var order []string
	cands := map[string]*candidate{}
	known := map[string]bool{}
	for _, pkg := range c.Set.Packages {
		if pkg.Product != c.Product || pkg.Name != pkg.Manifest {
			continue
		}
		known[pkg.Name] = true
		if len(c.Explicit) > 0 && !slices.Contains(c.Explicit, pkg.Name) {
			continue
		}
		a, ok := pkg.Platforms[c.Target.Name()]
		if !ok {
			continue
		}
		files, problems, evidence := files(in, pkg, c.Target)
		if len(files) == 0 && len(problems) == 0 {
			problems = []string{"it has no files on " + c.Target.Name()}
		}
		cands[pkg.Name] = &candidate{pkg: pkg, sha256: a.SHA256, files: files, problems: problems, evidence: evidence || len(c.Explicit) > 0}
		order = append(order, pkg.Name)
	}
	use := map[string]bool{}
	var queue []string
	for _, n := range order {
		if cd := cands[n]; len(cd.problems) == 0 && cd.evidence {
			use[n] = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		cd := cands[queue[0]]
		queue = queue[1:]
		for _, d := range cd.pkg.Deps {
			dc, ok := cands[d.Name]
			if !ok || use[d.Name] || len(dc.problems) > 0 || (len(d.Platforms) > 0 && !slices.Contains(d.Platforms, c.Target.Name())) {
				continue
			}
			use[d.Name] = true
			queue = append(queue, d.Name)
		}
	}
	sel := &Selection{Archives: map[string]map[string]string{}}
	for _, n := range order {
		cd := cands[n]
		if use[n] {
			sel.Archives[cd.sha256] = cd.files
			sel.Used = append(sel.Used, n+" "+cd.pkg.Version.String())
			continue
		}
		if slices.Contains(c.Required, n) {
			problems := cd.problems
			if len(problems) == 0 {
				problems = []string{"nothing of it is in the install but folders every component shares, and the install states no version of it"}
			}
			return nil, &MissingError{Component: n, Version: cd.pkg.Version, Problems: problems}
		}
		sel.Skipped = append(sel.Skipped, n)
	}
	for _, e := range c.Explicit {
		if !known[e] {
			return nil, &UnknownComponentError{Component: e, Release: c.Set.CUDA}
		}
	}
	return sel, nil
}

// files maps each of a package's archive paths on target to the install's
// file ("|system" after a folder shared with other software), says what is
// missing or of another version, and whether there is evidence of the
// package in the install: a file of its own (not a folder every component
// shares) or a version the install states.
func files(in *Install, pkg *pkgset.Package, target platform.Platform) (map[string]string, []string, bool) {
	var problems []string
	v, evidence := in.Components[pkg.Name]
	if evidence && !v.Equal(pkg.Version) {
		problems = append(problems, fmt.Sprintf("the install has version %s (%s), the release %s", v, in.From[pkg.Name], pkg.Version))
	}
	out := map[string]string{}
	for _, f := range pkg.Files[target.Name()] {
		m, ok := in.Find(pkg.Name, f.Path)
		switch {
		case !ok && essential(f.Kind):
			problems = append(problems, f.Path+" not found")
		case !ok:
			// Only the target that names it is left without it.
		case m.Dir && m.System:
			out[f.Path] = m.Path + "|system"
		default:
			out[f.Path] = m.Path
			evidence = evidence || !(m.Dir && (m.Merged || m.System))
		}
	}
	return out, problems, evidence
}
