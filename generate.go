package cudapkgs

import (
	"errors"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

// Format is what Generate writes.
type Format string

const (
	Bazel Format = "bazel" // a Bazel repository: the hub and its archives
	Buck2 Format = "buck2" // a Buck2 cell of the same shape
)

// ErrLocalBuck2 is an installed CUDA asked of the Buck2 emitter, which
// cannot serve one yet: it comes as the local_cuda option's
// *config.OptionError.
var ErrLocalBuck2 = errors.New("not supported with the buck2 format yet (see docs/buck2.md)")

// Generate emits the sets as a tree of files named name in the workspace.
// The report says what an installed CUDA served (nil without one).
func (r *Run) Generate(sets []*pkgset.Set, format Format, name string) (buildfile.Tree, *LocalReport, error) {
	if format == Buck2 {
		if r.Config.LocalCUDA() != "" {
			err := config.Errorf("local_cuda", "%w", ErrLocalBuck2)
			r.merged.Blame(err)
			return nil, nil, r.blame(err)
		}
		tree, err := buck2.Generate(r.Config, sets, buck2.Options{Name: name, Toolchain: r.Toolkit.Toolchain})
		return tree, nil, err
	}
	local, rep, err := r.LocalInstall(sets)
	if err != nil {
		return nil, nil, err
	}
	// The module extension reads an install at Bazel time with the same
	// knowledge generation uses for a local CUDA.
	tree, err := bazel.Generate(r.Config, sets, bazel.Options{Name: name, Toolchain: r.Toolkit.Toolchain, Local: local,
		LocalProduct: r.Toolkit.Product, LocalHints: r.Toolkit.LocalHints, LocalIdentify: r.Toolkit.LocalIdentify})
	return tree, rep, err
}
