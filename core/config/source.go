package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The sources a product's manifests can come from: NVIDIA's redist tree
// (or a folder, a mirror), or a Python package index's wheels turned into
// manifests of the same shape (docs/wheels.md).
const (
	SourceNVIDIA = "nvidia"
	SourceWheels = "wheels"
)

// ParseSources reads the sources option's entries ("<product>=wheels")
// against the sources each product offers (offered[product]: the first is
// its default) and returns the source of every product that offers more
// than one, the default where no entry names it. An entry for an unknown
// product, an unknown source, a source the product does not offer, or a
// product named twice is an *OptionError naming the entry.
func ParseSources(raw []string, offered map[string][]string) (map[string]string, error) {
	out := map[string]string{}
	named := map[string]bool{}
	for _, r := range raw {
		p, s, ok := strings.Cut(r, "=")
		if !ok || p == "" || s == "" {
			return nil, optionError("sources", r, "%q: expected product=source, such as <product>=%s", r, SourceWheels)
		}
		if s != SourceNVIDIA && s != SourceWheels {
			return nil, optionError("sources", r, "%q: unknown source %q: expected %s (NVIDIA's manifests) or %s (a Python package index)", r, s, SourceNVIDIA, SourceWheels)
		}
		has, known := offered[p]
		if !known {
			return nil, optionError("sources", r, "%q: unknown product %q: expected one of %s", r, p, strings.Join(slices.Sorted(maps.Keys(offered)), ", "))
		}
		if !slices.Contains(has, s) {
			return nil, optionError("sources", r, "%q: %s comes from %s only", r, p, strings.Join(has, ", "))
		}
		if named[p] {
			return nil, optionError("sources", r, "%q: %s is given a source twice", r, p)
		}
		named[p] = true
		out[p] = s
	}
	for p, has := range offered {
		if _, ok := out[p]; !ok && len(has) > 1 {
			out[p] = has[0]
		}
	}
	return out, nil
}

// Sources are ParseSources of the merged options, blamed on the layer that
// set them.
func (m Merged) Sources(offered map[string][]string) (map[string]string, error) {
	s, err := ParseSources(m.Options.Sources, offered)
	m.Blame(err)
	return s, err
}

// CheckSourceEntry is the grammar of one entry, for layers that check
// before the products are known (the Starlark builtin).
func CheckSourceEntry(r string) error {
	p, s, ok := strings.Cut(r, "=")
	if !ok || p == "" || (s != SourceNVIDIA && s != SourceWheels) {
		return fmt.Errorf("%q: expected product=%s or product=%s", r, SourceNVIDIA, SourceWheels)
	}
	return nil
}
