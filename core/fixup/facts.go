package fixup

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// hintKinds are the ways an installed toolkit states a version that a
// plugin's local hint may name (core/localcuda reads each).
var hintKinds = []string{"define", "json", "name", "text"}

// checkFacts validates what a plugin says about its products, so that a
// bad answer is refused at Describe, naming the plugin, rather than failing
// later in a URL or a folder name.
func checkFacts(d sdk.Description) error {
	seen := map[string]bool{}
	for _, f := range d.Facts {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("facts of product %q: %s", f.Product, fmt.Sprintf(format, args...))
		}
		if !slices.Contains(d.Products, f.Product) {
			return bad("not among its products (%s)", strings.Join(d.Products, ", "))
		}
		if seen[f.Product] {
			return bad("given twice")
		}
		seen[f.Product] = true
		if !strings.HasPrefix(f.Base, "https://") && !strings.HasPrefix(f.Base, "http://") && !strings.HasPrefix(f.Base, "file://") {
			return bad("base %q: expected an https://, http:// or file:// URL", f.Base)
		}
		if p := strings.Trim(f.Path, "/"); p == "" || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.ContainsAny(p, "?#\\ ") {
			return bad("path %q: expected a relative URL path such as compute/<product>/redist", f.Path)
		}
		for _, fc := range f.FlatCUDA {
			if err := checkFlatCUDA(fc); err != nil {
				return bad("flat CUDA range %s..%s: %v", fc.From, fc.Below, err)
			}
		}
		if rest := strings.ReplaceAll(f.StripPrefix, "{version}", ""); strings.ContainsAny(rest, "{}/\\") || rest == "." || rest == ".." {
			return bad("strip prefix %q: expected a folder name, with {version} for the package's version", f.StripPrefix)
		}
		if f.Toolchain != nil {
			if !f.Toolkit {
				return bad("a toolchain is the toolkit product's only")
			}
			if err := checkToolchain(*f.Toolchain); err != nil {
				return bad("toolchain: %v", err)
			}
		}
		for _, h := range f.LocalHints {
			if h.Component == "" || h.Rel == "" || h.Key == "" || !slices.Contains(hintKinds, h.Kind) {
				return bad("local hint %+v: expected a component, a relative path, a key and a kind of %s", h, strings.Join(hintKinds, ", "))
			}
		}
	}
	return nil
}

func checkFlatCUDA(fc sdk.FlatCUDA) error {
	from, err := version.Parse(fc.From)
	if err != nil {
		return fmt.Errorf("from: %w", err)
	}
	if fc.Below != "" {
		below, err := version.Parse(fc.Below)
		if err != nil {
			return fmt.Errorf("below: %w", err)
		}
		if !from.Less(below) {
			return fmt.Errorf("empty: from is not below below")
		}
	}
	if len(fc.CUDA) == 0 {
		return fmt.Errorf("no CUDA versions")
	}
	for _, c := range fc.CUDA {
		if _, err := version.Parse(c); err != nil {
			return fmt.Errorf("CUDA version: %w", err)
		}
	}
	return nil
}

func checkToolchain(t sdk.Toolchain) error {
	if t.Compiler == "" || t.Runtime == "" || len(t.Headers) == 0 {
		return fmt.Errorf("expected a compiler, a runtime and header packages")
	}
	var prev version.Version
	for i, h := range t.Headers {
		if len(h.Packages) == 0 {
			return fmt.Errorf("headers since %q: no packages", h.Since)
		}
		if h.Since == "" {
			if i > 0 {
				return fmt.Errorf("headers: only the first entry may have no since")
			}
			continue
		}
		v, err := version.Parse(h.Since)
		if err != nil {
			return fmt.Errorf("headers since: %w", err)
		}
		if i > 0 && !prev.IsZero() && !prev.Less(v) {
			return fmt.Errorf("headers: since %s is not after %s", v, prev)
		}
		prev = v
	}
	return nil
}

// Facts are the products the running plugins describe, each from the
// plugin that serves it: a declared plugin that takes over a built-in
// product and gives no facts for it keeps the built-in's. The toolkit comes
// first, the others by name, so output does not depend on plugin order.
func (h *Host) Facts() ([]sdk.ProductFacts, error) {
	byProduct := map[string]sdk.ProductFacts{}
	from := map[string]*running{}
	for _, r := range h.plugins {
		for _, f := range r.desc.Facts {
			if prev, ok := from[f.Product]; ok && (h.byProduct[f.Product] != r || prev == r) {
				continue
			}
			byProduct[f.Product], from[f.Product] = f, r
		}
	}
	var out []sdk.ProductFacts
	toolkit := ""
	for _, name := range sortedKeys(byProduct) {
		f := byProduct[name]
		if f.Toolkit {
			if toolkit != "" {
				return nil, fmt.Errorf("plugins %s and %s both describe the toolkit (products %s and %s): expected one", from[toolkit].desc.Name, from[name].desc.Name, toolkit, name)
			}
			toolkit = name
			out = append([]sdk.ProductFacts{f}, out...)
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
