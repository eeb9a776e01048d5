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
		files, problems, evidence := localFiles(in, pkg, target)
		if len(files) == 0 && len(problems) == 0 {
			problems = []string{"it has no files on " + target.Name()}
		}
		cands[pkg.Name] = &candidate{pkg: pkg, sha256: a.SHA256, files: files, problems: problems, evidence: evidence || len(explicit) > 0}
		order = append(order, pkg.Name)
	}
	// A component with evidence of its own is used; so is, transitively,
	// every complete one a used component depends on (cuda_cudart's
	// headers include cuda_cccl's: in Debian's /usr/include, a shared
	// folder, there is no file to tell cuda_cccl apart), so that an
	// install's components never depend on downloaded ones that it has.
	use := map[string]bool{}
	var queue []string
	for _, n := range order {
		if c := cands[n]; len(c.problems) == 0 && c.evidence {
			use[n] = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		c := cands[queue[0]]
		queue = queue[1:]
		for _, d := range c.pkg.Deps {
			dc, ok := cands[d.Name]
			if !ok || use[d.Name] || len(dc.problems) > 0 || (len(d.Platforms) > 0 && !slices.Contains(d.Platforms, target.Name())) {
				continue
			}
			use[d.Name] = true
			queue = append(queue, d.Name)
		}
	}
	var used, skipped []string
	for _, n := range order {
		c := cands[n]
		if use[n] {
			local.Archives[c.sha256] = c.files
			used = append(used, n+" "+c.pkg.Version.String())
			continue
		}
		if slices.Contains(required, n) {
			problems := c.problems
			if len(problems) == 0 {
				problems = []string{"nothing of it is in the install but folders every component shares, and the install states no version of it"}
			}
			return nil, fmt.Errorf("--local-cuda %s (%s layout, CUDA %s): component %s %s is missing: %s",
				in.Root, in.Layout, m.Release, n, c.pkg.Version, strings.Join(problems, "; "))
		}
		skipped = append(skipped, n)
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
// install's file ("|system" after a folder shared with other software),
// says what is missing or of another version, and whether there is evidence
// of the package in the install: a file of its own (not a folder every
// component shares) or a version the install states.
func localFiles(in *localcuda.Install, pkg *pkgset.Package, target platform.Platform) (map[string]string, []string, bool) {
	var problems []string
	v, evidence := in.Components[pkg.Name]
	if evidence && !v.Equal(pkg.Version) {
		problems = append(problems, fmt.Sprintf("the install has version %s (%s), the release %s", v, in.From[pkg.Name], pkg.Version))
	}
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
			evidence = evidence || !(m.Dir && (m.Merged || m.System))
		}
	}
	return files, problems, evidence
}
