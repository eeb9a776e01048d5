package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
)

var (
	//go:embed page/page.html
	pageHTML string
	//go:embed page/page.css
	pageCSS string
	//go:embed page/page.js
	pageJS string
)

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"join": strings.Join}).Parse(pageHTML))

type htmlCell struct {
	Cell
	Text, Count, Summary, Refs string
}

type htmlRow struct {
	CUDA  string
	Cells []htmlCell
}

// HTML writes the report as one self-contained page: styles and script
// inline, the graph as inline SVG, nothing fetched (its Content-Security-Policy
// forbids it).
func (r *Report) HTML(w io.Writer) error {
	var svg bytes.Buffer
	if err := r.Graph.SVG(&svg); err != nil {
		return err
	}
	// Reasons are listed once and cells refer to them by index: many cells
	// share them.
	var reasons []string
	index := map[string]int{}
	var rows []htmlRow
	per := len(r.Products) * len(r.Platforms)
	for i, c := range r.Cells {
		if i%per == 0 {
			rows = append(rows, htmlRow{CUDA: c.CUDA})
		}
		hc := htmlCell{Cell: c, Text: c.Release, Summary: summary(c)}
		if c.Status == None {
			hc.Text = "—"
		}
		if c.Status == Partial {
			hc.Count = fmt.Sprintf("%d/%d", c.Served, c.Total)
		}
		var refs []string
		for _, reason := range c.Reasons {
			why := reason.String()
			k, ok := index[why]
			if !ok {
				k = len(reasons)
				index[why] = k
				reasons = append(reasons, why)
			}
			refs = append(refs, strconv.Itoa(k))
		}
		hc.Refs = strings.Join(refs, ",")
		rows[len(rows)-1].Cells = append(rows[len(rows)-1].Cells, hc)
	}
	if reasons == nil {
		reasons = []string{}
	}
	data := map[string]any{
		"R":       r,
		"Rows":    rows,
		"NPlat":   len(r.Platforms),
		"Last":    r.CUDA[len(r.CUDA)-1],
		"Summary": r.summary(),
		"Reasons": reasons,
		"CSS":     template.CSS(pageCSS),
		"JS":      template.JS(pageJS),
		"SVG":     template.HTML(svg.String()),
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, data); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// summary is a cell in words.
func summary(c Cell) string {
	switch c.Status {
	case OK:
		return fmt.Sprintf("%s %s serves all %d packages on %s", c.Product, c.Release, c.Total, c.Platform)
	case Older:
		return fmt.Sprintf("%s %s serves all %d packages on %s, some from an older release", c.Product, c.Release, c.Total, c.Platform)
	case Partial:
		return fmt.Sprintf("%s %s serves %d of %d packages on %s", c.Product, c.Release, c.Served, c.Total, c.Platform)
	}
	return fmt.Sprintf("nothing of %s serves %s", c.Product, c.Platform)
}

func (r *Report) summary() string {
	n := r.Counts()
	return fmt.Sprintf("%d cells: %d ok, %d older, %d partial, %d none", len(r.Cells), n[OK], n[Older], n[Partial], n[None])
}
