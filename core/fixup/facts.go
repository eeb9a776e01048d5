package fixup

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/pyindex"
	"github.com/cudapkgs/cudapkgs/core/splice"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// This file is the protocol's one boundary for product facts: what a plugin
// says about its products is checked and turned into the core's types here,
// once, at Describe. Nothing else in the core reads sdk.ProductFacts.

// hintKinds are the ways an installed toolkit states a version that a
// plugin's local hint may name (core/localcuda reads each).
var hintKinds = []string{"define", "json", "name", "text"}

// Toolkit is what the toolkit product's plugin says beyond its files: the
// nvcc toolchain and how to read an installed toolkit.
type Toolkit struct {
	Product       string
	Toolchain     splice.Toolchain
	LocalHints    []localcuda.Hint
	LocalIdentify []string
}

// Products are the products the plugins describe, in the core's types: the
// toolkit first, the others by name (so output does not depend on the order
// plugins start in), and what the toolkit's plugin says of it.
type Products struct {
	List    []pkgset.Product
	Toolkit Toolkit
}

// described is one product as one plugin describes it, checked and
// converted.
type described struct {
	product pkgset.Product
	toolkit Toolkit // the toolkit product's only
	// platforms the plugin describes the product on; nil: all (see
	// notSupported).
	platforms []string
}

