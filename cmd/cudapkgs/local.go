package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/plugins/catalog"
)

// localInstall reads the installed CUDA of --local-cuda (or local_cuda() in
// Starlark): the release it is, and, by localcuda.Select, the install's file
// for each archive path of the components it serves. Components given with
// --local-components must all be there; without them the toolchain's
// compiler and runtime must be, and every other complete component is used
// as well. It says which were used, and which are downloaded instead.
func localInstall(e *evaluated, sets []*pkgset.Set, log io.Writer) (*bazel.Local, error) {
	root := e.cfg.LocalCUDA()
	if root == "" {
		return nil, nil
	}
	in, err := localcuda.Detect(root, catalog.LocalHints()...)
	if err != nil {
		return nil, fmt.Errorf("--local-cuda: %w", err)
	}
	var toolkit string
	for _, p := range e.products {
		if p.Toolkit {
			toolkit = p.Name
		}
	}
	m, err := in.Release(e.coll.Releases(toolkit), catalog.LocalIdentify())
	if err != nil {
		return nil, fmt.Errorf("--local-cuda %s: %w", in.Root, err)
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
		return nil, fmt.Errorf("--local-cuda %s: the install is CUDA %s (%s layout, read from %s), which is not among the configured CUDA versions %s: add it to --cuda",
			in.Root, m.Release, in.Layout, in.CUDAFrom, strings.Join(configured, ", "))
	}
	target, err := platform.Parse(in.Platform)
	if err != nil {
		return nil, fmt.Errorf("--local-cuda %s: platform %s: %w", in.Root, in.Platform, err)
	}
	if !slices.Contains(e.cfg.Targets(), target) {
		return nil, fmt.Errorf("--local-cuda %s: the install is for %s, which is not among the target platforms: add it to --platform", in.Root, target.Name())
	}
	explicit := e.cfg.LocalComponents()
	required := explicit
	if len(required) == 0 {
		tc := catalog.Toolchain()
		required = []string{tc.Compiler, tc.Runtime}
	}
	sel, err := localcuda.Select(in, localcuda.Choice{Set: set, Product: toolkit, Target: target, Explicit: explicit, Required: required})
	var missing *localcuda.MissingError
	var unknown *localcuda.UnknownComponentError
	switch {
	case errors.As(err, &missing):
		return nil, fmt.Errorf("--local-cuda %s (%s layout, CUDA %s): %w", in.Root, in.Layout, m.Release, err)
	case errors.As(err, &unknown):
		return nil, fmt.Errorf("--local-components: %w", err)
	case err != nil:
		return nil, fmt.Errorf("--local-cuda %s: %w", in.Root, err)
	}
	fmt.Fprintf(log, "local CUDA %s (%s layout, CUDA %s, %s): using %s\n", in.Root, in.Layout, m.Release, target.Name(), strings.Join(sel.Used, ", "))
	if len(sel.Skipped) > 0 {
		fmt.Fprintf(log, "local CUDA %s: not complete there, downloaded instead: %s\n", in.Root, strings.Join(sel.Skipped, ", "))
	}
	return &bazel.Local{Path: in.Root, Archives: sel.Archives}, nil
}
