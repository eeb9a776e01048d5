package pkgset

import (
	"fmt"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// FromFacts makes the products the plugins describe, in their order. The
// host has checked the facts at Describe; an error here is one it let by.
func FromFacts(facts []sdk.ProductFacts) ([]Product, error) {
	var out []Product
	for _, f := range facts {
		p := Product{Name: f.Product, Toolkit: f.Toolkit, Unlisted: f.Unlisted, Base: f.Base, Path: f.Path}
		if len(f.FlatCUDA) > 0 {
			flat, err := flatCUDA(f.FlatCUDA)
			if err != nil {
				return nil, fmt.Errorf("product %s: %w", f.Product, err)
			}
			p.FlatCUDA = flat
		}
		if tpl := f.StripPrefix; tpl != "" {
			p.StripPrefix = func(pkg *manifest.Package, _ manifest.Archive) string {
				return strings.ReplaceAll(tpl, "{version}", pkg.Version.String())
			}
		}
		out = append(out, p)
	}
	return out, nil
}

type flatRange struct {
	from, below version.Version // below zero: no bound
	cuda        []version.Version
}

func flatCUDA(fs []sdk.FlatCUDA) (func(version.Version) []version.Version, error) {
	var rs []flatRange
	for _, f := range fs {
		var r flatRange
		var err error
		if r.from, err = version.Parse(f.From); err != nil {
			return nil, fmt.Errorf("flat CUDA from: %w", err)
		}
		if f.Below != "" {
			if r.below, err = version.Parse(f.Below); err != nil {
				return nil, fmt.Errorf("flat CUDA below: %w", err)
			}
		}
		for _, c := range f.CUDA {
			v, err := version.Parse(c)
			if err != nil {
				return nil, fmt.Errorf("flat CUDA version: %w", err)
			}
			r.cuda = append(r.cuda, v)
		}
		rs = append(rs, r)
	}
	return func(release version.Version) []version.Version {
		for _, r := range rs {
			if !release.Less(r.from) && (r.below.IsZero() || release.Less(r.below)) {
				return append([]version.Version(nil), r.cuda...)
			}
		}
		return nil
	}, nil
}
