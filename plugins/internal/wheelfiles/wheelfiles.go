// Package wheelfiles holds the file lists of NVIDIA's Python wheels (the
// CUDA toolkit components, cuDNN, cuTENSOR, cuSPARSELt, cuDSS and TensorRT,
// from PyPI), so that
// the plugins' knowledge is checked against what NVIDIA really ships, and
// the rules for comparing a plugin's answer with a listing.
//
// wheels.txt says which wheels are listed and which manifest package and
// release each one is; testdata/listings.json is what refresh/ wrote from
// them (name, version, file name, URL, sha256 and the paths inside). Tests
// read only the committed listings: nothing is downloaded in a test. The
// rules (layout mapping, what wheels never carry, the allow-list) are
// described in docs/wheels.md.
package wheelfiles

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Listing is the file list of one wheel.
type Listing struct {
	// What the wheel is, from wheels.txt.
	Product string `json:"product"` // cuda, cudnn, cutensor, cusparselt, cudss, tensorrt
	Release string `json:"release"` // the manifest's release: 12.4.1, 9.1.1
	// Also are the later releases of the product that ship the same
	// wheel (CUDA 13.0.2 keeps 13.0.1's nvcc 13.0.88): the check runs at
	// each, so that a range boundary between them is caught too.
	Also     []string `json:"also,omitempty"`
	CUDA     string   `json:"cuda,omitempty"` // the CUDA release of the batch (products other than cuda)
	Packages []string `json:"packages"`       // the manifest packages it corresponds to
	Arch     string   `json:"arch"`           // x86_64 or aarch64

	// Where it came from, written by refresh.
	Wheel   string `json:"wheel"`   // PyPI name: nvidia-cublas-cu12
	Version string `json:"version"` // PyPI version: 12.4.5.8
	File    string `json:"file"`    // the wheel's file name
	URL     string `json:"url"`     // where pip downloaded it from
	SHA256  string `json:"sha256"`  // of the wheel; refresh pins the download to it

	// Root is the folder of the wheel that the paths are relative to
	// (nvidia/cublas, nvidia/cu13, tensorrt_libs); Files are the wheel's
	// files below it, without Python's packaging (dist-info, __init__.py).
	Root  string   `json:"root"`
	Files []string `json:"files"`
}

// Key names a listing in messages: nvidia-cublas-cu12==12.4.5.8 (x86_64).
func (l Listing) Key() string { return fmt.Sprintf("%s==%s (%s)", l.Wheel, l.Version, l.Arch) }

// Platform is the cudapkgs target platform the wheel's arch is: PyPI's
// aarch64 wheels of the CUDA libraries are the SBSA builds.
func (l Listing) Platform() string {
	if l.Arch == "aarch64" {
		return "linux-sbsa"
	}
	return "linux-" + l.Arch
}

// File is the format of testdata/listings.json.
type File struct {
	Comment  string    `json:"comment"`
	Listings []Listing `json:"listings"`
}

//go:embed testdata/listings.json
var listingsJSON []byte

// Load returns the committed listings.
func Load() ([]Listing, error) {
	var f File
	if err := json.Unmarshal(listingsJSON, &f); err != nil {
		return nil, fmt.Errorf("wheelfiles: testdata/listings.json: %w", err)
	}
	return f.Listings, nil
}

// Releases are the listing's release and those that ship the same wheel.
func (l Listing) Releases() []string { return append([]string{l.Release}, l.Also...) }

// Spec is one line of wheels.txt.
type Spec struct {
	Product, Release, CUDA, Arch, Wheel, Version string
	Also, Packages                               []string
}

// ParseSpecs reads wheels.txt: "product release[,release...][@cuda] arch
// wheel==version package[,package]" per line, # comments. Several releases
// are the ones that ship the same wheel, in order; the first is Release.
func ParseSpecs(text string) ([]Spec, error) {
	var out []Spec
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			return nil, fmt.Errorf("wheels.txt:%d: want 5 fields, have %d", i+1, len(f))
		}
		s := Spec{Product: f[0], Release: f[1], Arch: f[2], Packages: strings.Split(f[4], ",")}
		if r, c, ok := strings.Cut(s.Release, "@"); ok {
			s.Release, s.CUDA = r, c
		}
		rels := strings.Split(s.Release, ",")
		for j, r := range rels {
			if r == "" || slices.Contains(rels[:j], r) {
				return nil, fmt.Errorf("wheels.txt:%d: release list %q has an empty or repeated release", i+1, s.Release)
			}
		}
		s.Release, s.Also = rels[0], rels[1:]
		if len(s.Also) == 0 {
			s.Also = nil
		}
		var ok bool
		if s.Wheel, s.Version, ok = strings.Cut(f[3], "=="); !ok {
			return nil, fmt.Errorf("wheels.txt:%d: %q is not wheel==version", i+1, f[3])
		}
		if s.Arch != "x86_64" && s.Arch != "aarch64" {
			return nil, fmt.Errorf("wheels.txt:%d: arch %q is not x86_64 or aarch64", i+1, s.Arch)
		}
		out = append(out, s)
	}
	return out, nil
}

// SpecKey is how a Spec and its Listing are matched.
func SpecKey(wheel, version, arch string) string { return wheel + "==" + version + " " + arch }

// Kept reports whether a path of a wheel is a file worth listing: not
// Python's packaging (the .dist-info folder, __init__.py, __pycache__) nor
// a folder entry.
func Kept(p string) bool {
	if strings.HasSuffix(p, "/") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if strings.HasSuffix(part, ".dist-info") || part == "__pycache__" {
			return false
		}
	}
	return path.Base(p) != "__init__.py"
}

// RootOf is the folder of a wheel's path that listings are relative to:
// nvidia/<name> for NVIDIA's wheels (nvidia/cublas, nvidia/cu13), else the
// top folder (tensorrt_libs, cutensor).
func RootOf(p string) string {
	parts := strings.Split(p, "/")
	if parts[0] == "nvidia" && len(parts) > 2 {
		return "nvidia/" + parts[1]
	}
	if len(parts) > 1 {
		return parts[0]
	}
	return ""
}
