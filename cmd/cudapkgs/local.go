package main

import (
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

// essential says whether a component cannot stand in for its archive
// without a file of this kind: what its main target and the toolchain use.
// A missing static library, stub or data file only leaves the target that
// names it unusable.
func essential(kind string) bool {
	return kind == "headers" || kind == "shared_lib" || kind == "binary"
}

// localInstall reads the installed CUDA of --local-cuda (or local_cuda() in
// Starlark): the release it is, and for every toolkit component of that
// release's set on the install's platform, the install's file for each of
// the archive's paths. Components given with --local-components must all be
// there; without them the toolchain's compiler and runtime must be, and
// every other complete component is used as well.
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
	tc := catalog.Toolchain()
	required := explicit
	if len(required) == 0 {
		required = []string{tc.Compiler, tc.Runtime}
	}
	local := &bazel.Local{Path: in.Root, Archives: map[string]map[string]string{}}
	var used, skipped []string
	known := map[string]bool{}
	for _, pkg := range set.Packages {
		if pkg.Product != toolkit || pkg.Name != pkg.Manifest {
			continue
		}
		known[pkg.Name] = true
		if len(explicit) > 0 && !slices.Contains(explicit, pkg.Name) {
			continue
		}
		a, ok := pkg.Platforms[target.Name()]
		if !ok {
			continue
		}
		files, problems := localFiles(in, pkg, target)
		if len(problems) == 0 && len(files) > 0 {
			local.Archives[a.SHA256] = files
			used = append(used, pkg.Name+" "+pkg.Version.String())
			continue
		}
		if slices.Contains(required, pkg.Name) {
			if len(problems) == 0 {
				problems = []string{"it has no files on " + target.Name()}
			}
			return nil, fmt.Errorf("--local-cuda %s (%s layout, CUDA %s): component %s %s is missing: %s",
				in.Root, in.Layout, m.Release, pkg.Name, pkg.Version, strings.Join(problems, "; "))
		}
		skipped = append(skipped, pkg.Name)
	}
	for _, c := range explicit {
		if !known[c] {
			return nil, fmt.Errorf("--local-components: %s is not a component of CUDA %s", c, m.Release)
		}
	}
	fmt.Fprintf(log, "local CUDA %s (%s layout, CUDA %s, %s): using %s\n", in.Root, in.Layout, m.Release, target.Name(), strings.Join(used, ", "))
	if len(skipped) > 0 {
		fmt.Fprintf(log, "local CUDA %s: not complete there, downloaded instead: %s\n", in.Root, strings.Join(skipped, ", "))
	}
	return local, nil
}

// localFiles maps each of a package's archive paths on target to the
// install's file ("|system" after a folder shared with other software), or
// says what is missing or of another version.
func localFiles(in *localcuda.Install, pkg *pkgset.Package, target platform.Platform) (map[string]string, []string) {
	var problems []string
	if v, ok := in.Components[pkg.Name]; ok && !v.Equal(pkg.Version) {
		problems = append(problems, fmt.Sprintf("the install has version %s (%s), the release %s", v, in.From[pkg.Name], pkg.Version))
	}
	_, evidence := in.Components[pkg.Name]
	files := map[string]string{}
	for _, f := range pkg.Files[target.Name()] {
		m, ok := in.Find(pkg.Name, f.Path)
		switch {
		case !ok && essential(f.Kind):
			problems = append(problems, f.Path+" not found")
		case !ok:
			// Only the target that names it is left without it.
		case m.Dir && m.System:
			files[f.Path] = m.Path + "|system"
		default:
			files[f.Path] = m.Path
			// A folder every component shares says nothing about this one.
			evidence = evidence || !(m.Dir && (m.Merged || m.System))
		}
	}
	if len(problems) == 0 && !evidence {
		problems = append(problems, "nothing of it is in the install but folders every component shares, and the install states no version of it")
	}
	return files, problems
}
