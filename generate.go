package cudapkgs

import (
	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

// Format is the name of what Generate writes (Job.Format), one of Formats.
type Format string

const (
	Bazel Format = bazel.Name // a Bazel repository: the hub and its archives
	Buck2 Format = buck2.Name // a Buck2 cell of the same shape
)

// emit writes the sets, as Sets returned them, as a tree of files named
// name in the workspace. The report says what an installed CUDA served (nil
// without one).
func (r *Run) emit(sets []*pkgset.Set, format Format, name string) (buildfile.Tree, *LocalReport, error) {
	f, err := FormatNamed(string(format))
	if err != nil {
		return nil, nil, &ConfigError{err}
	}
	tk := r.Toolkit
	opts := emit.Options{Name: name, Toolchain: tk.Toolchain,
		Local: emit.Local{Product: tk.Product, Hints: tk.LocalHints, Identify: tk.LocalIdentify}}
	var rep *LocalReport
	if r.Config.LocalCUDA() != "" {
		if !f.Local {
			// The local_cuda option's error, blamed where it was set (the
			// flag, or the line of local_cuda() in the file).
			err := config.Errorf("local_cuda", "%w", &emit.LocalError{Format: f.Name})
			r.merged.Blame(err)
			return nil, nil, r.blame(err)
		}
		if opts.Local.Install, rep, err = r.LocalInstall(sets); err != nil {
			return nil, nil, err
		}
	}
	tree, err := f.Generate(r.Config, sets, opts)
	return tree, rep, err
}
