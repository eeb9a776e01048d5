package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/warning"
	"github.com/cudapkgs/cudapkgs/report"
	"github.com/cudapkgs/cudapkgs/starlark"
)

func (a *app) queryCmd() *cobra.Command {
	var format, expr string
	var packages []string
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Print the package sets: every package per CUDA version and platform",
		Long: `query builds the package set of every configured CUDA version and prints, per
package, its product, version and, per target platform, the archive that serves it
(URL, sha256, variant) or the reasons nothing does.`,
		Example: `  cudapkgs query --cuda 12.4.1 --platform linux-sbsa --package 'libcublas*'
  cudapkgs query --manifests DIR --cuda 12.4.1 --platform linux-sbsa --format json
  cudapkgs query --cuda 12.6 --expr 'cuda.versions()'
  cudapkgs query --cuda 12.4.1 --format dot | dot -Tsvg > deps.svg`,
		Args: cobra.NoArgs,
	}
	f := addConfigFlags(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json or dot (the dependency graph of each set, for Graphviz)")
	cmd.Flags().StringSliceVar(&packages, "package", nil, "only these packages (names or globs such as 'libcu*')")
	cmd.Flags().StringVar(&expr, "expr", "", "a Starlark expression over the sets, printed as JSON (see docs/starlark.md), e.g. 'cuda.versions()'")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if format != "text" && format != "json" && format != "dot" {
			return usagef("--format %q: expected text, json or dot", format)
		}
		for _, p := range packages {
			if _, err := path.Match(p, ""); err != nil {
				return usagef("--package %q: %v", p, err)
			}
		}
		e, err := a.evaluate(cmd.Context(), f)
		if err != nil {
			return err
		}
		defer e.Close()
		sets, err := checkedSets(cmd.Context(), e)
		if err != nil {
			return err
		}
		if expr != "" {
			v, err := starlark.Query(cmd.Context(), e.Interp, expr, sets)
			if err != nil {
				return &cudapkgs.StarlarkError{Err: err}
			}
			out, err := starlark.ToJSON(v)
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(out)
			return err
		}
		if err := packagesExist(sets, packages); err != nil {
			return err
		}
		sets = filterPackages(sets, packages)
		var buf bytes.Buffer
		switch format {
		case "json":
			err = writeJSON(&buf, sets, e.RunWarnings)
		case "dot":
			err = report.DOT(&buf, sets)
		default:
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

// packagesExist: every --package pattern names a package of some set; the
// error for one that does not suggests the names closest to it.
func packagesExist(sets []*pkgset.Set, patterns []string) error {
	var names, versions []string
	for _, s := range sets {
		versions = append(versions, s.CUDA.String())
		for _, p := range s.Packages {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, pat := range patterns {
		if slices.ContainsFunc(names, func(n string) bool { ok, _ := path.Match(pat, n); return ok }) {
			continue
		}
		msg := fmt.Sprintf("--package %q: no package of that name in CUDA %s", pat, strings.Join(versions, ", "))
		if close := closeNames(pat, names, 5); len(close) > 0 {
			msg += "; close: " + strings.Join(close, ", ")
		}
		return usageError{errors.New(msg)}
	}
	return nil
}

// closeNames are up to n of names nearest to want: those that hold it (or
// it them), then those a few edits away, nearest first.
func closeNames(want string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	w := strings.ToLower(strings.Trim(want, "*?"))
	if w == "" {
		return nil
	}
	var cs []cand
	for _, name := range names {
		l := strings.ToLower(name)
		switch d := editDistance(w, l); {
		case strings.Contains(l, w) || strings.Contains(w, l):
			cs = append(cs, cand{name, 0})
		case d <= max(2, len(w)/4):
			cs = append(cs, cand{name, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is Levenshtein's distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
	Product  string    `json:"product"`
	Manifest string    `json:"manifest_name"`
	Release  string    `json:"release,omitempty"`
	Version  string    `json:"version,omitempty"`
	License  string    `json:"license,omitempty"`
	Role     file.Role `json:"role"`
	// Generic are the platforms where no plugin knows the package; it is
	// served there from the archive's conventional layout (include/, lib/, bin/).
	Generic []string `json:"generic,omitempty"`
	// StaticLinkopts are the system libraries the static link set needs.
	StaticLinkopts []string                            `json:"static_linkopts,omitempty"`
	Deps           []jsonDep                           `json:"deps"`
	Platforms      map[string]jsonArchive              `json:"platforms"`
	Files          map[string]map[file.Kind][]jsonFile `json:"files"`
	Unavailable    map[string][]string                 `json:"unavailable"`
	// ServedBy maps a platform to the older release that serves this
	// default name there, because the newer one cannot be used.
	ServedBy map[string]jsonServed `json:"served_by,omitempty"`
	// Tried maps a platform to the older releases tried for this default
	// name there, newest first, each with why it was ruled out: the chain
	// the generated messages only sum up.
	Tried map[string][]jsonTried `json:"tried,omitempty"`
}

type jsonTried struct {
	Name    string   `json:"name"`
	Release string   `json:"release"`
	Version string   `json:"version"`
	Reasons []string `json:"ruled_out_because"`
}

type jsonServed struct {
	Name    string   `json:"name"`
	Release string   `json:"release"`
	Version string   `json:"version"`
	Passed  []string `json:"passed_over_because"`
}

type jsonDep struct {
	Name      string   `json:"name"`
	Runtime   bool     `json:"runtime,omitempty"`
	Static    bool     `json:"static,omitempty"`
	Headers   bool     `json:"headers,omitempty"`
	Merge     bool     `json:"merge,omitempty"`
	Since     string   `json:"since,omitempty"`
	Until     string   `json:"until,omitempty"`
	Platforms []string `json:"platforms,omitempty"`
}

type jsonFile struct {
	Path   string    `json:"path"`
	Role   file.Role `json:"role"`
	SONAME string    `json:"soname,omitempty"`
}

type jsonSet struct {
	Releases  map[string]string      `json:"releases"`
	NoRelease map[string]string      `json:"no_release,omitempty"`
	Packages  map[string]jsonPackage `json:"packages"`
	// Aliases map an old package name to the package that took it over.
	Aliases map[string]string `json:"aliases,omitempty"`
	// Warnings are the run's (manifests, folders) and the set's own, so
	// that one set's object says everything about it.
	Warnings []string `json:"warnings"`
}

// writeJSON prints sets keyed by CUDA version in version order (a Go map
// would sort "12.10" before "12.4").
func writeJSON(w io.Writer, sets []*pkgset.Set, run []string) error {
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, s := range sets {
		var ws warning.List
		for _, m := range append(slices.Clone(run), s.Warnings...) {
			ws.Add(m)
		}
		js := jsonSet{Releases: map[string]string{}, NoRelease: s.NoRelease, Packages: map[string]jsonPackage{}, Warnings: ws.All(), Aliases: s.Aliases}
		for p, v := range s.Releases {
			js.Releases[p] = v.String()
		}
		for _, p := range s.Packages {
			jp := jsonPackage{Product: p.Product, Manifest: p.Manifest, License: p.License, Role: p.Role, Generic: slices.Sorted(maps.Keys(p.Generic)), StaticLinkopts: p.StaticLinkopts, Deps: []jsonDep{},
				Platforms: map[string]jsonArchive{}, Files: map[string]map[file.Kind][]jsonFile{}, Unavailable: p.Unavailable}
			for _, d := range p.Deps {
				jp.Deps = append(jp.Deps, jsonDep{Name: d.Name, Runtime: d.Runtime, Static: d.Static, Headers: d.Headers, Merge: d.Merge, Since: d.Since, Until: d.Until, Platforms: d.Platforms})
			}
			for plat, files := range p.Files {
				byKind := map[file.Kind][]jsonFile{}
				for _, f := range files {
					byKind[f.Kind] = append(byKind[f.Kind], jsonFile{Path: f.Path, Role: f.Role, SONAME: f.SONAME})
				}
				jp.Files[plat] = byKind
			}
			if !p.Release.IsZero() {
				jp.Release, jp.Version = p.Release.String(), p.Version.String()
			}
			for plat, sv := range p.Served {
				if jp.ServedBy == nil {
					jp.ServedBy = map[string]jsonServed{}
				}
				jp.ServedBy[plat] = jsonServed{Name: sv.Name, Release: sv.Release.String(), Version: sv.Version.String(), Passed: sv.Passed}
			}
			for plat, tried := range p.Tried {
				if jp.Tried == nil {
					jp.Tried = map[string][]jsonTried{}
				}
				for _, tr := range tried {
					jp.Tried[plat] = append(jp.Tried[plat], jsonTried{Name: tr.Name, Release: tr.Release.String(), Version: tr.Version.String(), Reasons: tr.Reasons})
				}
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
		fmt.Fprintf(tw, "CUDA %s\t(%s)\n", s.CUDA, escapeText(strings.Join(rel, "; "), false))
		for _, p := range s.Packages {
			seen := map[string]bool{}
			var names []string
			for _, m := range []map[string][]string{p.Unavailable, platformSet(p)} {
				for n := range m {
					if !seen[n] {
						seen[n] = true
						names = append(names, n)
					}
				}
			}
			sort.Strings(names)
			ver := p.Version.String()
			if ver == "" {
				ver = "-"
			}
			for _, n := range names {
				a, has := p.Platforms[n]
				reasons := p.Unavailable[n]
				switch {
				case has && len(reasons) == 0:
					variant := a.Variant
					if variant == "" {
						variant = "-"
					}
					v := ver
					if sv, ok := p.Served[n]; ok {
						v = sv.Version.String() + " (" + sv.Name + ")"
					}
					row(tw, p.Name, v, n, variant, a.SHA256[:12], a.URLs[len(a.URLs)-1])
				case has:
					row(tw, p.Name, ver, n, "-", "unusable", strings.Join(reasons, "; "))
				default:
					row(tw, p.Name, ver, n, "-", "unavailable", strings.Join(reasons, "; "))
				}
			}
		}
	}
	return tw.Flush()
}

// row writes one package line; every field is escaped (a tab or an escape
// sequence from a manifest, a plugin or an override cannot reach the
// terminal or break the columns).
func row(w io.Writer, fields ...string) {
	for i, f := range fields {
		fields[i] = escapeText(f, false)
	}
	fmt.Fprintf(w, "  %s\n", strings.Join(fields, "\t"))
}

func platformSet(p *pkgset.Package) map[string][]string {
	m := map[string][]string{}
	for n := range p.Platforms {
		m[n] = nil
	}
	return m
}

func (a *app) runCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run FILE.star",
		Short: "Run a Starlark script over the package sets and print its result as JSON",
		Long: `run evaluates FILE.star with the query builtins (cuda.versions(), cuda.packages(...),
cuda.gpus(), ...) over the evaluated, fixed-up package sets, and prints as JSON the
value main() returns, or else the script's global result. See docs/starlark.md.`,
		Example: `  cudapkgs run report.star --cuda 12.4.1,12.6.3`,
		Args:    cobra.ExactArgs(1),
	}
	f := addConfigFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		e, err := a.evaluate(cmd.Context(), f)
		if err != nil {
			return err
		}
		defer e.Close()
		sets, err := checkedSets(cmd.Context(), e)
		if err != nil {
			return err
		}
		v, err := starlark.Run(cmd.Context(), e.Interp, args[0], sets)
		if err != nil {
			return &cudapkgs.StarlarkError{Err: err}
		}
		out, err := starlark.ToJSON(v)
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(out)
		return err
	}
	return cmd
}
