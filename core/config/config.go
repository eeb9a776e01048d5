// Package config holds the evaluated configuration: defaults, then a
// configuration file (a seam for the Starlark stage), then command-line flags,
// merged into one validated, frozen value that every package set reads.
//
// Evaluation happens once per run. Everything the package sets need that
// depends only on the configuration (the capabilities per CUDA version and
// target, the pins per product) is computed here, so that building a set never
// re-evaluates anything and sets can be built in parallel from one shared
// value.
package config

import (
	"slices"
	"sort"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Options is the raw, unvalidated form: what defaults, a file and flags set.
// A nil slice or pointer means "not set here", so a later layer only
// overrides what it names.
type Options struct {
	CUDA          []string // versions or prefixes: "12.4.1", "12.4", "12"
	Capabilities  []string // "8.0", "9.0a"; empty: defaults per CUDA version
	ForwardCompat *bool
	Exec          *string
	Targets       []string
	Pins          []string // "<product>=8.9" or "<product>@12.2=8.9"
	Mirrors       []string
	Plugins       []string // third-party plugins: "path=sha256"
	Sources       []string // "<product>=wheels": where a product offered both ways comes from
	// LocalCUDA is the root of an installed CUDA used instead of downloads
	// for its CUDA version and platform; LocalComponents restricts it to
	// those components (and requires each).
	LocalCUDA       *string
	LocalComponents []string
}

// Layer is one source of options. Layers apply in order; later ones win.
// Flags, defaults and (in a later stage) the Starlark file are layers.
type Layer interface {
	// Name says where options came from, for error messages ("flags", a file).
	Name() string
	Apply(o *Options) error
}

// Available is what the manifests offer, against which options are checked.
type Available struct {
	// Toolkit is the product whose releases are the CUDA versions.
	Toolkit string
	// Releases per product, ascending.
	Releases map[string][]version.Version
	// Refused per product: releases whose manifest was refused whole, with
	// why. They are not served; asking for one by name is an error that
	// says why.
	Refused map[string][]RefusedRelease
}

// RefusedRelease is a release whose manifest could not be used.
type RefusedRelease struct {
	Release string
	Reason  string
}

// refusedMatch returns the refusal of a release that v names (equal, or a
// prefix when v has fewer than three parts), if any.
func (a Available) refusedMatch(product string, v version.Version, prefix bool) (RefusedRelease, bool) {
	for _, r := range a.Refused[product] {
		rv, err := version.Parse(r.Release)
		if err != nil {
			continue
		}
		if (prefix && rv.HasPrefix(v)) || (!prefix && rv.Equal(v)) {
			return r, true
		}
	}
	return RefusedRelease{}, false
}

// Pin fixes a product's release: every release whose version starts with
// Version, for CUDA versions starting with CUDA (all when zero).
type Pin struct {
	Product string
	CUDA    version.Version
	Version version.Version
}

func (p Pin) String() string {
	if p.CUDA.IsZero() {
		return p.Product + "=" + p.Version.String()
	}
	return p.Product + "@" + p.CUDA.String() + "=" + p.Version.String()
}

// Config is the frozen, validated configuration. Its fields are unexported;
// accessors return copies, so no reader can change what another sees.
type Config struct {
	cuda          []version.Version
	explicitCaps  []string
	forwardCompat bool
	exec          platform.Platform
	targets       []platform.Platform
	pins          []Pin
	mirrors       []string
	localCUDA     string
	localComps    []string
	plugins       []Plugin
	// caps[cuda.String()][target.Name()] is computed once in Evaluate.
	caps map[string]map[string][]gpu.Capability
	// defaulted holds the targets whose capabilities are their CUDA
	// versions' defaults: the user named none of their kind.
	defaulted map[string]bool
}

// CUDA returns the CUDA versions package sets are built for, ascending.
func (c *Config) CUDA() []version.Version { return append([]version.Version(nil), c.cuda...) }

// ForwardCompat reports whether PTX for the newest capability is embedded.
func (c *Config) ForwardCompat() bool { return c.forwardCompat }

// Exec is the platform builds run on.
func (c *Config) Exec() platform.Platform { return c.exec }

// Targets are the platforms binaries are built for.
func (c *Config) Targets() []platform.Platform {
	return append([]platform.Platform(nil), c.targets...)
}

// Pins returns the pins, most specific (with a CUDA version) first.
func (c *Config) Pins() []Pin { return append([]Pin(nil), c.pins...) }

// Mirrors are base URLs tried before NVIDIA's.
func (c *Config) Mirrors() []string { return append([]string(nil), c.mirrors...) }

// LocalCUDA is the root of the installed CUDA to use, or "".
func (c *Config) LocalCUDA() string { return c.localCUDA }

// LocalComponents are the components to take from LocalCUDA; empty: every
// one the install has.
func (c *Config) LocalComponents() []string { return append([]string(nil), c.localComps...) }

// Plugin is a third-party plugin: its program and the sha256 it must have.
type Plugin struct {
	Path   string
	SHA256 string
}

// Plugins are the declared third-party plugins, in order.
func (c *Config) Plugins() []Plugin { return append([]Plugin(nil), c.plugins...) }

// ExplicitCapabilities are the capabilities the user asked for; empty when
// the defaults of each CUDA version apply.
func (c *Config) ExplicitCapabilities() []string { return append([]string(nil), c.explicitCaps...) }

// Capabilities returns the GPU capabilities built for a CUDA version on a
// target platform.
func (c *Config) Capabilities(cuda version.Version, target platform.Platform) []gpu.Capability {
	return append([]gpu.Capability(nil), c.caps[cuda.String()][target.Name()]...)
}

// CapabilitiesDefaulted reports whether the target's capabilities are the
// defaults of each CUDA version rather than ones the user named. Products are
// judged differently for them: against the defaults each supports (see
// docs/configuration.md), while binaries still build for all of them.
func (c *Config) CapabilitiesDefaulted(target platform.Platform) bool {
	return c.defaulted[target.Name()]
}

// CapabilityNames is Capabilities as names ("8.0", "9.0a").
func (c *Config) CapabilityNames(cuda version.Version, target platform.Platform) []string {
	var ns []string
	for _, cp := range c.caps[cuda.String()][target.Name()] {
		ns = append(ns, cp.Name)
	}
	return ns
}

// Pin returns the pin that applies to a product for a CUDA version: one
// scoped to that CUDA version wins over an unscoped one.
func (c *Config) Pin(product string, cuda version.Version) (Pin, bool) {
	for _, p := range c.pins {
		if p.Product == product && (p.CUDA.IsZero() || cuda.HasPrefix(p.CUDA)) {
			return p, true
		}
	}
	return Pin{}, false
}

// Literal is a layer from options already in hand (a test, an embedding
// program, a parsed file): each field that is set (non-nil) overrides.
type Literal struct {
	From string
	Options
}

func (l Literal) Name() string { return l.From }

func (l Literal) Apply(o *Options) error {
	for _, opt := range Table() {
		if opt.IsSet(&l.Options) {
			opt.apply(o, &l.Options)
		}
	}
	return nil
}

// Defaults is the first layer: what a run uses when nothing is said.
type Defaults struct{}

func (Defaults) Name() string { return "defaults" }

func (Defaults) Apply(o *Options) error {
	exec := platform.LinuxX86_64.Name()
	fc := false
	o.Exec = &exec
	o.ForwardCompat = &fc
	o.Targets = []string{platform.LinuxX86_64.Name(), platform.LinuxSBSA.Name(), platform.LinuxJetson.Name()}
	return nil
}

// Evaluate merges the layers in order and validates the result against what
// the manifests offer. Errors name the option and the values it allows; an
// *OptionError also says which layer set the option last.
func Evaluate(avail Available, layers ...Layer) (*Config, error) {
	m, err := Merge(layers...)
	if err != nil {
		return nil, err
	}
	return m.Build(avail)
}

// Merged are the layers' options, with which layer set each option last.
type Merged struct {
	Options
	setBy map[string]string
	// named: per option, its name in the layer that set it last; entryBy:
	// per option and list entry, the layer (and its name for the option)
	// that gave the entry, for options whose layers add up (pins).
	named   map[string]string
	entryBy map[string]map[string][2]string
	// layers by name, for their names and positions of options.
	layers map[string]Layer
	// namer names the options nobody set: the last Namer layer.
	namer Layer
}

// Merge applies the layers in order. What a layer sets is read from what it
// writes into empty options, so a layer needs no way to report it.
func Merge(layers ...Layer) (Merged, error) {
	m := Merged{setBy: map[string]string{}, named: map[string]string{}, entryBy: map[string]map[string][2]string{}, layers: map[string]Layer{}}
	for _, l := range layers {
		var alone Options
		if err := l.Apply(&alone); err != nil {
			return Merged{}, &LayerError{Layer: l.Name(), Err: err}
		}
		m.layers[l.Name()] = l
		namer, _ := l.(Namer)
		if namer != nil {
			m.namer = l
		}
		for _, opt := range Table() {
			if !opt.IsSet(&alone) {
				continue
			}
			m.setBy[opt.Name] = l.Name()
			name := ""
			if namer != nil {
				name = namer.OptionName(opt)
			}
			m.named[opt.Name] = name
			if opt.Entries && opt.List != nil {
				if m.entryBy[opt.Name] == nil {
					m.entryBy[opt.Name] = map[string][2]string{}
				}
				for _, e := range *opt.List(&alone) {
					m.entryBy[opt.Name][e] = [2]string{l.Name(), name}
				}
			}
		}
		if err := l.Apply(&m.Options); err != nil {
			return Merged{}, &LayerError{Layer: l.Name(), Err: err}
		}
	}
	return m, nil
}

// Plugins reads the plugins option on its own: plugins start, and describe
// their products, before the rest can be validated against the manifests.
func (m Merged) Plugins() ([]Plugin, error) {
	ps, err := ParsePlugins(m.Options.Plugins)
	m.Blame(err)
	return ps, err
}

// Build validates the merged options against what the manifests offer.
func (m Merged) Build(avail Available) (*Config, error) {
	c, err := build(m.Options, avail)
	m.Blame(err)
	return c, err
}

func build(o Options, avail Available) (*Config, error) {
	c := &Config{mirrors: dedupe(o.Mirrors), localComps: dedupe(o.LocalComponents)}
	if o.LocalCUDA != nil {
		c.localCUDA = *o.LocalCUDA
	}
	if len(c.localComps) > 0 && c.localCUDA == "" {
		return nil, optionError("local_components", "", "%s: set without the root of an installed CUDA: expected %s as well", strings.Join(c.localComps, ", "), Ref("local_cuda"))
	}
	if o.ForwardCompat != nil {
		c.forwardCompat = *o.ForwardCompat
	}
	var err error
	if c.cuda, err = resolveCUDA(o.CUDA, avail); err != nil {
		return nil, err
	}
	exec := platform.LinuxX86_64.Name()
	if o.Exec != nil {
		exec = *o.Exec
	}
	if c.exec, err = platform.Parse(exec); err != nil {
		return nil, optionError("exec", "", "%w", err)
	}
	if c.exec.OS != "linux" {
		return nil, optionError("exec", "", "%s cannot run builds: expected a Linux platform (%s)", c.exec, strings.Join(linuxNames(), ", "))
	}
	if len(o.Targets) == 0 {
		return nil, optionError("targets", "", "no target platform: expected one or more of %s", strings.Join(platform.Names(), ", "))
	}
	seen := map[platform.Platform]bool{}
	for _, t := range o.Targets {
		p, err := platform.Parse(t)
		if err != nil {
			return nil, optionError("targets", "", "%w", err)
		}
		if !seen[p] {
			seen[p] = true
			c.targets = append(c.targets, p)
		}
	}
	platform.Sort(c.targets)
	if c.pins, err = parsePins(o.Pins, avail); err != nil {
		return nil, err
	}
	for _, m := range c.mirrors {
		if !strings.HasPrefix(m, "https://") && !strings.HasPrefix(m, "http://") && !strings.HasPrefix(m, "file://") {
			return nil, optionError("mirrors", "", "%q is not a URL: expected https://, http:// or file:// followed by a base with NVIDIA's layout", m)
		}
	}
	if c.plugins, err = ParsePlugins(o.Plugins); err != nil {
		return nil, err
	}
	c.explicitCaps = dedupe(o.Capabilities)
	if err := c.computeCapabilities(); err != nil {
		return nil, err
	}
	return c, nil
}

// ParsePlugins reads the plugins option ("PATH=SHA256" each): the plugins
// must start before the products they describe can validate the rest.
func ParsePlugins(raw []string) ([]Plugin, error) {
	var out []Plugin
	seen := map[string]bool{}
	for _, r := range raw {
		i := strings.LastIndex(r, "=")
		if i <= 0 {
			return nil, optionError("plugins", r, "%q: expected PATH=SHA256, the plugin program and the sha256 of its bytes", r)
		}
		p := Plugin{Path: r[:i], SHA256: strings.ToLower(r[i+1:])}
		if len(p.SHA256) != 64 || strings.Trim(p.SHA256, "0123456789abcdef") != "" {
			return nil, optionError("plugins", r, "%q: sha256 %q is not 64 hex digits", r, r[i+1:])
		}
		if seen[p.Path] {
			return nil, optionError("plugins", "", "%s is declared twice", p.Path)
		}
		seen[p.Path] = true
		out = append(out, p)
	}
	return out, nil
}

func linuxNames() []string {
	var ns []string
	for _, p := range platform.All() {
		if p.OS == "linux" {
			ns = append(ns, p.Name())
		}
	}
	return ns
}

// resolveCUDA turns requested versions into toolkit releases. A full version
// must exist; a prefix ("12.4", "12") means the newest release it matches.
func resolveCUDA(want []string, avail Available) ([]version.Version, error) {
	have := avail.Releases[avail.Toolkit]
	if len(have) == 0 {
		if rs := avail.Refused[avail.Toolkit]; len(rs) > 0 {
			return nil, optionError("cuda", "", "every CUDA toolkit manifest was refused (%d), the first because: %s", len(rs), rs[0].Reason)
		}
		return nil, optionError("cuda", "", "the manifests hold no CUDA toolkit release")
	}
	if len(want) == 0 {
		return append([]version.Version(nil), have...), nil
	}
	var out []version.Version
	seen := map[string]bool{}
	for _, w := range want {
		v, err := version.Parse(strings.TrimSpace(w))
		if err != nil {
			return nil, optionError("cuda", "", "%w", err)
		}
		var match version.Version
		for _, h := range have {
			if (v.Parts() >= 3 && h.Equal(v)) || (v.Parts() < 3 && h.HasPrefix(v)) {
				match = h // ascending: the last match is the newest
			}
		}
		if r, ok := avail.refusedMatch(avail.Toolkit, v, v.Parts() < 3); ok && match.IsZero() {
			return nil, optionError("cuda", "", "CUDA release %s cannot be used: its manifest was refused: %s", r.Release, r.Reason)
		}
		if match.IsZero() {
			return nil, optionError("cuda", "", "%w", &NoReleaseError{What: "CUDA", Release: w, Have: joinVersions(have)})
		}
		if !seen[match.String()] {
			seen[match.String()] = true
			out = append(out, match)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out, nil
}

func parsePins(raw []string, avail Available) ([]Pin, error) {
	var pins []Pin
	seen := map[string]string{}
	for _, r := range raw {
		lhs, ver, ok := strings.Cut(r, "=")
		if !ok || lhs == "" || ver == "" {
			return nil, optionError("pins", r, "%q: expected product=version or product@cuda=version, such as <product>=8.9 or <product>@12.2=8.9", r)
		}
		p := Pin{Product: lhs}
		if prod, cuda, scoped := strings.Cut(lhs, "@"); scoped {
			p.Product = prod
			cv, err := version.Parse(cuda)
			if err != nil {
				return nil, optionError("pins", r, "%q: CUDA version: %w", r, err)
			}
			p.CUDA = cv
		}
		if p.Product == avail.Toolkit {
			return nil, optionError("pins", r, "%q: the %s toolkit is chosen with %s, not pinned", r, avail.Toolkit, Ref("cuda"))
		}
		releases, ok := avail.Releases[p.Product]
		if !ok {
			var ps []string
			for name := range avail.Releases {
				if name != avail.Toolkit {
					ps = append(ps, name)
				}
			}
			sort.Strings(ps)
			return nil, optionError("pins", r, "%q: unknown product %q: expected one of %s", r, p.Product, strings.Join(ps, ", "))
		}
		v, err := version.Parse(ver)
		if err != nil {
			return nil, optionError("pins", r, "%q: %w", r, err)
		}
		p.Version = v
		found := false
		for _, rel := range releases {
			found = found || rel.HasPrefix(v)
		}
		if !found {
			if rr, ok := avail.refusedMatch(p.Product, v, true); ok {
				return nil, optionError("pins", r, "%q: %s release %s cannot be used: its manifest was refused: %s", r, p.Product, rr.Release, rr.Reason)
			}
			return nil, optionError("pins", r, "%q: %w", r, &NoReleaseError{What: p.Product, Release: ver, Have: joinVersions(releases)})
		}
		key := p.Product + "@" + p.CUDA.String()
		if prev, dup := seen[key]; dup && prev != p.String() {
			return nil, optionError("pins", r, "%s and %s pin the same product and CUDA version differently", prev, p)
		}
		seen[key] = p.String()
		pins = append(pins, p)
	}
	// Scoped pins first, longer scopes before shorter, so Pin finds the most
	// specific one.
	sort.SliceStable(pins, func(i, j int) bool { return pins[i].CUDA.Parts() > pins[j].CUDA.Parts() })
	return pins, nil
}

// computeCapabilities fixes, for every CUDA version and target, the GPU
// capabilities built. Explicit capabilities are split by kind: Jetson ones go
// to the Jetson target, the others to the rest; a target left with none gets
// its CUDA version's defaults (for Jetson, those that CUDA version has a
// Jetson build for). Every explicit capability must exist in every
// CUDA version built, so a build never silently drops one.
func (c *Config) computeCapabilities() error {
	var explicit []gpu.Capability
	for _, name := range c.explicitCaps {
		cp, err := gpu.Lookup(name)
		if err != nil {
			return optionError("capabilities", "", "%w", err)
		}
		explicit = append(explicit, cp)
	}
	c.caps = map[string]map[string][]gpu.Capability{}
	c.defaulted = map[string]bool{}
	for _, t := range c.targets {
		c.defaulted[t.Name()] = !slices.ContainsFunc(explicit, func(cp gpu.Capability) bool { return cp.Jetson == t.Jetson() })
	}
	for _, cuda := range c.cuda {
		for _, cp := range explicit {
			if _, err := gpu.Check(cp.Name, cuda); err != nil {
				return optionError("capabilities", "", "%w (choose CUDA versions in that range with %s, or drop the capability)", err, Ref("cuda"))
			}
		}
		per := map[string][]gpu.Capability{}
		for _, t := range c.targets {
			var caps []gpu.Capability
			for _, cp := range explicit {
				if cp.Jetson == t.Jetson() {
					caps = append(caps, cp)
				}
			}
			if c.defaulted[t.Name()] {
				for _, cp := range gpu.Defaults(cuda, t.Jetson()) {
					if !t.Jetson() || platform.JetsonServed(cuda, cp.Name) {
						caps = append(caps, cp)
					}
				}
			}
			per[t.Name()] = caps
		}
		c.caps[cuda.String()] = per
	}
	return nil
}

func dedupe(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func joinVersions(vs []version.Version) string {
	var ss []string
	for _, v := range vs {
		ss = append(ss, v.String())
	}
	return strings.Join(ss, ", ")
}
