package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

// palette colours a node by its product's index among the graph's products.
var palette = []string{"#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#ede9fe", "#ccfbf1", "#fee2e2", "#e0e7ff", "#f3f4f6"}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// SVG writes the laid-out graph. Every package is a <g class="node"> with
// data-name and data-product; every edge a <path class="edge"> with
// data-from and data-to, dashed when the dependency is loaded at run time.
func (g *Graph) SVG(w io.Writer) error {
	var b bytes.Buffer
	colour := map[string]string{}
	for i, p := range g.Products() {
		colour[p] = palette[i%len(palette)]
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-label="dependency graph of the CUDA %s package set">`+"\n",
		num(g.Width), num(g.Height), num(g.Width), num(g.Height), html.EscapeString(g.CUDA))
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#64748b"/></marker></defs>` + "\n")
	b.WriteString(`<g class="edges">` + "\n")
	for _, e := range g.Edges {
		cls := "edge"
		for _, k := range e.Kinds {
			cls += " " + k
		}
		title := e.From + " → " + e.To
		if len(e.Kinds) > 0 {
			title += " (" + strings.Join(e.Kinds, ", ") + ")"
		}
		if len(e.Conditions) > 0 {
			title += "; " + strings.Join(e.Conditions, "; ")
		}
		fmt.Fprintf(&b, `<path class="%s" data-from="%s" data-to="%s" d="%s" marker-end="url(#arrow)"><title>%s</title></path>`+"\n",
			cls, html.EscapeString(e.From), html.EscapeString(e.To), pathData(e.Points), html.EscapeString(title))
	}
	b.WriteString("</g>\n<g class=\"nodes\">\n")
	for _, n := range g.Nodes {
		x, y := n.X-n.W/2, n.Y-n.H/2
		fmt.Fprintf(&b, `<g class="node" data-name="%s" data-product="%s"><title>%s %s (%s)</title><rect x="%s" y="%s" width="%s" height="%s" rx="4" fill="%s"/><text x="%s" y="%s">%s</text></g>`+"\n",
			html.EscapeString(n.Name), html.EscapeString(n.Product), html.EscapeString(n.Name), html.EscapeString(n.Release), html.EscapeString(n.Product),
			num(round(x)), num(round(y)), num(round(n.W)), num(n.H), colour[n.Product], num(n.X), num(round(n.Y+4)), html.EscapeString(n.Name))
	}
	b.WriteString("</g>\n</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// pathData draws a route as vertical cubic curves from point to point.
func pathData(pts []Point) string {
	if len(pts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("M" + num(pts[0].X) + "," + num(pts[0].Y))
	for i := 1; i < len(pts); i++ {
		p, q := pts[i-1], pts[i]
		dy := round((q.Y - p.Y) / 2)
		fmt.Fprintf(&b, "C%s,%s %s,%s %s,%s", num(p.X), num(round(p.Y+dy)), num(q.X), num(round(q.Y-dy)), num(q.X), num(q.Y))
	}
	return b.String()
}

// DOT writes the dependency graph of each set for Graphviz: one digraph per
// CUDA version, a cluster per product, dependents pointing at their
// dependencies; run-time dependencies dashed.
func DOT(w io.Writer, sets []*pkgset.Set) error {
	var b bytes.Buffer
	for i, s := range sets {
		if i > 0 {
			b.WriteString("\n")
		}
		g := graphOf(s)
		fmt.Fprintf(&b, "digraph %s {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", fontsize=10];\n", dotID("cuda "+g.CUDA))
		for pi, p := range g.Products() {
			fmt.Fprintf(&b, "  subgraph %s {\n    label=%s;\n    color=\"#94a3b8\";\n", dotID("cluster_"+p), dotID(p))
			for _, n := range g.Nodes {
				if n.Product == p {
					fmt.Fprintf(&b, "    %s [fillcolor=%s, tooltip=%s];\n", dotID(n.Name), dotID(palette[pi%len(palette)]), dotID(n.Name+" "+n.Release))
				}
			}
			b.WriteString("  }\n")
		}
		for _, e := range g.Edges {
			var attrs []string
			if len(e.Kinds) > 0 {
				attrs = append(attrs, "label="+dotID(strings.Join(e.Kinds, ",")))
				for _, k := range e.Kinds {
					if k == "runtime" {
						attrs = append(attrs, "style=dashed")
					}
				}
			}
			if len(e.Conditions) > 0 {
				attrs = append(attrs, "tooltip="+dotID(strings.Join(e.Conditions, "; ")))
			}
			a := ""
			if len(attrs) > 0 {
				a = " [" + strings.Join(attrs, ", ") + "]"
			}
			fmt.Fprintf(&b, "  %s -> %s%s;\n", dotID(e.From), dotID(e.To), a)
		}
		b.WriteString("}\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// dotID quotes a DOT identifier.
func dotID(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
