// Package manifest reads NVIDIA's redistributable manifests
// (redistrib_<version>.json).
//
// NVIDIA's next release is data, not an error: new platform keys, variant
// keys and fields are warnings, and a package entry this cudapkgs cannot read
// keeps its place with its Problems while the rest of the file is used. A
// manifest is refused whole only for what threatens integrity (invalid JSON,
// a bad sha256, md5 or size, a path that escapes, a file that is not what its
// name says); LoadDir then still serves every other file. Errors name the file,
// the JSON path of the bad key (and a line:column for it) and what was
// expected. docs/manifests.md has the table.
package manifest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
)

// Platform keys NVIDIA uses in manifests.
const (
	LinuxX86_64   = "linux-x86_64"
	LinuxSBSA     = "linux-sbsa"
	LinuxAarch64  = "linux-aarch64"
	LinuxPPC64LE  = "linux-ppc64le"
	WindowsX86_64 = "windows-x86_64"
	// WindowsARM64 is new in CUDA 13.4. It is read and kept, so that the
	// 13.4 manifests load without a warning per package; no target platform
	// serves it yet (docs/manifests.md).
	WindowsARM64 = "windows-arm64"
	LinuxAll     = "linux-all"
	Source       = "source"
)

// PlatformKeys lists every platform key a manifest may hold, in a fixed order.
func PlatformKeys() []string {
	return []string{LinuxX86_64, LinuxSBSA, LinuxAarch64, LinuxPPC64LE, WindowsX86_64, WindowsARM64, LinuxAll, Source}
}

// IsPlatformKey reports whether k is a known platform key.
func IsPlatformKey(k string) bool {
	for _, p := range PlatformKeys() {
		if p == k {
			return true
		}
	}
	return false
}

// Manifest is one parsed redistrib_<version>.json.
type Manifest struct {
	// File is the path the manifest was read from (or its URL).
	File string
	// Product is the folder's product name (the folder holding the file), checked against
	// release_product when the manifest has one.
	Product string
	// Release is the release version from the file name, checked against
	// release_label when present (older CUDA manifests have neither label nor
	// product).
	Release version.Version
	// Date is release_date as written.
	Date string
	// SHA256 is the hex sha256 of the manifest's bytes.
	SHA256 string
	// Packages sorted by name.
	Packages []Package
	// Warnings are tolerated oddities (unknown platform keys).
	Warnings []Warning
}

// Package is one top-level package object of a manifest.
type Package struct {
	Name        string // the JSON key, e.g. "libfoo"
	DisplayName string // "name"
	License     string
	LicensePath string
	Version     version.Version
	// Variants is cuda_variant as written ("11", "12"); empty for products
	// whose archives are not split by CUDA major.
	Variants []string
	// Archives sorted by platform key order, then variant.
	Archives []Archive
	// Problems say why the entry cannot be used at all ("$.p.version:
	// ..."): it keeps its place, with no archives. Empty for usable entries.
	Problems []string
}

// Archive is one downloadable file of a package.
type Archive struct {
	Platform     string // a platform key
	Variant      string // "" or the variant key as written, e.g. "cuda12", "cuda13.1"
	RelativePath string
	SHA256       string
	MD5          string
	Size         int64
	// URL is where the archive is downloaded from when it is not below the
	// product's base (a wheel from a Python package index: the index says
	// where each file is). "" for NVIDIA's archives.
	URL string
	// StripPrefix is the folder inside the archive that holds the
	// package's files when the manifest says so (a wheel's "nvidia/nccl");
	// "" leaves it to the product.
	StripPrefix string
}

// VariantVersion returns the CUDA version a variant key names ("cuda12" -> 12).
func (a Archive) VariantVersion() (version.Version, bool) {
	if a.Variant == "" {
		return version.Version{}, false
	}
	v, err := parseVariant(a.Variant)
	return v, err == nil
}

// Warning is a non-fatal finding in a manifest.
type Warning struct {
	File string
	Path string
	Msg  string
	// PlatformKey is the key of a warning about a platform key this
	// cudapkgs does not know, "" for any other warning. A new key NVIDIA
	// adds is usually in every package of a release, so Collection.Warnings
	// folds these into one per key, and a caller may accept a key by name.
	PlatformKey string
}

func (w Warning) String() string { return fmt.Sprintf("%s: %s: %s", w.File, w.Path, w.Msg) }

// Package returns the package with the given name.
func (m *Manifest) Package(name string) (*Package, bool) {
	i := sort.Search(len(m.Packages), func(i int) bool { return m.Packages[i].Name >= name })
	if i < len(m.Packages) && m.Packages[i].Name == name {
		return &m.Packages[i], true
	}
	return nil, false
}

// Archive returns the archive for a platform key and variant ("" for none).
func (p *Package) Archive(platform, variant string) (Archive, bool) {
	for _, a := range p.Archives {
		if a.Platform == platform && a.Variant == variant {
			return a, true
		}
	}
	return Archive{}, false
}

// HasVariants reports whether the package's archives are split by CUDA version.
func (p *Package) HasVariants() bool {
	for _, a := range p.Archives {
		if a.Variant != "" {
			return true
		}
	}
	return false
}

// VariantFor returns the most specific variant key of this package's archives
// on the platform that serves the CUDA version: "cuda13.1" beats "cuda13" for
// CUDA 13.1.x. It returns "" and false when none does.
func (p *Package) VariantFor(platform string, cuda version.Version) (string, bool) {
	best, bestParts := "", 0
	for _, a := range p.Archives {
		if a.Platform != platform || a.Variant == "" {
			continue
		}
		v, ok := a.VariantVersion()
		if !ok || !cuda.HasPrefix(v) {
			continue
		}
		if v.Parts() > bestParts {
			best, bestParts = a.Variant, v.Parts()
		}
	}
	return best, best != ""
}

// parseVariant reads "cuda12" or "cuda13.1".
func parseVariant(k string) (version.Version, error) {
	rest, ok := strings.CutPrefix(k, "cuda")
	if !ok {
		return version.Version{}, fmt.Errorf("expected a variant key such as \"cuda12\" or \"cuda13.1\"")
	}
	v, err := version.Parse(rest)
	if err != nil || v.Parts() > 2 {
		return version.Version{}, fmt.Errorf("expected a variant key such as \"cuda12\" or \"cuda13.1\"")
	}
	return v, nil
}

// FromWheels reports whether the manifest was made from a Python package
// index's wheels (`manifests fetch`, docs/wheels.md): its archives are
// wheels with a URL of their own. NVIDIA's manifests have no archive URL.
func (m *Manifest) FromWheels() bool {
	for _, p := range m.Packages {
		for _, a := range p.Archives {
			if a.URL != "" && strings.HasSuffix(a.RelativePath, ".whl") {
				return true
			}
		}
	}
	return false
}
