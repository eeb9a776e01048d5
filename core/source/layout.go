package source

import (
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// DefaultBase is NVIDIA's download server.
const DefaultBase = "https://developer.download.nvidia.com"

// Sources says where manifests are downloaded from.
type Sources struct {
	// Mirrors are base URLs laid out like NVIDIA's server. They are tried in
	// the order given, before Base: a mirror is something the user chose
	// (a closer or internal copy, a server that works offline), NVIDIA's
	// server is the fallback. The lock file pins the bytes, so a mirror cannot
	// change a locked manifest unnoticed.
	Mirrors []string
	// Base replaces every product's own base when set (a test server);
	// mirrors come before it either way.
	Base string
	// Layouts say, per product, where its plugin says the manifests are:
	// the product's base and the path below it and below each mirror.
	// Product knowledge, so the caller says.
	Layouts map[string]Layout
	// ProductURLs maps a product to the folder URL holding its
	// redistrib_<version>.json files. It replaces the layout (mirrors and base)
	// for that product.
	ProductURLs map[string]string
	// Unlisted are products NVIDIA publishes no manifests for:
	// they are fetched only from a product URL. Which products those are is
	// product knowledge, so the caller says.
	Unlisted []string
}

// Layout locates a product's manifests: Base + "/" + Path + "/".
type Layout struct{ Base, Path string }

// UnknownProductError is a product no plugin describes and no product URL
// locates.
type UnknownProductError struct{ Product string }

func (e *UnknownProductError) Error() string {
	return fmt.Sprintf("%s: no plugin describes where its manifests are published; give the folder that holds its redistrib_<version>.json files as a product URL (%s=<folder URL>)", e.Product, e.Product)
}

// NoProductURLError is a product that has no NVIDIA manifests and no product
// URL.
type NoProductURLError struct{ Product string }

func (e *NoProductURLError) Error() string {
	return fmt.Sprintf("%s: NVIDIA publishes no redistrib manifests for %s; give the folder that holds its redistrib_<version>.json files as a product URL (%s=<folder URL>)", e.Product, e.Product, e.Product)
}

// Validate checks every URL of s.
func (s Sources) Validate() error {
	for _, m := range s.Mirrors {
		if err := checkURL(m); err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
	}
	if s.Base != "" {
		if err := checkURL(s.Base); err != nil {
			return fmt.Errorf("base: %w", err)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(s.ProductURLs)) {
		if err := CheckProduct(p); err != nil {
			return fmt.Errorf("product URL: %w", err)
		}
		if err := checkURL(s.ProductURLs[p]); err != nil {
			return fmt.Errorf("product URL for %s: %w", p, err)
		}
	}
	return nil
}

// Folders returns the folder URLs (each ending in "/") that may hold the
// product's manifests, in the order they are tried: the product URL alone
// when there is one, otherwise each mirror in order and then the base.
func (s Sources) Folders(product string) ([]string, error) {
	if err := CheckProduct(product); err != nil {
		return nil, err
	}
	if u, ok := s.ProductURLs[product]; ok {
		return []string{strings.TrimRight(u, "/") + "/"}, nil
	}
	if slices.Contains(s.Unlisted, product) {
		return nil, &NoProductURLError{Product: product}
	}
	l, ok := s.Layouts[product]
	if !ok {
		return nil, &UnknownProductError{Product: product}
	}
	base := s.Base
	if base == "" {
		base = l.Base
	}
	var out []string
	for _, b := range append(append([]string(nil), s.Mirrors...), base) {
		out = append(out, strings.TrimRight(b, "/")+"/"+strings.Trim(l.Path, "/")+"/")
	}
	return out, nil
}

// ManifestURLs returns the URLs of one manifest, in the order they are tried.
func (s Sources) ManifestURLs(product, release string) ([]string, error) {
	if _, err := version.Parse(release); err != nil {
		return nil, fmt.Errorf("%s release: %w", product, err)
	}
	folders, err := s.Folders(product)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(folders))
	for i, f := range folders {
		out[i] = f + manifest.FileName(release)
	}
	return out, nil
}

// CheckProduct checks a product name: lower-case letters, digits, '-' and
// '_', starting with a letter or digit (it becomes a folder name and a URL
// path element).
func CheckProduct(p string) error {
	if p == "" {
		return fmt.Errorf("empty product name")
	}
	for i, c := range p {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || i > 0 && (c == '-' || c == '_')) {
			return fmt.Errorf("product %q: expected lower-case letters, digits, '-' and '_', such as \"cuda\"", p)
		}
	}
	return nil
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%q: expected an absolute http or https URL such as %q", s, DefaultBase)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q: expected a folder URL without query or fragment", s)
	}
	return nil
}

// Key is a manifest's name in a lock file and its path in a manifests folder
// (with forward slashes): "cuda/redistrib_12.4.1.json".
func Key(product, release string) string { return product + "/" + manifest.FileName(release) }

// SplitKey is the inverse of Key; it checks the product and the release.
func SplitKey(key string) (product, release string, err error) {
	product, file, ok := strings.Cut(key, "/")
	if !ok || path.Base(key) != file {
		return "", "", fmt.Errorf("%q: expected <product>/redistrib_<version>.json, such as \"cuda/redistrib_12.4.1.json\"", key)
	}
	if err := CheckProduct(product); err != nil {
		return "", "", fmt.Errorf("%q: %w", key, err)
	}
	release, ok = manifest.ReleaseFromFileName(file)
	if !ok {
		return "", "", fmt.Errorf("%q: expected <product>/redistrib_<version>.json, such as \"cuda/redistrib_12.4.1.json\"", key)
	}
	if _, err := version.Parse(release); err != nil {
		return "", "", fmt.Errorf("%q: %w", key, err)
	}
	return product, release, nil
}
