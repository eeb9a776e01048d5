package buck2

import (
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

// Name is the format's name, what --format takes.
const Name = "buck2"

// Format declares the Buck2 output for the composition root's list of
// formats. Unsupported is what docs/buck2.md's "Not yet" lists (generated
// from it by the root package's tests).
func Format() emit.Format {
	return emit.Format{
		Name: Name,
		Doc:  "a Buck2 cell",
		Generate: func(cfg *config.Config, sets []*pkgset.Set, opts emit.Options) (buildfile.Tree, error) {
			return Generate(cfg, sets, opts)
		},
		Lint: Lint,
		Unsupported: []emit.Gap{
			{Fact: emit.Merges, Reason: "the prelude's http_archive unpacks one archive into a package, so a package merged into another one's folder (a compiler's back end beside its driver, as CUDA 13 ships it) is not there"},
			{Fact: emit.Patches, Reason: "the prelude's http_archive has no step that edits an archive's files once fetched"},
			{Fact: emit.Generic, Reason: "an archive's files are sub-targets named before it is unpacked, so a package no plugin knows gets its headers but no glob of lib/ and bin/"},
		},
	}
}
