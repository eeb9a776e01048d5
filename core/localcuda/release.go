package localcuda

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Release picks, from the toolkit's manifests (Collection.Releases of the
// toolkit product, as pkgset.Available names it), the release the install
// is.
//
// identify lists, most telling first, the components whose versions pin a
// release (the compiler's, then the runtime's); it comes from the caller
// because the core names no package. A release matches when its
// major.minor (or its full number, when the install states three parts)
// equals Install.CUDA, and every component of identify the install states
// has exactly that version in it. At least one must be stated. When several
// releases match (NVIDIA sometimes reissues a release with the same
// compiler and runtime), the other components the install states decide;
// if they cannot, the error names the candidates so the user can pin one.
//
// The error for no match names the install's versions and the nearest
// releases by the first stated component of identify.
func (in *Install) Release(releases []*manifest.Manifest, identify []string) (*manifest.Manifest, error) {
	var stated []string
	for _, c := range identify {
		if _, ok := in.Components[c]; ok {
			stated = append(stated, c)
		}
	}
	if len(stated) == 0 {
		return nil, fmt.Errorf("CUDA install %s (%s layout): states no version of %s, so no release can be matched: %s", in.Root, in.Layout, strings.Join(identify, " or "), in.statedText())
	}
	var match []*manifest.Manifest
	for _, m := range releases {
		if in.cudaMatches(m.Release) && agrees(m, in.Components, stated, true) {
			match = append(match, m)
		}
	}
	if len(match) > 1 {
		var others []string
		for c := range in.Components {
			if !slices.Contains(stated, c) {
				others = append(others, c)
			}
		}
		var narrowed []*manifest.Manifest
		for _, m := range match {
			if agrees(m, in.Components, others, false) {
				narrowed = append(narrowed, m)
			}
		}
		if len(narrowed) > 0 {
			match = narrowed
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return nil, fmt.Errorf("CUDA install %s (%s layout): %s match no release of the manifests; nearest: %s", in.Root, in.Layout, in.statedText(), nearest(releases, stated, in.Components))
	}
	var names []string
	for _, m := range match {
		names = append(names, m.Release.String())
	}
	return nil, fmt.Errorf("CUDA install %s (%s layout): %s match releases %s alike: pin the CUDA version to one of them", in.Root, in.Layout, in.statedText(), strings.Join(names, ", "))
}

// cudaMatches compares a release with the release the install states, to
// the precision it states it (cuda.h says only major.minor).
func (in *Install) cudaMatches(rel version.Version) bool {
	if in.CUDA.IsZero() {
		return true
	}
	if in.CUDA.Parts() < 3 {
		return rel.Truncate(in.CUDA.Parts()).Equal(in.CUDA)
	}
	return rel.Equal(in.CUDA)
}

// agrees reports whether the manifest has each of comps at the stated
// version. A component the manifest lacks disagrees when required (an
// identifying one); otherwise it says nothing either way, as installs hold
// things the manifests do not list.
func agrees(m *manifest.Manifest, have map[string]version.Version, comps []string, required bool) bool {
	for _, c := range comps {
		p, ok := m.Package(c)
		if !ok {
			if required {
				return false
			}
			continue
		}
		if !p.Version.Equal(have[c]) {
			return false
		}
	}
	return true
}

// statedText lists the release and component versions the install states.
func (in *Install) statedText() string {
	var parts []string
	if !in.CUDA.IsZero() {
		parts = append(parts, "CUDA "+in.CUDA.String())
	}
	comps := make([]string, 0, len(in.Components))
	for c := range in.Components {
		comps = append(comps, c)
	}
	slices.Sort(comps)
	for _, c := range comps {
		parts = append(parts, c+" "+in.Components[c].String())
	}
	return strings.Join(parts, ", ")
}

// nearest names the releases just below and above the install by the
// version of the first stated identifying component, with their versions of
// every stated identifying component.
func nearest(releases []*manifest.Manifest, stated []string, have map[string]version.Version) string {
	type cand struct {
		m *manifest.Manifest
		v version.Version
	}
	var cs []cand
	for _, m := range releases {
		if p, ok := m.Package(stated[0]); ok {
			cs = append(cs, cand{m, p.Version})
		}
	}
	if len(cs) == 0 {
		return fmt.Sprintf("none has %s", stated[0])
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.v.Compare(b.v) })
	i, _ := slices.BinarySearchFunc(cs, have[stated[0]], func(c cand, v version.Version) int { return c.v.Compare(v) })
	var out []string
	for _, j := range []int{i - 1, i} {
		if j < 0 || j >= len(cs) {
			continue
		}
		var vs []string
		for _, c := range stated {
			if p, ok := cs[j].m.Package(c); ok {
				vs = append(vs, c+" "+p.Version.String())
			}
		}
		out = append(out, fmt.Sprintf("%s (%s)", cs[j].m.Release, strings.Join(vs, ", ")))
	}
	return strings.Join(out, "; ")
}
