// Package report turns evaluated package sets into a support matrix people
// can look at: which release of each product serves each CUDA version on each
// platform (or why none does), the GPU capabilities each CUDA version builds
// for per target, nvcc's host-compiler ranges, and the dependency graph of
// one set. It writes the matrix as one self-contained HTML page (HTML, Markdown)
// and the graph for Graphviz (DOT).
//
// The package knows no product or package by name: everything comes from the
// sets and the configuration. Output is deterministic: the same inputs give
// the same bytes.
package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Input is what a report is made from.
type Input struct {
	Sets []*pkgset.Set
	// Products in the order to show them (the toolkit first). A product of
	// the sets missing here is appended in name order.
	Products []string
	// Config gives the target platforms and the capabilities built per CUDA
	// version and target.
	Config *config.Config
	// Graph is the CUDA version whose dependency graph is drawn; zero for
	// the newest set.
	Graph version.Version
}

// Status says how a product serves a platform for a CUDA version.
type Status string

// The statuses of a cell, from best to worst.
const (
	// OK: every package of the product's chosen release serves the platform.
	OK Status = "ok"
	// Older: every package serves it, some from an older release because the
	// chosen one cannot be used there.
	Older Status = "older"
	// Partial: some packages serve the platform, others cannot.
	Partial Status = "partial"
	// None: nothing of the product serves the platform.
	None Status = "none"
)

// Cell is one CUDA version × product × platform.
type Cell struct {
	CUDA, Product, Platform string
	Status                  Status
	// Release is what serves the platform: the chosen release, or the
	// releases actually serving it, newest first; "" for None.
	Release string
	// Served and Total count the product's packages under their default
	// names (versioned names such as libfoo_9_3 are not counted).
	Served, Total int
	// Reasons say why what is missing is missing, or why an older release
	// serves, sorted by package; Package is "" for the product's own.
	Reasons []Reason
}

// Reason is one reason a package cannot be used on a platform, or why an
// older release serves it.
type Reason struct {
	Package, Text string
}

func (r Reason) String() string {
	if r.Package == "" {
		return r.Text
	}
	return r.Package + ": " + r.Text
}

// Coverage is the GPU capabilities per CUDA version for a group of targets
// that build the same ones.
type Coverage struct {
	Targets []string // platform names
	Jetson  bool
	CUDA    []string // major.minor columns
	Rows    []CoverageRow
}

// CoverageRow is one capability across CUDA versions.
type CoverageRow struct {
	Capability, Arch string
	// Cells per CUDA column: "built" (built by the configuration),
	// "supported" (nvcc targets it, not built) or "" (not supported).
	Cells []string
}

// Compilers is nvcc's host-compiler range for one CUDA major.minor.
type Compilers struct {
	CUDA               string
	GCCMin, GCCMax     int
	ClangMin, ClangMax int
	Assumed            string // the table row used for a CUDA version past it; "" when exact
	Error              string // no data for this version
	// CUDAReleases are the sets' CUDA versions of this major.minor.
	CUDAReleases []string
}

// Report is the model every format writes.
type Report struct {
	CUDA      []string // the sets' CUDA versions, in order
	Products  []string
	Platforms []string
	Cells     []Cell // CUDA-major order, then product, then platform
	Coverage  []Coverage
	Compilers []Compilers
	Graph     *Graph
	Warnings  []string
}

// Build makes the report's model.
func Build(in Input) (*Report, error) {
	if len(in.Sets) == 0 {
		return nil, fmt.Errorf("report: no package sets")
	}
	if in.Config == nil {
		return nil, fmt.Errorf("report: no configuration")
	}
	r := &Report{}
	for _, t := range in.Config.Targets() {
		r.Platforms = append(r.Platforms, t.Name())
	}
	r.Products = products(in.Sets, in.Products)
	for _, s := range in.Sets {
		r.CUDA = append(r.CUDA, s.CUDA.String())
		defaults := defaultPackages(s)
		for _, prod := range r.Products {
			for _, plat := range r.Platforms {
				r.Cells = append(r.Cells, cell(s, prod, plat, defaults[prod]))
			}
		}
		for _, w := range s.Warnings {
			r.Warnings = append(r.Warnings, "CUDA "+s.CUDA.String()+": "+w)
		}
	}
	r.Coverage = coverage(in.Sets, in.Config)
	r.Compilers = compilers(in.Sets)
	graphSet := in.Sets[len(in.Sets)-1]
	if !in.Graph.IsZero() {
		graphSet = nil
		for _, s := range in.Sets {
			if s.CUDA.Equal(in.Graph) {
				graphSet = s
			}
		}
		if graphSet == nil {
			return nil, fmt.Errorf("report: no package set for CUDA %s to draw (have %s)", in.Graph, strings.Join(r.CUDA, ", "))
		}
	}
	r.Graph = NewGraph(graphSet)
	return r, nil
}

