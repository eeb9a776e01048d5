package bazel

import (
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

// Name is the format's name, what --format takes.
const Name = "bazel"

// Format declares the Bazel output for the composition root's list of
// formats. It writes every fact an archive carries, and serves an installed
// CUDA both at generation and from the module extension at Bazel time.
func Format() emit.Format {
	return emit.Format{
		Name:  Name,
		Doc:   "a Bazel repository",
		Local: true,
		Generate: func(cfg *config.Config, sets []*pkgset.Set, opts emit.Options) (buildfile.Tree, error) {
			return Generate(cfg, sets, opts)
		},
		Lint: Lint,
	}
}
