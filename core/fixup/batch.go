package fixup

import (
	"sort"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Batches splits a package set into one batch per product, in product name
// order: the unit a plugin is called with.
func Batches(cfg *config.Config, s *pkgset.Set) []*sdk.Batch {
	sc := sdkConfig(cfg, s)
	var all []sdk.SetPackage
	byProduct := map[string]*sdk.Batch{}
	for _, p := range s.Packages {
		sp := sdk.SetPackage{Name: p.Name, Manifest: p.Manifest, Product: p.Product, Release: p.Release.String(), Version: p.Version.String()}
		all = append(all, sp)
		if p.Release.IsZero() || p.Broken {
			// A product with no release for this CUDA version (none serves
			// it, or a pin matches none): its packages keep their place with
			// the set's no_release reason, and there is nothing for a plugin
			// to judge. Sending them would hand the plugin an empty release.
			// A broken manifest entry has no archive and maybe no version.
			continue
		}
		b, ok := byProduct[p.Product]
		if !ok {
			b = &sdk.Batch{CUDA: s.CUDA.String(), Product: p.Product, Config: sc}
			byProduct[p.Product] = b
		}
		b.Packages = append(b.Packages, sdkPackage(p))
	}
	var out []*sdk.Batch
	for _, b := range byProduct {
		b.SetPackages = all
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Product < out[j].Product })
	return out
}

func sdkConfig(cfg *config.Config, s *pkgset.Set) sdk.Config {
	c := sdk.Config{ForwardCompat: cfg.ForwardCompat(), Exec: cfg.Exec().Name(), Capabilities: map[string][]string{}}
	for _, v := range cfg.CUDA() {
		c.CUDAVersions = append(c.CUDAVersions, v.String())
	}
	for _, t := range cfg.Targets() {
		c.Targets = append(c.Targets, t.Name())
		c.Capabilities[t.Name()] = cfg.CapabilityNames(s.CUDA, t)
		for _, name := range c.Capabilities[t.Name()] {
			if g, err := gpu.Lookup(name); err == nil {
				if c.Architectures == nil {
					c.Architectures = map[string]string{}
				}
				c.Architectures[name] = g.Arch
			}
		}
		if cfg.CapabilitiesDefaulted(t) {
			c.DefaultCapabilityTargets = append(c.DefaultCapabilityTargets, t.Name())
		}
	}
	return c
}

func sdkPackage(p *pkgset.Package) sdk.Package {
	out := sdk.Package{Name: p.Name, Manifest: p.Manifest, Product: p.Product, Release: p.Release.String(),
		Version: p.Version.String(), Unavailable: map[string][]string{}}
	for name, a := range p.Platforms {
		out.Archives = append(out.Archives, sdk.Archive{Platform: name, Key: a.Key, Variant: a.Variant, RelativePath: a.RelativePath, SHA256: a.SHA256})
	}
	sort.Slice(out.Archives, func(i, j int) bool { return out.Archives[i].Platform < out.Archives[j].Platform })
	for name, r := range p.Unavailable {
		out.Unavailable[name] = append([]string(nil), r...)
	}
	return out
}
