package main

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/report"
)

// The files report writes into --out, by format.
var reportFiles = map[string]string{"html": "index.html", "markdown": "support-matrix.md"}

func (a *app) reportCmd() *cobra.Command {
	var out, format, graph string
	cmd := &cobra.Command{
		Use: "report",
		Example: `  cudapkgs report --out report
  cudapkgs report --format markdown --out docs
  cudapkgs report --graph 13.0.0 --out report`,
		Short: "Write the support matrix: one self-contained HTML page, or Markdown tables",
		Long: `report builds the package sets as query does and writes, for every CUDA version ×
product × platform, the release served or the reasons none is; the GPU capabilities
each CUDA version builds for (Jetson apart from x86_64 and server ARM); nvcc's
host-compiler ranges; and the dependency graph of one set (--graph, default the
newest) drawn as SVG. The HTML page is one file with its styles and script inline:
it fetches nothing and opens from disk. --format markdown writes the matrix,
capabilities and compilers as tables (docs/support-matrix.md is made this way).
With --out, the file is DIR/index.html or DIR/support-matrix.md; without, stdout.
The same inputs give the same bytes. See docs/report.md.

  cudapkgs report --manifests DIR --out report
  cudapkgs report --manifests DIR --format markdown > docs/support-matrix.md
  cudapkgs report --manifests DIR --cuda 12.4.1,13.0.0 --graph 12.4.1 --out report`,
		Args: cobra.NoArgs,
	}
	f := addConfigFlags(cmd)
	cmd.Flags().StringVar(&out, "out", "", "folder to write index.html (or support-matrix.md) to, created if missing; default stdout")
	cmd.Flags().StringVar(&format, "format", "html", "html (one self-contained page) or markdown (tables)")
	cmd.Flags().StringVar(&graph, "graph", "", "the CUDA version whose dependency graph the page draws (default: the newest)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		name, ok := reportFiles[format]
		if !ok {
			return usagef("--format %q: expected html or markdown", format)
		}
		var gv version.Version
		if graph != "" {
			v, err := version.Parse(graph)
			if err != nil {
				return usagef("--graph %q: %v", graph, err)
			}
			gv = v
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
		var products []string
		for _, p := range e.Products {
			products = append(products, p.Name)
		}
		r, err := report.Build(report.Input{Sets: sets, Products: products, Config: e.Config, Graph: gv})
		if err != nil {
			if graph != "" {
				return usageError{err}
			}
			return err
		}
		var buf bytes.Buffer
		if format == "markdown" {
			err = r.Markdown(&buf)
		} else {
			err = r.HTML(&buf)
		}
		if err != nil {
			return err
		}
		if out == "" {
			_, err = a.stdout.Write(buf.Bytes())
			return err
		}
		path := filepath.Join(out, name)
		if err := outdir.WriteFile(path, buf.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "report: wrote %s (%d bytes)\n", path, buf.Len())
		return nil
	}
	return cmd
}
