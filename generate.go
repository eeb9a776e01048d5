package cudapkgs

import (
	"errors"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

// Format is what Generate writes (Job.Format).
type Format string

const (
	Bazel Format = "bazel" // a Bazel repository: the hub and its archives
	Buck2 Format = "buck2" // a Buck2 cell of the same shape
)

// ErrLocalBuck2 is an installed CUDA asked of the Buck2 emitter, which
// cannot serve one yet.
var ErrLocalBuck2 = errors.New("--local-cuda: not supported with --format buck2 yet (see docs/buck2.md)")

// emit writes the sets, as Sets returned them, as a tree of files named
// name in the workspace. The report says what an installed CUDA served (nil
// without one).
func (r *Run) emit(sets []*pkgset.Set, format Format, name string) (buildfile.Tree, *LocalReport, error) {
	if format == Buck2 {
		if r.Config.LocalCUDA() != "" {
			return nil, nil, &ConfigError{ErrLocalBuck2}
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
