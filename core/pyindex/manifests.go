package pyindex

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Project is one index project that holds a product's package built for
// one CUDA major ("nvidia-nccl-cu12").
type Project struct {
	Name      string // the project's name on the index
	CUDAMajor string // "12": its archives become the "cuda12" variant
	Package   string // the manifest package it is, "nccl"
	// Prefix is the folder inside the wheel that holds the package's
	// include/ and lib/ ("nvidia/nccl"); the archive is stripped of it.
	Prefix string
}

// Release is one generated manifest.
type Release struct {
	Release string // "2.21.5"
	Data    []byte // redistrib_<release>.json's bytes
}

// Skipped is a file of a page that no manifest uses, and why. A new
// platform tag or version shape is data, not an error: it is reported, and
// the rest is used.
type Skipped struct {
	Project, File, Why string
}

// Build turns the projects' pages into one manifest per release, in
// NVIDIA's shape: per package, per platform (manylinux x86_64 is
// linux-x86_64, aarch64 linux-sbsa, win_amd64 windows-x86_64; wheels never
// give linux-aarch64, Jetson's key) and per CUDA major a variant
// ("cuda12"), an archive with the wheel's URL, sha256, size, strip_prefix
// and where it came from. A release is a version without its ".postN": the
// newest rebuild serves. Pre-releases and yanked files are left out.
// Releases come oldest first.
func Build(product, index string, projects []Project, pages map[string]*Page) ([]Release, []Skipped, error) {
	type key struct{ release, pkg, platform, variant string }
	type pick struct {
		f    File
		post int
		proj Project
	}
	chosen := map[key]pick{}
	var skipped []Skipped
	for _, proj := range projects {
		page, ok := pages[proj.Name]
		if !ok {
			return nil, nil, fmt.Errorf("%s: no page read for project %s", product, proj.Name)
		}
		for _, f := range page.Files {
			if !strings.HasSuffix(f.Name, ".whl") {
				continue // an sdist: nothing to unpack
			}
			if f.Yanked {
				skipped = append(skipped, Skipped{proj.Name, f.Name, "yanked"})
				continue
			}
			w, err := ParseWheelName(f.Name)
			if err != nil {
				skipped = append(skipped, Skipped{proj.Name, f.Name, err.Error()})
				continue
			}
			if w.Release == "" {
				skipped = append(skipped, Skipped{proj.Name, f.Name, fmt.Sprintf("version %s is a pre-release or not dot-separated numbers", w.Version)})
				continue
			}
			if w.Platform == "" {
				skipped = append(skipped, Skipped{proj.Name, f.Name, fmt.Sprintf("platform tag %s is none of manylinux x86_64, manylinux aarch64, win_amd64", w.PlatformTag)})
				continue
			}
			k := key{w.Release, proj.Package, w.Platform, "cuda" + proj.CUDAMajor}
			old, seen := chosen[k]
			if !seen || w.Post > old.post || w.Post == old.post && f.Name < old.f.Name {
				chosen[k] = pick{f, w.Post, proj}
			}
		}
	}
	byRelease := map[string]map[string]map[string]map[string]any{} // release -> package -> platform -> variant -> archive
	dates := map[string]string{}
	variants := map[string]map[string][]string{}
	for k, p := range chosen {
		if byRelease[k.release] == nil {
			byRelease[k.release] = map[string]map[string]map[string]any{}
			variants[k.release] = map[string][]string{}
		}
		pkgs := byRelease[k.release]
		if pkgs[k.pkg] == nil {
			pkgs[k.pkg] = map[string]map[string]any{}
		}
		if pkgs[k.pkg][k.platform] == nil {
			pkgs[k.pkg][k.platform] = map[string]any{}
		}
		a := map[string]any{
			"relative_path": Normalize(p.proj.Name) + "/" + p.f.Name,
			"url":           p.f.URL,
			"sha256":        p.f.SHA256,
			"wheel":         map[string]string{"index": index, "project": p.proj.Name, "file": p.f.Name},
		}
		if p.f.Size >= 0 {
			a["size"] = strconv.FormatInt(p.f.Size, 10)
		}
		if pre := strings.ReplaceAll(p.proj.Prefix, "{major}", p.proj.CUDAMajor); pre != "" {
			a["strip_prefix"] = pre
		}
		pkgs[k.pkg][k.platform][k.variant] = a
		if m := strings.TrimPrefix(k.variant, "cuda"); !slices.Contains(variants[k.release][k.pkg], m) {
			variants[k.release][k.pkg] = append(variants[k.release][k.pkg], m)
		}
		if d := p.f.Uploaded; len(d) >= 10 && d[:10] > dates[k.release] {
			dates[k.release] = d[:10]
		}
	}
	rels := make([]string, 0, len(byRelease))
	for r := range byRelease {
		rels = append(rels, r)
	}
	slices.SortFunc(rels, func(a, b string) int { return version.MustParse(a).Compare(version.MustParse(b)) })
	var out []Release
	for _, r := range rels {
		doc := map[string]any{"release_label": r, "release_product": product}
		if d := dates[r]; d != "" {
			doc["release_date"] = d
		}
		for pkg, plats := range byRelease[r] {
			vs := variants[r][pkg]
			slices.SortFunc(vs, func(a, b string) int { return version.MustParse(a).Compare(version.MustParse(b)) })
			obj := map[string]any{"name": pkg + " (Python wheels)", "version": r, "cuda_variant": vs}
			for plat, byVariant := range plats {
				obj[plat] = byVariant
			}
			doc[pkg] = obj
		}
		data, err := json.MarshalIndent(doc, "", "    ")
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", product, r, err)
		}
		data = append(data, '\n')
		// What is written must read back: a file name or URL the manifest
		// grammar refuses is the index's problem, named here.
		if _, err := manifest.Parse(index+" ("+product+" "+r+")", product, r, data); err != nil {
			return nil, nil, fmt.Errorf("wheels of %s %s do not make a usable manifest: %w", product, r, err)
		}
		out = append(out, Release{Release: r, Data: data})
	}
	slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Project+"/"+a.File, b.Project+"/"+b.File) })
	return out, skipped, nil
}

