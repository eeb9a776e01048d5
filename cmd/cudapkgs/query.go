package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

func (a *app) queryCmd() *cobra.Command {
	var format string
	var packages []string
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Print the package sets: every package per CUDA version and platform",
		Long: `query builds the package set of every configured CUDA version and prints, per
package, its product, version and, per target platform, the archive that serves it
(URL, sha256, variant) or the reasons nothing does.

  cudapkgs query --manifests DIR --cuda 12.4.1 --platform linux-sbsa --format json`,
		Args: cobra.NoArgs,
	}
	f := addConfigFlags(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringSliceVar(&packages, "package", nil, "only these packages (names or globs such as 'libcu*')")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if format != "text" && format != "json" {
			return usagef("--format %q: expected text or json", format)
		}
		for _, p := range packages {
			if _, err := path.Match(p, ""); err != nil {
				return usagef("--package %q: %v", p, err)
			}
		}
		e, err := a.evaluate(f)
		if err != nil {
			return err
		}
		sets, err := e.sets(cmd.Context())
		if err != nil {
			return err
		}
		sets = filterPackages(sets, packages)
		var buf bytes.Buffer
		if format == "json" {
			err = writeJSON(&buf, sets)
		} else {
			err = writeText(&buf, sets)
		}
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(buf.Bytes())
		return err
	}
	return cmd
}

func filterPackages(sets []*pkgset.Set, patterns []string) []*pkgset.Set {
	if len(patterns) == 0 {
		return sets
	}
	var out []*pkgset.Set
	for _, s := range sets {
		cp := *s
		cp.Packages = nil
		for _, p := range s.Packages {
			for _, pat := range patterns {
				if ok, _ := path.Match(pat, p.Name); ok {
					cp.Packages = append(cp.Packages, p)
					break
				}
			}
		}
		out = append(out, &cp)
	}
	return out
}

type jsonArchive struct {
	NVIDIAKey    string   `json:"nvidia_key"`
	Variant      string   `json:"variant"`
	URL          string   `json:"url"`
	URLs         []string `json:"urls"`
	SHA256       string   `json:"sha256"`
	Size         int64    `json:"size"`
	RelativePath string   `json:"relative_path"`
	StripPrefix  string   `json:"strip_prefix"`
}

type jsonPackage struct {
	Product     string                 `json:"product"`
	Manifest    string                 `json:"manifest_name"`
	Release     string                 `json:"release,omitempty"`
	Version     string                 `json:"version,omitempty"`
	License     string                 `json:"license,omitempty"`
	Platforms   map[string]jsonArchive `json:"platforms"`
	Unavailable map[string][]string    `json:"unavailable"`
}

type jsonSet struct {
	Releases  map[string]string      `json:"releases"`
	NoRelease map[string]string      `json:"no_release,omitempty"`
	Packages  map[string]jsonPackage `json:"packages"`
}

// writeJSON prints sets keyed by CUDA version in version order (a Go map
// would sort "12.10" before "12.4").
func writeJSON(w io.Writer, sets []*pkgset.Set) error {
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, s := range sets {
		js := jsonSet{Releases: map[string]string{}, NoRelease: s.NoRelease, Packages: map[string]jsonPackage{}}
		for p, v := range s.Releases {
			js.Releases[p] = v.String()
		}
		for _, p := range s.Packages {
			jp := jsonPackage{Product: p.Product, Manifest: p.Manifest, License: p.License,
				Platforms: map[string]jsonArchive{}, Unavailable: p.Unavailable}
			if !p.Release.IsZero() {
				jp.Release, jp.Version = p.Release.String(), p.Version.String()
			}
			for name, a := range p.Platforms {
				jp.Platforms[name] = jsonArchive{NVIDIAKey: a.Key, Variant: a.Variant, URL: a.URLs[len(a.URLs)-1], URLs: a.URLs,
					SHA256: a.SHA256, Size: a.Size, RelativePath: a.RelativePath, StripPrefix: a.StripPrefix}
			}
			js.Packages[p.Name] = jp
		}
		body, err := json.MarshalIndent(js, "  ", "  ")
		if err != nil {
			return err
		}
		key, _ := json.Marshal(s.CUDA.String())
		if i > 0 {
			buf.WriteString(",")
		}
		fmt.Fprintf(&buf, "\n  %s: %s", key, body)
	}
	buf.WriteString("\n}\n")
	_, err := w.Write(buf.Bytes())
	return err
}

func writeText(w io.Writer, sets []*pkgset.Set) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	for i, s := range sets {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		var rel []string
		for p, v := range s.Releases {
			rel = append(rel, p+" "+v.String())
		}
		for p, why := range s.NoRelease {
			rel = append(rel, p+" none: "+why)
		}
		sort.Strings(rel)
		fmt.Fprintf(tw, "CUDA %s\t(%s)\n", s.CUDA, strings.Join(rel, "; "))
		for _, p := range s.Packages {
			names := make([]string, 0, len(p.Platforms)+len(p.Unavailable))
			for n := range p.Platforms {
				names = append(names, n)
			}
			for n := range p.Unavailable {
				names = append(names, n)
			}
			sort.Strings(names)
			ver := p.Version.String()
			if ver == "" {
				ver = "-"
			}
			for _, n := range names {
				if a, ok := p.Platforms[n]; ok {
					variant := a.Variant
					if variant == "" {
						variant = "-"
					}
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", p.Name, ver, n, variant, a.SHA256[:12], a.URLs[len(a.URLs)-1])
					continue
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t-\tunavailable\t%s\n", p.Name, ver, n, strings.Join(p.Unavailable[n], "; "))
			}
		}
	}
	return tw.Flush()
}