// convertFacts checks what a plugin says about its products and converts
// it, so that a bad answer is refused at Describe, naming the plugin, rather
// than failing later in a URL or a folder name.
func convertFacts(d sdk.Description) ([]described, error) {
	seen := map[string]bool{}
	var out []described
	for _, f := range d.Facts {
		if !slices.Contains(d.Products, f.Product) {
			return nil, fmt.Errorf("facts of product %q: not among its products (%s)", f.Product, strings.Join(d.Products, ", "))
		}
		if seen[f.Product] {
			return nil, fmt.Errorf("facts of product %q: given twice", f.Product)
		}
		seen[f.Product] = true
		p, err := convertFact(f)
		if err != nil {
			return nil, fmt.Errorf("facts of product %q: %w", f.Product, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func convertFact(f sdk.ProductFacts) (described, error) {
	p := pkgset.Product{Name: f.Product, Toolkit: f.Toolkit, Unlisted: f.Unlisted, Base: f.Base, Path: f.Path}
	for _, w := range f.Wheels {
		ps, err := convertWheels(w)
		if err != nil {
			return described{}, fmt.Errorf("wheels %q: %v", w.Project, err)
		}
		p.Wheels = append(p.Wheels, ps...)
	}
	// A wheel-only product's archives carry their own URLs: it has no
	// NVIDIA folder to locate.
	wheelOnly := len(f.Wheels) > 0 && f.Base == "" && f.Path == ""
	if !wheelOnly && !strings.HasPrefix(f.Base, "https://") && !strings.HasPrefix(f.Base, "http://") && !strings.HasPrefix(f.Base, "file://") {
		return described{}, fmt.Errorf("base %q: expected an https://, http:// or file:// URL", f.Base)
	}
	if q := strings.Trim(f.Path, "/"); !wheelOnly && (q == "" || path.Clean(q) != q || q == ".." || strings.HasPrefix(q, "../") || strings.ContainsAny(q, "?#\\ ")) {
		return described{}, fmt.Errorf("path %q: expected a relative URL path such as compute/<product>/redist", f.Path)
	}
	if f.NoCUDA && (f.Toolkit || len(f.FlatCUDA) > 0) {
		// Either the product's releases serve every CUDA version or the
		// ranges say which: both at once leaves the sets guessing.
		return described{}, fmt.Errorf("no CUDA: expected neither a toolkit nor flat CUDA ranges with it")
	}
	p.NoCUDA = f.NoCUDA
	if len(f.FlatCUDA) > 0 {
		var rs []flatRange
		for _, fc := range f.FlatCUDA {
			r, err := convertFlatCUDA(fc)
			if err != nil {
				return described{}, fmt.Errorf("flat CUDA range %s..%s: %v", fc.From, fc.Below, err)
			}
			rs = append(rs, r)
		}
		p.FlatCUDA = flatCUDA(rs)
	}
	if rest := strings.ReplaceAll(f.StripPrefix, "{version}", ""); strings.ContainsAny(rest, "{}/\\") || rest == "." || rest == ".." {
		return described{}, fmt.Errorf("strip prefix %q: expected a folder name, with {version} for the package's version", f.StripPrefix)
	}
	if tpl := f.StripPrefix; tpl != "" {
		p.StripPrefix = func(pkg *manifest.Package, _ manifest.Archive) string {
			return strings.ReplaceAll(tpl, "{version}", pkg.Version.String())
		}
	}
	out := described{product: p}
	for _, name := range f.Platforms {
		pl, err := platform.Parse(name)
		if err != nil || pl.Name() != name {
			return described{}, fmt.Errorf("platform %q: expected one of %s", name, strings.Join(platform.Names(), ", "))
		}
		out.platforms = append(out.platforms, name)
	}
	if f.Toolchain != nil && !f.Toolkit {
		return described{}, fmt.Errorf("a toolchain is the toolkit product's only")
	}
	for _, h := range f.LocalHints {
		if h.Component == "" || h.Rel == "" || h.Key == "" || !slices.Contains(hintKinds, h.Kind) {
			return described{}, fmt.Errorf("local hint %+v: expected a component, a relative path, a key and a kind of %s", h, strings.Join(hintKinds, ", "))
		}
	}
	if !f.Toolkit {
		return out, nil
	}
	out.toolkit = Toolkit{Product: f.Product, LocalIdentify: slices.Clone(f.LocalIdentify)}
	for _, h := range f.LocalHints {
		out.toolkit.LocalHints = append(out.toolkit.LocalHints, localcuda.Hint{Component: h.Component, Rel: h.Rel, Kind: h.Kind, Key: h.Key})
	}
	if f.Toolchain != nil {
		tc, err := convertToolchain(*f.Toolchain)
		if err != nil {
			return described{}, fmt.Errorf("toolchain: %v", err)
		}
		out.toolkit.Toolchain = tc
	}
	return out, nil
}

// convertWheels checks one sdk.WheelProject and gives a project per CUDA
// major.
func convertWheels(w sdk.WheelProject) ([]pyindex.Project, error) {
	if len(w.CUDAMajors) == 0 {
		return nil, fmt.Errorf("no CUDA majors: expected the majors that have a project, such as [\"12\", \"13\"]")
	}
	if len(w.CUDAMajors) > 1 && !strings.Contains(w.Project, "{major}") {
		return nil, fmt.Errorf("%d CUDA majors but no {major} in the project name: expected a name such as \"nvidia-nccl-cu{major}\"", len(w.CUDAMajors))
	}
	if err := manifest.CheckPackageName(w.Package); err != nil {
		return nil, fmt.Errorf("package: %v", err)
	}
	if q := w.Prefix; q != "" && (path.Clean(q) != q || q == ".." || strings.HasPrefix(q, "../") || strings.HasPrefix(q, "/") || strings.ContainsAny(q, "?#\\ ")) {
		return nil, fmt.Errorf("prefix %q: expected a folder inside the wheel such as \"nvidia/nccl\"", q)
	}
	var out []pyindex.Project
	seen := map[string]bool{}
	for _, m := range w.CUDAMajors {
		if v, err := version.Parse(m); err != nil || v.Parts() != 1 {
			return nil, fmt.Errorf("CUDA major %q: expected a number such as \"12\"", m)
		}
		if seen[m] {
			return nil, fmt.Errorf("CUDA major %s given twice", m)
		}
		seen[m] = true
		name := strings.ReplaceAll(w.Project, "{major}", m)
		for _, c := range name {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
				return nil, fmt.Errorf("project name %q: expected letters, digits, '-', '_' and '.' (PEP 508)", name)
			}
		}
		out = append(out, pyindex.Project{Name: name, CUDAMajor: m, Package: w.Package, Prefix: w.Prefix})
	}
	return out, nil
}

// flatRange is a parsed sdk.FlatCUDA.
type flatRange struct {
	from, below version.Version // below zero: no bound
	cuda        []version.Version
}

func convertFlatCUDA(fc sdk.FlatCUDA) (flatRange, error) {
	var r flatRange
	var err error
	if r.from, err = version.Parse(fc.From); err != nil {
		return r, fmt.Errorf("from: %w", err)
	}
	if fc.Below != "" {
		if r.below, err = version.Parse(fc.Below); err != nil {
			return r, fmt.Errorf("below: %w", err)
		}
		if !r.from.Less(r.below) {
			return r, fmt.Errorf("empty: from is not below below")
		}
	}
	if len(fc.CUDA) == 0 {
		return r, fmt.Errorf("no CUDA versions")
	}
	for _, c := range fc.CUDA {
		v, err := version.Parse(c)
		if err != nil {
			return r, fmt.Errorf("CUDA version: %w", err)
		}
		r.cuda = append(r.cuda, v)
	}
	return r, nil
}

// flatCUDA is pkgset.Product.FlatCUDA for the ranges: the CUDA versions of
// the first range that holds the release.
func flatCUDA(rs []flatRange) func(version.Version) []version.Version {
	return func(release version.Version) []version.Version {
		for _, r := range rs {
			if !release.Less(r.from) && (r.below.IsZero() || release.Less(r.below)) {
				return slices.Clone(r.cuda)
			}
		}
		return nil
	}
}

func convertToolchain(t sdk.Toolchain) (splice.Toolchain, error) {
	if t.Compiler == "" || t.Runtime == "" || len(t.Headers) == 0 {
		return splice.Toolchain{}, fmt.Errorf("expected a compiler, a runtime and header packages")
	}
	headers, err := byVersion("headers", t.Headers)
	if err != nil {
		return splice.Toolchain{}, err
	}
	clang, err := byVersion("clang headers", t.ClangHeaders)
	if err != nil {
		return splice.Toolchain{}, err
	}
	return splice.Toolchain{Compiler: t.Compiler, Runtime: t.Runtime, Headers: headers, ClangHeaders: clang}, nil
}

// byVersion checks header lists with a Since (only the first may have none;
// each after the one before) and turns them into the function of the CUDA
// version that picks the last applicable one.
func byVersion(what string, list []sdk.ToolchainHeaders) (func(version.Version) []string, error) {
	type since struct {
		from     version.Version
		packages []string
	}
	var hs []since
	for i, h := range list {
		if len(h.Packages) == 0 {
			return nil, fmt.Errorf("%s since %q: no packages", what, h.Since)
		}
		s := since{packages: slices.Clone(h.Packages)}
		if h.Since == "" {
			if i > 0 {
				return nil, fmt.Errorf("%s: only the first entry may have no since", what)
			}
		} else {
			v, err := version.Parse(h.Since)
			if err != nil {
				return nil, fmt.Errorf("%s since: %w", what, err)
			}
			if i > 0 && !hs[i-1].from.IsZero() && !hs[i-1].from.Less(v) {
				return nil, fmt.Errorf("%s: since %s is not after %s", what, v, hs[i-1].from)
			}
			s.from = v
		}
		hs = append(hs, s)
	}
	return func(cuda version.Version) []string {
		var out []string
		for _, h := range hs {
			if h.from.IsZero() || !cuda.Less(h.from) {
				out = h.packages
			}
		}
		return slices.Clone(out)
	}, nil
}

// Products are the products the running plugins describe, each from the
// plugin that serves it: a declared plugin that takes over a built-in
// product and gives no facts for it keeps the built-in's.
func (h *Host) Products() (Products, error) {
	byProduct := map[string]described{}
	from := map[string]*running{}
	for _, r := range h.plugins {
		for _, p := range r.products {
			name := p.product.Name
			if prev, ok := from[name]; ok && (h.byProduct[name] != r || prev == r) {
				continue
			}
			byProduct[name], from[name] = p, r
		}
	}
	return collect(byProduct, func(product string) string { return from[product].desc.Name })
}

// ProductsOf checks and converts the products some plugins describe without
// starting them (the built-ins, in process, for tools and tests), as a run's
// host does: a product described twice is the later description's.
func ProductsOf(ds ...sdk.Description) (Products, error) {
	byProduct := map[string]described{}
	from := map[string]string{}
	for _, d := range ds {
		if err := checkDescription(d); err != nil {
			return Products{}, fmt.Errorf("plugin %s: %w", quote(d.Name), err)
		}
		ps, err := convertFacts(d)
		if err != nil {
			return Products{}, fmt.Errorf("plugin %s: %w", d.Name, err)
		}
		for _, p := range ps {
			byProduct[p.product.Name], from[p.product.Name] = p, d.Name
		}
	}
	return collect(byProduct, func(product string) string { return from[product] })
}

// collect orders the products, the toolkit first and the others by name,
// and is the one place that holds the rule that exactly one product is the
// toolkit: its releases are the CUDA versions every set is built for.
// pluginOf names the plugin that describes a product, for the message.
func collect(byProduct map[string]described, pluginOf func(product string) string) (Products, error) {
	var out Products
	toolkit := ""
	for _, name := range sortedKeys(byProduct) {
		p := byProduct[name]
		if !p.product.Toolkit {
			out.List = append(out.List, p.product)
			continue
		}
		if toolkit != "" {
			return Products{}, fmt.Errorf("plugins %s and %s both describe the toolkit (products %s and %s): expected one", pluginOf(toolkit), pluginOf(name), toolkit, name)
		}
		toolkit = name
		out.List = append([]pkgset.Product{p.product}, out.List...)
		out.Toolkit = p.toolkit
	}
	if toolkit == "" {
		return Products{}, fmt.Errorf("no plugin describes the toolkit (the product whose releases are the CUDA versions; products: %s): expected one", strings.Join(sortedKeys(byProduct), ", "))
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
