// Package emit is the seam between the pipeline and its output formats. A
// format is a value, declared by its own package the way a go/analysis pass
// is: a name, a line of documentation, whether it can serve an installed
// CUDA, a pure Generate from the configuration and the package sets to a
// tree of files, a Lint, and the archive facts it does not write yet, each
// with its reason. The composition root lists the formats; nothing else
// names one.
//
// Facts are what an archive carries (core/archives.Archive and its files,
// by kind). Every format writes each of them or names it in Unsupported, so
// that one cannot quietly drop what another writes: the root package's
// parity test holds each format to that, from generated output.
package emit

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cudapkgs/cudapkgs/core/archives"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/splice"
)

// Format is one output format.
type Format struct {
	// Name is what --format takes: letters, digits and _.
	Name string
	// Doc is a short phrase for --format's help ("a Bazel repository").
	Doc string
	// Local says the format can serve an installed CUDA (Options.Local's
	// Install); the pipeline refuses one for a format that cannot.
	Local bool
	// Generate writes the tree of files for the sets (after the fixup
	// plugins). It is a pure function: the same input gives the same bytes.
	Generate func(cfg *config.Config, sets []*pkgset.Set, opts Options) (buildfile.Tree, error)
	// Lint checks a tree Generate wrote; nil when the format has no check.
	Lint func(buildfile.Tree) []string
	// Unsupported are the facts the format does not write yet, each once,
	// with why.
	Unsupported []Gap
}

// Gap is a fact a format does not write, and why.
type Gap struct {
	Fact   Fact
	Reason string // one line, for docs and messages
}

// Supports reports whether the format writes the fact.
func (f Format) Supports(fact Fact) bool {
	return !slices.ContainsFunc(f.Unsupported, func(g Gap) bool { return g.Fact == fact })
}

// Check refuses a declaration the pipeline could not use: a bad or missing
// name, no doc, no Generate, or an Unsupported list naming a fact twice,
// a fact that does not exist, or none without a reason.
func (f Format) Check() error {
	if f.Name == "" || !archives.LabelSafe(f.Name) {
		return fmt.Errorf("format %q: expected a name of letters, digits and _", f.Name)
	}
	var errs []error
	if f.Doc == "" {
		errs = append(errs, errors.New("no Doc"))
	}
	if f.Generate == nil {
		errs = append(errs, errors.New("no Generate"))
	}
	seen := map[Fact]bool{}
	for _, g := range f.Unsupported {
		switch {
		case !slices.Contains(Facts(), g.Fact):
			errs = append(errs, fmt.Errorf("unsupported fact %q is none of %v", g.Fact, Facts()))
		case seen[g.Fact]:
			errs = append(errs, fmt.Errorf("unsupported fact %q listed twice", g.Fact))
		case g.Reason == "":
			errs = append(errs, fmt.Errorf("unsupported fact %q has no reason", g.Fact))
		}
		seen[g.Fact] = true
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("format %s: %w", f.Name, err)
	}
	return nil
}

// Options are what every format takes besides the configuration and sets.
type Options struct {
	// Name is the output's name where the build tool refers to it: the Bazel
	// hub repository, the Buck2 cell. Default "cuda".
	Name string
	// Toolchain names the packages nvcc and the CUDA rules come from (the
	// toolkit plugin's Describe). Without a Compiler, no toolchain is
	// generated.
	Toolchain splice.Toolchain
	// Local is what an installed CUDA needs: the install generation read,
	// and the knowledge to read one again at build time.
	Local Local
}

// Local is everything about an installed CUDA a format may use. Only
// formats with Format.Local set read it.
type Local struct {
	// Install is the installed CUDA whose files replace some archives; nil
	// without one.
	Install *Install
	// Product is the toolkit product: the archives an install can stand in
	// for are its own (Linux platforms, manifest names). Empty: none.
	Product string
	// Hints and Identify are what generation passes to localcuda.Detect
	// and Install.Release (package knowledge, from the caller), for a
	// format that reads an install again at build time.
	Hints    []localcuda.Hint
	Identify []string
}

// Install is an installed CUDA as generation read it.
type Install struct {
	// Path is the install's root as the user gave it.
	Path string
	// Archives maps the sha256 of each archive the install replaces to the
	// install's file for each of the archive's paths; "|system" follows a
	// folder the install shares with other software.
	Archives map[string]map[string]string
}

// LocalError is an installed CUDA asked of a format that cannot serve one.
type LocalError struct{ Format string }

func (e *LocalError) Error() string {
	return fmt.Sprintf("not supported with the %s format yet (see docs/output-formats.md)", e.Format)
}
