package report

import (
	"slices"
	"sort"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

// Graph is the dependency graph of one package set: a node per package, an
// edge per (dependent, dependency) pair, laid out in layers (see layout.go).
type Graph struct {
	CUDA  string
	Nodes []*Node // by name
	Edges []*Edge // by from, then to
	// Width and Height are the drawing's size in pixels, after layout.
	Width, Height float64
}

// Node is one package.
type Node struct {
	Name, Product, Release string
	// Isolated: the package has no edge; it is drawn in a grid below the
	// layered part.
	Isolated bool
	// Rank is the node's row from the top (dependents above their
	// dependencies); X, Y its centre; W, H its box.
	Rank       int
	X, Y, W, H float64
}

// Edge is "From depends on To". The set may list several edges between the
// same two packages (for different CUDA ranges or platforms); they are one
// edge here, with their kinds and conditions merged.
type Edge struct {
	From, To string
	// Kinds are "runtime", "static", "headers", "merge", sorted; empty for
	// a plain link dependency.
	Kinds []string
	// Conditions are the edge's limits as the plugins say them ("since
	// 12.0", "linux-sbsa"), sorted; empty when it always holds.
	Conditions []string
	// Points is the drawn route, from the dependent to the dependency.
	Points []Point
	// Reversed marks an edge that closes a cycle: laid out upwards.
	Reversed bool
}

// Point is a position in the drawing.
type Point struct{ X, Y float64 }

// NewGraph builds and lays out the graph of a set.
func NewGraph(s *pkgset.Set) *Graph {
	g := graphOf(s)
	layout(g)
	return g
}

// graphOf builds the graph of a set, not laid out.
func graphOf(s *pkgset.Set) *Graph {
	g := &Graph{CUDA: s.CUDA.String()}
	byName := map[string]*Node{}
	for _, p := range s.Packages {
		n := &Node{Name: p.Name, Product: p.Product, Release: p.Version.String()}
		byName[p.Name] = n
		g.Nodes = append(g.Nodes, n)
	}
	sort.Slice(g.Nodes, func(i, j int) bool { return g.Nodes[i].Name < g.Nodes[j].Name })
	edges := map[[2]string]*Edge{}
	for _, p := range s.Packages {
		for _, d := range p.Deps {
			if d.Name == p.Name || byName[d.Name] == nil {
				continue
			}
			k := [2]string{p.Name, d.Name}
			e := edges[k]
			if e == nil {
				e = &Edge{From: p.Name, To: d.Name}
				edges[k] = e
				g.Edges = append(g.Edges, e)
			}
			for kind, on := range map[string]bool{"runtime": d.Runtime, "static": d.Static, "headers": d.Headers, "merge": d.Merge} {
				if on {
					e.Kinds = append(e.Kinds, kind)
				}
			}
			var cond []string
			if d.Since != "" {
				cond = append(cond, "since "+d.Since)
			}
			if d.Until != "" {
				cond = append(cond, "until "+d.Until)
			}
			if len(d.Platforms) > 0 {
				cond = append(cond, strings.Join(d.Platforms, " "))
			}
			if len(cond) > 0 {
				e.Conditions = append(e.Conditions, strings.Join(cond, ", "))
			}
		}
	}
	for _, e := range g.Edges {
		e.Kinds = dedupe(e.Kinds)
		e.Conditions = dedupe(e.Conditions)
	}
	sort.Slice(g.Edges, func(i, j int) bool {
		a, b := g.Edges[i], g.Edges[j]
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
	return g
}

// Products returns the products of the graph's nodes, sorted.
func (g *Graph) Products() []string {
	var ps []string
	for _, n := range g.Nodes {
		ps = append(ps, n.Product)
	}
	sort.Strings(ps)
	return slices.Compact(ps)
}
