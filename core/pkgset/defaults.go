package pkgset

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Served says that, on one platform, a default name is served by an older
// release of its product (one of its versioned names), because the release
// chosen before the plugins' verdicts cannot be used there.
type Served struct {
	Name    string          // the versioned name, libfoo_9_3
	Release version.Version // its product release
	Version version.Version // its package version
	// Passed are the reasons the newer release was passed over.
	Passed []string
}

// Tried is an older release tried for a default name on a platform where
// the default's own release cannot be used, and why it could not serve
// either.
type Tried struct {
	Name    string          // the versioned name, libfoo_9_3
	Release version.Version // its product release
	Version version.Version // its package version
	Reasons []string
}

// ChooseDefaults re-points, per target platform, every default name of a
// product with versioned names at the newest release the plugins found
// usable there, for the capabilities configured at generation. Build picks
// a release before any plugin has judged it (newest compatible with the
// CUDA version); the plugins then rule some out on some platforms (a
// library release that dropped the configured capabilities, or has no
// Jetson archives). Without this step the default name would stay unusable where an
// older release serves.
//
// Where no release serves a platform, the reason says which rules each
// release out. A pinned product is left as pinned: the user chose it.
// It runs after the plugins' answers are folded in, before overrides.
func ChooseDefaults(cfg *config.Config, s *Set) {
	type group struct {
		def      *Package
		versions []*Package
	}
	groups := map[string]*group{}
	for _, p := range s.Packages {
		if p.Release.IsZero() {
			continue
		}
		g := groups[p.Product+"\x00"+p.Manifest]
		if g == nil {
			g = &group{}
			groups[p.Product+"\x00"+p.Manifest] = g
		}
		if p.Name == p.Manifest {
			g.def = p
		} else {
			g.versions = append(g.versions, p)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		g := groups[k]
		if g.def == nil || len(g.versions) == 0 {
			continue
		}
		if _, pinned := cfg.Pin(g.def.Product, s.CUDA); pinned {
			continue
		}
		// Newest release first.
		sort.SliceStable(g.versions, func(i, j int) bool { return g.versions[j].Release.Less(g.versions[i].Release) })
		chooseFor(g.def, g.versions)
	}
	retarget(s)
}

// retarget keeps an edge that asked for one release of a default name (a
// samples package for the library of its own release) on that release, under
// its versioned name, on the platforms where the default now serves another.
func retarget(s *Set) {
	for _, p := range s.Packages {
		var out []Dep
		for _, d := range p.Deps {
			out = append(out, retargetDep(s, p, d)...)
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		p.Deps = out
	}
}

func retargetDep(s *Set, p *Package, d Dep) []Dep {
	def, ok := s.Package(d.Name)
	want, err := version.Parse(d.Release)
	if d.Release == "" || err != nil || !ok || len(def.Served) == 0 {
		return []Dep{d}
	}
	plats := map[string]bool{}
	for _, q := range []*Package{p, def} {
		for t := range q.Platforms {
			plats[t] = true
		}
		for t := range q.Unavailable {
			plats[t] = true
		}
	}
	if len(d.Platforms) > 0 {
		maps.DeleteFunc(plats, func(t string, _ bool) bool { return !slices.Contains(d.Platforms, t) })
	}
	var moved, kept []string
	for _, t := range slices.Sorted(maps.Keys(plats)) {
		if sv, served := def.Served[t]; served && !sv.Release.HasPrefix(want) {
			moved = append(moved, t)
		} else {
			kept = append(kept, t)
		}
	}
	var alt *Package
	for _, q := range s.Packages {
		if q.Manifest == def.Manifest && q.Product == def.Product && q.Name != def.Name && q.Release.HasPrefix(want) &&
			(alt == nil || alt.Release.Less(q.Release)) {
			alt = q
		}
	}
	if len(moved) == 0 || alt == nil {
		return []Dep{d}
	}
	to := d
	to.Name, to.Platforms = alt.Name, moved
	if len(kept) == 0 {
		to.Platforms = d.Platforms // every platform the edge held on
		return []Dep{to}
	}
	d.Platforms = kept
	return []Dep{d, to}
}

func usable(p *Package, plat string) bool {
	_, ok := p.Platforms[plat]
	return ok && len(p.Unavailable[plat]) == 0
}

// chooseFor re-points def on each platform where it is unusable at the
// newest usable versioned name of the same package, newest first in vs.
func chooseFor(def *Package, vs []*Package) {
	plats := map[string]bool{}
	for _, p := range append([]*Package{def}, vs...) {
		for t := range p.Platforms {
			plats[t] = true
		}
		for t := range p.Unavailable {
			plats[t] = true
		}
	}
	served := map[string]*Package{}
	for _, t := range slices.Sorted(maps.Keys(plats)) {
		if usable(def, t) {
			continue
		}
		var by *Package
		var tried []Tried
		for _, v := range vs {
			if !v.Release.Less(def.Release) {
				continue
			}
			if usable(v, t) {
				by = v
				break
			}
			tried = append(tried, triedOn(v, t))
		}
		if len(tried) > 0 {
			if def.Tried == nil {
				def.Tried = map[string][]Tried{}
			}
			def.Tried[t] = tried
		}
		if by == nil {
			explainNone(def, t, tried)
			continue
		}
		if def.Served == nil {
			def.Served = map[string]Served{}
		}
		def.Served[t] = Served{Name: by.Name, Release: by.Release, Version: by.Version, Passed: def.Unavailable[t]}
		def.Platforms[t] = by.Platforms[t]
		if def.Files == nil {
			def.Files = map[string][]File{}
		}
		def.Files[t] = by.Files[t]
		if by.Patches[t] != nil {
			if def.Patches == nil {
				def.Patches = map[string][]Patch{}
			}
			def.Patches[t] = by.Patches[t]
		} else {
			delete(def.Patches, t)
		}
		delete(def.Unavailable, t)
		served[t] = by
	}
	if len(served) > 0 {
		def.Deps = mergeDeps(def, served, slices.Sorted(maps.Keys(plats)))
	}
}

// triedOn is v as a release tried on t, with why it cannot serve there.
func triedOn(v *Package, t string) Tried {
	rs := slices.Clone(v.Unavailable[t])
	if len(rs) == 0 {
		rs = []string{"no " + t + " archive"}
	}
	return Tried{Name: v.Name, Release: v.Release, Version: v.Version, Reasons: rs}
}

// explainNone sums up, where no release of the package serves t, the older
// releases tried in one reason; def.Tried has each with its reasons, for
// query's JSON (all of them in a message made it thousands of characters).
func explainNone(def *Package, t string, tried []Tried) {
	if len(tried) == 0 {
		return
	}
	msg := fmt.Sprintf("no older release serves %s either (%s tried)", t, tried[0].Name)
	if n := len(tried); n > 1 {
		msg = fmt.Sprintf("no older release serves %s either (%d tried, %s to %s)", t, n, tried[0].Name, tried[n-1].Name)
	}
	if !slices.Contains(def.Unavailable[t], msg) {
		def.Unavailable[t] = append(def.Unavailable[t], msg)
	}
}

// mergeDeps keeps def's own edges on the platforms it still serves itself
// and adds, limited to each re-pointed platform, the edges of the release
// that serves it there.
func mergeDeps(def *Package, served map[string]*Package, plats []string) []Dep {
	var own []string
	for _, t := range plats {
		if served[t] == nil {
			own = append(own, t)
		}
	}
	type key struct {
		name                            string
		runtime, static, headers, merge bool
		release, since, until           string
	}
	merged := map[key]map[string]bool{}
	var order []key
	add := func(d Dep, on []string) {
		if len(d.Platforms) > 0 {
			on = slices.DeleteFunc(slices.Clone(on), func(t string) bool { return !slices.Contains(d.Platforms, t) })
		}
		if len(on) == 0 {
			return
		}
		k := key{d.Name, d.Runtime, d.Static, d.Headers, d.Merge, d.Release, d.Since, d.Until}
		if merged[k] == nil {
			merged[k] = map[string]bool{}
			order = append(order, k)
		}
		for _, t := range on {
			merged[k][t] = true
		}
	}
	for _, d := range def.Deps {
		add(d, own)
	}
	for _, t := range slices.Sorted(maps.Keys(served)) {
		for _, d := range served[t].Deps {
			add(d, []string{t})
		}
	}
	var out []Dep
	for _, k := range order {
		d := Dep{Name: k.name, Runtime: k.runtime, Static: k.static, Headers: k.headers, Merge: k.merge, Release: k.release, Since: k.since, Until: k.until}
		if len(merged[k]) < len(plats) {
			d.Platforms = slices.Sorted(maps.Keys(merged[k]))
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
