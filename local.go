package cudapkgs

import (
	"errors"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
)

// LocalReport says what an installed CUDA serves.
type LocalReport struct {
	Root, Layout string
	Release      string
	Target       platform.Platform
	// Used are the components taken from the install; Skipped those not
	// complete there, downloaded instead.
	Used, Skipped []string
}

// LocalInstall reads the installed CUDA the configuration names (nil, nil
// without one): the release it is, and, by localcuda.Select, the install's
// file for each archive path of the components it serves. Components the
// configuration lists must all be there; without a list the toolchain's
// compiler and runtime must be, and every other complete component is used
// as well.
func (r *Run) LocalInstall(sets []*pkgset.Set) (*emit.Install, *LocalReport, error) {
	root := r.Config.LocalCUDA()
	if root == "" {
		return nil, nil, nil
	}
	tk := r.Toolkit
	in, err := localcuda.Detect(root, tk.LocalHints...)
	if err != nil {
		return nil, nil, r.localError("local_cuda", "%w", err)
	}
	m, err := in.Release(r.Collection.Releases(tk.Product), tk.LocalIdentify)
	if err != nil {
		return nil, nil, r.localError("local_cuda", "%s: %w", in.Root, err)
	}
	var set *pkgset.Set
	var configured []string
	for _, s := range sets {
		configured = append(configured, s.CUDA.String())
		if s.CUDA.Equal(m.Release) {
			set = s
		}
	}
	if set == nil {
		return nil, nil, r.localError("local_cuda", "%s: the install is CUDA %s (%s layout, read from %s), which is not among the configured CUDA versions %s: add it to %s",
			in.Root, m.Release, in.Layout, in.CUDAFrom, strings.Join(configured, ", "), config.Ref("cuda"))
	}
	target, err := platform.Parse(in.Platform)
	if err != nil {
		return nil, nil, r.localError("local_cuda", "%s: platform %s: %w", in.Root, in.Platform, err)
	}
	if !slices.Contains(r.Config.Targets(), target) {
		return nil, nil, r.localError("local_cuda", "%s: the install is for %s, which is not among the target platforms: add it to %s", in.Root, target.Name(), config.Ref("targets"))
	}
	explicit := r.Config.LocalComponents()
	required := explicit
	if len(required) == 0 {
		required = []string{tk.Toolchain.Compiler, tk.Toolchain.Runtime}
	}
	sel, err := localcuda.Select(in, localcuda.Choice{Set: set, Product: tk.Product, Target: target, Explicit: explicit, Required: required})
	var missing *localcuda.MissingError
	var unknown *localcuda.UnknownComponentError
	switch {
	case errors.As(err, &missing):
		return nil, nil, r.localError("local_cuda", "%s (%s layout, CUDA %s): %w", in.Root, in.Layout, m.Release, err)
	case errors.As(err, &unknown):
		return nil, nil, r.localError("local_components", "%w", err)
	case err != nil:
		return nil, nil, r.localError("local_cuda", "%s: %w", in.Root, err)
	}
	rep := &LocalReport{Root: in.Root, Layout: in.Layout, Release: m.Release.String(), Target: target, Used: sel.Used, Skipped: sel.Skipped}
	return &emit.Install{Path: in.Root, Archives: sel.Archives}, rep, nil
}

// localError is an installed CUDA the configuration names that cannot
// serve: an *config.OptionError, blamed on the layer that set the option
// (the flag, or the line of local_cuda() in the file). It is not a
// *ConfigError: the install, not the command line, is at fault.
func (r *Run) localError(option, format string, args ...any) error {
	err := config.Errorf(option, format, args...)
	r.merged.Blame(err)
	return err
}