// Wheel is what a wheel's file name says (PEP 427).
type Wheel struct {
	Version     string // as written, "2.25.1.post1"
	Release     string // without .postN, "2.25.1"; "" for a pre-release or another shape
	Post        int
	PlatformTag string // "manylinux2014_x86_64.manylinux_2_17_x86_64"
	Platform    string // the manifest's platform key, "" for none
}

// ParseWheelName reads name-version(-build)?-python-abi-platform.whl.
func ParseWheelName(file string) (Wheel, error) {
	parts := strings.Split(strings.TrimSuffix(file, ".whl"), "-")
	if len(parts) != 5 && len(parts) != 6 {
		return Wheel{}, fmt.Errorf("file name %q: expected name-version(-build)-python-abi-platform.whl (PEP 427)", file)
	}
	w := Wheel{Version: parts[1], PlatformTag: parts[len(parts)-1]}
	rel, post := w.Version, 0
	if i := strings.LastIndex(rel, ".post"); i > 0 {
		n, err := strconv.Atoi(rel[i+len(".post"):])
		if err == nil && n >= 0 {
			rel, post = rel[:i], n
		}
	}
	if _, err := version.Parse(rel); err == nil {
		w.Release, w.Post = rel, post
	}
	w.Platform = PlatformKey(w.PlatformTag)
	return w, nil
}

// PlatformKey maps a wheel's platform tag (several joined by ".") to a
// manifest platform key: manylinux x86_64 is linux-x86_64, manylinux
// aarch64 is linux-sbsa (PyPI's aarch64 CUDA wheels are the server ARM
// builds; Jetson's come from NVIDIA's manifests only), win_amd64 is
// windows-x86_64. "" for anything else.
func PlatformKey(tag string) string {
	for _, t := range strings.Split(tag, ".") {
		switch {
		case strings.HasPrefix(t, "manylinux") && strings.HasSuffix(t, "_x86_64"):
			return manifest.LinuxX86_64
		case strings.HasPrefix(t, "manylinux") && strings.HasSuffix(t, "_aarch64"):
			return manifest.LinuxSBSA
		case t == "win_amd64":
			return manifest.WindowsX86_64
		}
	}
	return ""
}