// products orders the products: the given order first, then any other
// product the sets have, by name.
func products(sets []*pkgset.Set, order []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range order {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	var rest []string
	for _, s := range sets {
		for p := range s.Releases {
			if !seen[p] {
				seen[p] = true
				rest = append(rest, p)
			}
		}
		for p := range s.NoRelease {
			if !seen[p] {
				seen[p] = true
				rest = append(rest, p)
			}
		}
		for _, p := range s.Packages {
			if !seen[p.Product] {
				seen[p.Product] = true
				rest = append(rest, p.Product)
			}
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// defaultPackages groups a set's packages under their default names (the
// name in the manifest) by product.
func defaultPackages(s *pkgset.Set) map[string][]*pkgset.Package {
	m := map[string][]*pkgset.Package{}
	for _, p := range s.Packages {
		if p.Name == p.Manifest {
			m[p.Product] = append(m[p.Product], p)
		}
	}
	return m
}

func cell(s *pkgset.Set, product, plat string, pkgs []*pkgset.Package) Cell {
	c := Cell{CUDA: s.CUDA.String(), Product: product, Platform: plat, Total: len(pkgs)}
	if why, ok := s.NoRelease[product]; ok {
		c.Status = None
		c.Reasons = []Reason{{Text: why}}
		return c
	}
	if len(pkgs) == 0 {
		c.Status = None
		c.Reasons = []Reason{{Text: "the release has no packages"}}
		return c
	}
	releases := map[string]version.Version{}
	older := false
	for _, p := range pkgs {
		_, has := p.Platforms[plat]
		why := p.Unavailable[plat]
		if !has || len(why) > 0 {
			if len(why) == 0 {
				why = []string{"no archive for " + plat}
			}
			for _, w := range why {
				c.Reasons = append(c.Reasons, Reason{p.Name, w})
			}
			continue
		}
		c.Served++
		rel := p.Release
		if sv, ok := p.Served[plat]; ok {
			older = true
			rel = sv.Release
			for _, w := range sv.Passed {
				c.Reasons = append(c.Reasons, Reason{p.Name, "served by " + sv.Name + " " + sv.Version.String() + "; " + p.Release.String() + " passed over: " + w})
			}
		}
		if !rel.IsZero() {
			releases[rel.String()] = rel
		}
	}
	// Packages come sorted by name; keep each package's reasons in the
	// plugin's order (its first is the main one), dropping repeats.
	c.Reasons = slices.Compact(c.Reasons)
	vs := make([]version.Version, 0, len(releases))
	for _, v := range releases {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[j].Less(vs[i]) })
	var names []string
	for _, v := range vs {
		names = append(names, v.String())
	}
	c.Release = strings.Join(names, ", ")
	switch {
	case c.Served == 0:
		c.Status, c.Release = None, ""
	case c.Served < c.Total:
		c.Status = Partial
	case older:
		c.Status = Older
	default:
		c.Status = OK
	}
	return c
}

func dedupe(ss []string) []string {
	sort.Strings(ss)
	return slices.Compact(ss)
}

// coverage builds one table per group of targets that build the same
// capabilities for every CUDA version, Jetson targets apart from the others.
func coverage(sets []*pkgset.Set, cfg *config.Config) []Coverage {
	var cudas []version.Version
	var cols []string
	for _, s := range sets {
		mm := s.CUDA.MajorMinor()
		if !slices.Contains(cols, mm.String()) {
			cols = append(cols, mm.String())
			cudas = append(cudas, s.CUDA)
		}
	}
	var out []Coverage
	key := map[string]int{}
	for _, t := range cfg.Targets() {
		cov := Coverage{Targets: []string{t.Name()}, Jetson: t.Jetson(), CUDA: cols}
		for _, c := range gpu.Capabilities() {
			if c.Jetson != t.Jetson() {
				continue
			}
			row := CoverageRow{Capability: c.Name, Arch: c.Arch}
			any := false
			for _, cuda := range cudas {
				v := ""
				switch {
				case slices.Contains(cfg.CapabilityNames(cuda, t), c.Name):
					v = "built"
				case c.SupportedBy(cuda) && (!t.Jetson() || platform.JetsonServed(cuda, c.Name)):
					v = "supported"
				}
				any = any || v != ""
				row.Cells = append(row.Cells, v)
			}
			if any {
				cov.Rows = append(cov.Rows, row)
			}
		}
		k := fmt.Sprint(cov.Jetson, cov.Rows)
		if i, ok := key[k]; ok {
			out[i].Targets = append(out[i].Targets, t.Name())
			continue
		}
		key[k] = len(out)
		out = append(out, cov)
	}
	return out
}

// compilers gives nvcc's host-compiler ranges for each CUDA major.minor of
// the sets.
func compilers(sets []*pkgset.Set) []Compilers {
	var out []Compilers
	idx := map[string]int{}
	for _, s := range sets {
		mm := s.CUDA.MajorMinor().String()
		if i, ok := idx[mm]; ok {
			out[i].CUDAReleases = append(out[i].CUDAReleases, s.CUDA.String())
			continue
		}
		c := Compilers{CUDA: mm, CUDAReleases: []string{s.CUDA.String()}}
		h, ext, err := gpu.LookupHostCompilers(s.CUDA)
		if err != nil {
			c.Error = err.Error()
		} else {
			c.GCCMin, c.GCCMax, c.ClangMin, c.ClangMax = h.GCCMin, h.GCCMax, h.ClangMin, h.ClangMax
			if ext.Extrapolated() {
				c.Assumed = ext.Newest.String()
			}
		}
		idx[mm] = len(out)
		out = append(out, c)
	}
	return out
}

// Counts says how many of the cells have each status.
func (r *Report) Counts() map[Status]int {
	m := map[Status]int{}
	for _, c := range r.Cells {
		m[c.Status]++
	}
	return m
}
