package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/cudapkgs/cudapkgs/core/manifest"
)

// realManifest is what the tool reads from NVIDIA's real manifest.
type realManifest struct {
	file     string
	top      map[string]json.RawMessage
	packages map[string]map[string]json.RawMessage
}

func readReal(shared, product, release string) (*realManifest, error) {
	file := filepath.Join(shared, product, manifest.FileName(release))
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	m := &realManifest{file: file, top: top, packages: map[string]map[string]json.RawMessage{}}
	for k, v := range top {
		if len(v) > 0 && v[0] == '{' {
			var p map[string]json.RawMessage
			if err := json.Unmarshal(v, &p); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", file, k, err)
			}
			m.packages[k] = p
		}
	}
	return m, nil
}

func (m *realManifest) str(pkg, key string) (string, error) {
	p, ok := m.packages[pkg]
	if !ok {
		return "", fmt.Errorf("%s has no package %s", m.file, pkg)
	}
	var s string
	if err := json.Unmarshal(p[key], &s); err != nil {
		return "", fmt.Errorf("%s: %s.%s: %w", m.file, pkg, key, err)
	}
	return s, nil
}

// checkArchive fails when the lock's archive is not the real manifest's:
// another version, a platform or variant it does not have, or another
// relative_path.
func (m *realManifest) checkArchive(ar *Archive) error {
	v, err := m.str(ar.Package, "version")
	if err != nil {
		return err
	}
	if v != ar.Version {
		return fmt.Errorf("%s %s %s: the lock says version %s, NVIDIA's manifest %s says %s", ar.Product, ar.Release, ar.Package, ar.Version, m.file, v)
	}
	var plat map[string]json.RawMessage
	if err := json.Unmarshal(m.packages[ar.Package][ar.Platform], &plat); err != nil || plat == nil {
		return fmt.Errorf("%s: %s has no %s archive", m.file, ar.Package, ar.Platform)
	}
	if ar.Variant != "" {
		if err := json.Unmarshal(plat[ar.Variant], &plat); err != nil || plat == nil {
			return fmt.Errorf("%s: %s %s has no %s archive", m.file, ar.Package, ar.Platform, ar.Variant)
		}
	}
	var rel string
	if err := json.Unmarshal(plat["relative_path"], &rel); err != nil {
		return fmt.Errorf("%s: %s %s %s: no relative_path", m.file, ar.Package, ar.Platform, ar.Variant)
	}
	if rel != ar.RelativePath() {
		return fmt.Errorf("%s: %s %s: NVIDIA names the archive %s, the lock's would be %s", m.file, ar.Package, ar.Platform, rel, ar.RelativePath())
	}
	return nil
}

// made is an archive produced by this run, for the manifest.
type made struct {
	ar *Archive
	p  *Packed
}

// writeManifest writes NVIDIA's shape: the real release fields, then each
// repacked package (sorted by name) with its real name, license,
// license_path and version, and per platform (and variant) the repacked
// archive's relative_path, sha256, md5 and size (a string). Four spaces of
// indent, as NVIDIA's.
func writeManifest(m *realManifest, archives []made) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	field := func(indent int, k string, v any, last bool) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(&b, "%*s%q: %s", indent*4, "", k, data)
		if !last {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	for _, k := range []string{"release_date", "release_label", "release_product"} {
		var s string
		if err := json.Unmarshal(m.top[k], &s); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", m.file, k, err)
		}
		field(1, k, s, false)
	}
	byPkg := map[string][]made{}
	for _, a := range archives {
		byPkg[a.ar.Package] = append(byPkg[a.ar.Package], a)
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	platformOrder := manifest.PlatformKeys()
	for i, pkg := range pkgs {
		fmt.Fprintf(&b, "    %q: {\n", pkg)
		for _, k := range []string{"name", "license", "license_path", "version"} {
			s, err := m.str(pkg, k)
			if err != nil {
				return nil, err
			}
			field(2, k, s, false)
		}
		as := byPkg[pkg]
		sort.Slice(as, func(i, j int) bool {
			pi, pj := slices.Index(platformOrder, as[i].ar.Platform), slices.Index(platformOrder, as[j].ar.Platform)
			if pi != pj {
				return pi < pj
			}
			return as[i].ar.Variant < as[j].ar.Variant
		})
		var variants []string
		for _, a := range as {
			if a.ar.Variant != "" && !slices.Contains(variants, a.ar.Variant[len("cuda"):]) {
				variants = append(variants, a.ar.Variant[len("cuda"):])
			}
		}
		sort.Strings(variants)
		archive := func(indent int, a made, last bool) {
			pad := fmt.Sprintf("%*s", indent*4, "")
			b.WriteString("{\n")
			field(indent+1, "relative_path", a.ar.RelativePath(), false)
			field(indent+1, "sha256", a.p.SHA256, false)
			field(indent+1, "md5", a.p.MD5, false)
			field(indent+1, "size", strconv.FormatInt(a.p.Size, 10), true)
			b.WriteString(pad + "}")
			if !last {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		// Group by platform.
		for j := 0; j < len(as); {
			k := j
			for k < len(as) && as[k].ar.Platform == as[j].ar.Platform {
				k++
			}
			lastPlat := k == len(as) && !(j == 0 && len(variants) > 0)
			fmt.Fprintf(&b, "        %q: ", as[j].ar.Platform)
			if as[j].ar.Variant == "" {
				archive(2, as[j], lastPlat)
			} else {
				b.WriteString("{\n")
				for x := j; x < k; x++ {
					fmt.Fprintf(&b, "            %q: ", as[x].ar.Variant)
					archive(3, as[x], x == k-1)
				}
				b.WriteString("        }")
				if !lastPlat {
					b.WriteString(",")
				}
				b.WriteString("\n")
			}
			if j == 0 && len(variants) > 0 {
				// NVIDIA writes cuda_variant after the first platform.
				b.WriteString(`        "cuda_variant": [` + "\n")
				for x, v := range variants {
					fmt.Fprintf(&b, "            %q", v)
					if x < len(variants)-1 {
						b.WriteString(",")
					}
					b.WriteString("\n")
				}
				b.WriteString("        ]")
				if k < len(as) {
					b.WriteString(",")
				}
				b.WriteString("\n")
			}
			j = k
		}
		b.WriteString("    }")
		if i < len(pkgs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}
