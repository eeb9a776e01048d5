package fixup

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Apply sends every package set, one batch per product, to the plugin that
// fixes the product, in parallel, and returns new sets with the validated
// answers folded in; then each default name is served, per platform, by the
// newest release found usable there (pkgset.ChooseDefaults). The sets it is
// given stay as they were: it works on clones, which it alone holds until it
// returns them. Any failure ends the whole stage with one error; the caller
// writes nothing then.
func (h *Host) Apply(ctx context.Context, cfg *config.Config, in []*pkgset.Set) ([]*pkgset.Set, error) {
	sets := make([]*pkgset.Set, len(in))
	for i, s := range in {
		sets[i] = s.Clone()
	}
	type job struct {
		set   *pkgset.Set
		batch *sdk.Batch
		r     *running
	}
	var jobs []job
	rs := h.renames()
	if err := rs.check(); err != nil {
		return nil, err
	}
	for _, s := range sets {
		for _, b := range Batches(cfg, s) {
			r, ok := h.byProduct[b.Product]
			switch {
			case !ok && slices.Contains(h.opts.Unfixed, b.Product):
				continue
			case !ok:
				return nil, fmt.Errorf("no plugin fixes product %s (plugins: %s)", b.Product, h.names())
			}
			jobs = append(jobs, job{s, b, r})
		}
	}
	// The plugins started on demand that some batch needs, each once and
	// all in parallel, before any call: a product no set holds leaves its
	// plugin unstarted.
	var need []*running
	for _, j := range jobs {
		if j.r.declared && !slices.Contains(need, j.r) {
			need = append(need, j.r)
		}
	}
	live, err := h.startAll(ctx, need)
	if err != nil {
		return nil, err
	}
	for i, j := range jobs {
		if p, ok := live[j.r]; ok {
			jobs[i].r = p
		}
	}
	results := make([]*sdk.Result, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(h.opts.Parallel)
	for i, j := range jobs {
		g.Go(func() error {
			res, err := h.call(gctx, j.r, j.batch)
			if err != nil {
				return err
			}
			if err := validate(j.r.desc.Name, j.batch, res, rs); err != nil {
				return err
			}
			NotSupported(h.platformsOf(j.batch.Product), j.batch, res)
			results[i] = res
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Folding is sequential and cheap; it changes the clones, which
	// nothing else holds.
	plugins := map[string]string{} // package -> plugin, for cycle messages
	for i, j := range jobs {
		fold(j.set, j.batch, results[i], rs)
		for _, p := range j.batch.Packages {
			plugins[j.set.CUDA.String()+"/"+p.Name] = j.r.desc.Name
		}
	}
	for _, s := range sets {
		pkgset.ChooseDefaults(cfg, s)
		rs.alias(s)
		if err := checkCycles(s, func(pkg string) string { return plugins[s.CUDA.String()+"/"+pkg] }); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

// reasonWindows is what every product says of its Windows archives, in the
// words the redist plugin has always used, so that generated trees stay as
// they were when each plugin said it.
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"

// notSupportedReason is the reason an archive for a platform its product's
// plugin does not describe cannot be used.
func notSupportedReason(product, plat string) string {
	if strings.HasPrefix(plat, "windows-") {
		return reasonWindows
	}
	return fmt.Sprintf("cudapkgs does not describe %s's %s archives: the plugin for %s declares no support for %s", product, plat, product, plat)
}

// NotSupported says, once for every product, that an archive for a
// platform the product's plugin declares no support for cannot be used: its
// files are dropped and the reason comes first, before the plugin's own
// (a capability floor, say). described nil: the plugin declares no
// platforms and answers for every one itself. A batch's archives are the
// targets', so every answer stays on a target.
func NotSupported(described []string, b *sdk.Batch, r *sdk.Result) {
	if described == nil {
		return
	}
	archives := map[string]map[string]bool{}
	for _, p := range b.Packages {
		archives[p.Name] = map[string]bool{}
		for _, a := range p.Archives {
			archives[p.Name][a.Platform] = true
		}
	}
	for i := range r.Packages {
		p := &r.Packages[i]
		for plat := range archives[p.Name] {
			if slices.Contains(described, plat) {
				continue
			}
			reason := notSupportedReason(b.Product, plat)
			pr := p.Platforms[plat]
			if p.Platforms == nil {
				p.Platforms = map[string]sdk.PlatformResult{}
			}
			unusable := pr.Unusable
			if !slices.Contains(unusable, reason) {
				unusable = append([]string{reason}, unusable...)
			}
			p.Platforms[plat] = sdk.PlatformResult{Unusable: unusable}
		}
	}
}

// renames are those of the plugins that fix a product (a built-in replaced
// by a declared plugin does not rename anything).
func (h *Host) renames() renames {
	var rs renames
	for _, r := range h.plugins {
		for _, p := range r.desc.Products {
			if h.byProduct[p] == r {
				rs = append(rs, r.renames...)
				break
			}
		}
	}
	return rs
}

func (h *Host) names() string {
	var ns []string
	for _, r := range h.plugins {
		ns = append(ns, r.desc.Name)
	}
	return strings.Join(ns, ", ")
}

// linkoptRE is what a plugin may put on a link line: a system library by
// name, never a path or a flag that changes the link.
var linkoptRE = regexp.MustCompile(`^(-l[A-Za-z0-9_+.-]+|-pthread)$`)

// patchNameRE is a patch's name: it appears in messages and in generated.bzl.
var patchNameRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// validate checks a plugin's answer against the batch it was given. The
// message names the plugin and the package: the plugin is what lied.
func validate(plugin string, b *sdk.Batch, r *sdk.Result, rs renames) error {
	bad := func(pkg, format string, args ...any) error {
		return fmt.Errorf("plugin %s: Fixup(CUDA %s, product %s): package %s: %s", plugin, b.CUDA, b.Product, pkg, fmt.Sprintf(format, args...))
	}
	inBatch := map[string]*sdk.Package{}
	for i := range b.Packages {
		inBatch[b.Packages[i].Name] = &b.Packages[i]
	}
	answered := map[string]bool{}
	for _, p := range r.Packages {
		bp, ok := inBatch[p.Name]
		if !ok {
			return bad(p.Name, "unknown package: it is not in the batch")
		}
		if answered[p.Name] {
			return bad(p.Name, "answered twice")
		}
		answered[p.Name] = true
		hasArchive := map[string]bool{}
		for _, a := range bp.Archives {
			hasArchive[a.Platform] = true
		}
		for _, plat := range slices.Sorted(maps.Keys(p.Platforms)) {
			pr := p.Platforms[plat]
			if !slices.Contains(b.Config.Targets, plat) {
				return bad(p.Name, "answer for platform %q, which is not a target (%s)", plat, strings.Join(b.Config.Targets, ", "))
			}
			if pr.Generic && (len(pr.Files) > 0 || len(pr.Unusable) > 0) {
				return bad(p.Name, "%s: generic (not known to the plugin) and also files or reasons: expected one of them", plat)
			}
			if pr.Generic && !hasArchive[plat] {
				return bad(p.Name, "generic on %s, where it has no archive", plat)
			}
			if len(pr.Files) > 0 && !hasArchive[plat] {
				return bad(p.Name, "files on %s, where it has no archive", plat)
			}
			for _, f := range pr.Files {
				if err := file.Check(fileOf(f)); err != nil {
					return bad(p.Name, "%s: %v", plat, err)
				}
			}
			for _, u := range pr.Unusable {
				if strings.TrimSpace(u) == "" {
					return bad(p.Name, "%s: an empty unusable reason", plat)
				}
			}
			if err := checkJudged(b.Config, plat, pr); err != nil {
				return bad(p.Name, "%s: %v", plat, err)
			}
		}
		names := map[string]bool{}
		for _, pa := range p.Patches {
			if err := checkPatch(pa); err != nil {
				return bad(p.Name, "patch %q: %v", pa.Name, err)
			}
			if names[pa.Name] {
				return bad(p.Name, "two patches named %q", pa.Name)
			}
			names[pa.Name] = true
		}
		for _, o := range p.StaticLinkopts {
			if !linkoptRE.MatchString(o) {
				return bad(p.Name, "static link option %q: expected -l<name> or -pthread", o)
			}
		}
		for _, d := range p.Deps {
			if _, err := resolveDep(b, d, rs); err != nil {
				return bad(p.Name, "%v", err)
			}
			n := 0
			for _, set := range []bool{d.Static, d.Runtime, d.Headers, d.Merge} {
				if set {
					n++
				}
			}
			if n > 1 {
				return bad(p.Name, "dependency on %s is more than one of static, runtime, headers and merge: expected one", d.Package)
			}
			if d.Package == bp.Manifest && (d.Release == "" || strings.HasPrefix(bp.Release, d.Release)) {
				return bad(p.Name, "depends on itself (a cycle)")
			}
			for _, plat := range d.Platforms {
				if !slices.Contains(b.Config.Targets, plat) {
					return bad(p.Name, "dependency on %s limited to %q, which is not a target", d.Package, plat)
				}
			}
		}
	}
	for _, p := range b.Packages {
		if !answered[p.Name] {
			return bad(p.Name, "no answer: a plugin answers for every package of its batch")
		}
	}
	return nil
}

// checkPatch refuses a patch the fetch could not apply as meant: edits of
// paths outside the archive, or that find nothing to replace.
func checkPatch(pa sdk.Patch) error {
	switch {
	case !patchNameRE.MatchString(pa.Name):
		return fmt.Errorf("expected a name of letters, digits, '.', '_' and '-'")
	case strings.TrimSpace(pa.Why) == "":
		return fmt.Errorf("no reason given (why)")
	case len(pa.Edits) == 0:
		return fmt.Errorf("no edits")
	}
	for _, e := range pa.Edits {
		if err := file.CheckPath(e.Path); err != nil {
			return fmt.Errorf("edit of %q: %v", e.Path, err)
		}
		if e.Old == "" || e.Old == e.New {
			return fmt.Errorf("edit of %q: expected old text to replace, different from the new", e.Path)
		}
		if strings.ContainsRune(e.Old+e.New, 0) {
			return fmt.Errorf("edit of %q: NUL in the text", e.Path)
		}
	}
	return nil
}

// resolveDep finds the set package an edge points to: the package under its
// own name when its release fits, else the versioned name whose release does,
// else, where the set lacks the name and a rename says another package took
// it over, that package.
func resolveDep(b *sdk.Batch, d sdk.Dep, rs renames) (string, error) {
	name, err := resolveName(b, d)
	if err == nil {
		return name, nil
	}
	if cuda, perr := version.Parse(b.CUDA); perr == nil {
		if next, ok := rs.successorIn(b, d.Package, cuda); ok {
			d.Package = next
			if name, nerr := resolveName(b, d); nerr == nil {
				return name, nil
			}
		}
	}
	return "", err
}

func resolveName(b *sdk.Batch, d sdk.Dep) (string, error) {
	var want version.Version
	if d.Release != "" {
		v, err := version.Parse(d.Release)
		if err != nil {
			return "", fmt.Errorf("dependency on %s: release %q: %v", d.Package, d.Release, err)
		}
		want = v
	}
	best := ""
	for _, sp := range b.SetPackages {
		if sp.Manifest != d.Package {
			continue
		}
		if !want.IsZero() {
			rel, err := version.Parse(sp.Release)
			if err != nil || !rel.HasPrefix(want) {
				continue
			}
		}
		if sp.Name == sp.Manifest {
			return sp.Name, nil
		}
		if best == "" {
			best = sp.Name
		}
	}
	if best == "" {
		what := d.Package
		if d.Release != "" {
			what += " " + d.Release
		}
		return "", fmt.Errorf("depends on %s, which does not exist in the CUDA %s set", what, b.CUDA)
	}
	return best, nil
}

// checkJudged holds a plugin's judged capabilities to what JudgeCapabilities
// can give: some, not all, of a target's defaults, on a package usable there.
func checkJudged(c sdk.Config, plat string, pr sdk.PlatformResult) error {
	if len(pr.Judged) == 0 {
		return nil
	}
	caps := c.Capabilities[plat]
	switch {
	case !slices.Contains(c.DefaultCapabilityTargets, plat):
		return fmt.Errorf("judged against capabilities %s, but the user set this target's capabilities (%s): expected none, every one counts", strings.Join(pr.Judged, ", "), strings.Join(caps, ", "))
	case len(pr.Unusable) > 0 || pr.Generic:
		return fmt.Errorf("judged against capabilities %s and also unusable or generic: expected judged capabilities only on a package usable there", strings.Join(pr.Judged, ", "))
	case len(pr.Judged) >= len(caps):
		return fmt.Errorf("judged against capabilities %s: expected fewer than the target's defaults (%s), or none", strings.Join(pr.Judged, ", "), strings.Join(caps, ", "))
	}
	for _, j := range pr.Judged {
		if !slices.Contains(caps, j) {
			return fmt.Errorf("judged against capability %q, which is not one of the target's defaults (%s)", j, strings.Join(caps, ", "))
		}
	}
	return nil
}

// fold writes a validated answer into the set's packages.
func fold(s *pkgset.Set, b *sdk.Batch, r *sdk.Result, rs renames) {
	for _, pr := range r.Packages {
		p, ok := s.Package(pr.Name)
		if !ok {
			continue // validate made sure it is there
		}
		p.Files = map[string][]pkgset.File{}
		p.Patches = nil
		var patches []pkgset.Patch
		for _, pa := range pr.Patches {
			pp := pkgset.Patch{Name: pa.Name, Why: pa.Why}
			for _, e := range pa.Edits {
				pp.Edits = append(pp.Edits, pkgset.Edit{Path: e.Path, Old: e.Old, New: e.New})
			}
			patches = append(patches, pp)
		}
		var all []file.File
		p.Judged = nil
		for plat, res := range pr.Platforms {
			if len(res.Judged) > 0 {
				if p.Judged == nil {
					p.Judged = map[string][]string{}
				}
				p.Judged[plat] = slices.Clone(res.Judged)
			}
			if len(res.Unusable) > 0 {
				// The archive stays listed (it exists, with its sha256);
				// the reasons say why it cannot be used.
				for _, u := range res.Unusable {
					if !slices.Contains(p.Unavailable[plat], u) {
						p.Unavailable[plat] = append(p.Unavailable[plat], u)
					}
				}
				continue
			}
			if res.Generic {
				pkgset.MarkGeneric(s, p, plat)
				all = append(all, file.File{Kind: file.Headers, Role: file.Target})
				continue
			}
			files := filesOf(res.Files)
			if len(files) > 0 {
				p.Files[plat] = files
			}
			if len(patches) > 0 {
				if p.Patches == nil {
					p.Patches = map[string][]pkgset.Patch{}
				}
				p.Patches[plat] = patches
			}
			all = append(all, files...)
		}
		p.Role = file.RoleOf(all)
		p.StaticLinkopts = slices.Clone(pr.StaticLinkopts)
		p.Deps = nil
		for _, d := range pr.Deps {
			name, _ := resolveDep(b, d, rs)
			p.Deps = append(p.Deps, pkgset.Dep{Name: name, Runtime: d.Runtime, Static: d.Static, Headers: d.Headers, Merge: d.Merge, Release: d.Release, Since: d.Since, Until: d.Until, Platforms: d.Platforms})
		}
		slices.SortFunc(p.Deps, func(a, b pkgset.Dep) int { return strings.Compare(a.Name, b.Name) })
	}
}

// checkCycles refuses a set whose dependency edges loop, naming the chain and
// the plugin that declared its first edge.
func checkCycles(s *pkgset.Set, pluginOf func(string) string) error {
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(name string) error
	visit = func(name string) error {
		switch state[name] {
		case active:
			i := slices.Index(stack, name)
			chain := append(append([]string(nil), stack[i:]...), name)
			return fmt.Errorf("plugin %s: package %s: dependency cycle in the CUDA %s set: %s", pluginOf(chain[0]), chain[0], s.CUDA, strings.Join(chain, " -> "))
		case done:
			return nil
		}
		state[name] = active
		stack = append(stack, name)
		if p, ok := s.Package(name); ok {
			for _, d := range p.Deps {
				if err := visit(d.Name); err != nil {
					return err
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[name] = done
		return nil
	}
	for _, p := range s.Packages {
		if err := visit(p.Name); err != nil {
			return err
		}
	}
	return nil
}

// fileOf reads a plugin's file into the host's file model: the SDK states
// the same kinds and roles by name (TestFileModelMatchesSDK holds them
// together), so the conversion is by name and file.Check judges the result.
func fileOf(f sdk.File) file.File {
	return file.File{Path: f.Path, Kind: file.Kind(f.Kind), Role: file.Role(f.Role), SONAME: f.SONAME}
}

// filesOf converts a list (nil for none), so that the set never shares the
// answer's backing array.
func filesOf(fs []sdk.File) []file.File {
	if len(fs) == 0 {
		return nil
	}
	out := make([]file.File, len(fs))
	for i, f := range fs {
		out[i] = fileOf(f)
	}
	return out
}
