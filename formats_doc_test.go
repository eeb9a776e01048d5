package cudapkgs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/internal/golden"
)

// The markers around a generated section of a hand-written doc.
const (
	docBegin = "<!-- Generated from cudapkgs.Formats() by `go test . -run TestFormatDocs -update`; do not edit. -->\n"
	docEnd   = "<!-- End of the generated section. -->\n"
)

// TestFormatDocs holds the generated sections of the docs to the formats'
// declarations (refreshed with -update): docs/buck2.md's "Not yet" from
// Buck2's Unsupported list, and docs/output-formats.md's table of what each
// format writes.
func TestFormatDocs(t *testing.T) {
	for _, tt := range []struct {
		path string
		gen  string
	}{
		{filepath.Join("docs", "buck2.md"), notYet(mustFormat(t, buck2.Name))},
		{filepath.Join("docs", "output-formats.md"), factTable(cudapkgs.Formats())},
	} {
		doc, err := os.ReadFile(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := replaceSection(string(doc), tt.gen)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		golden.File(t, tt.path, []byte(got))
	}
}

func mustFormat(t *testing.T, name string) emit.Format {
	t.Helper()
	f, err := cudapkgs.FormatNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// replaceSection puts gen between the doc's markers.
func replaceSection(doc, gen string) (string, error) {
	i := strings.Index(doc, docBegin)
	j := strings.Index(doc, docEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("expected a section between %q and %q", strings.TrimSpace(docBegin), strings.TrimSpace(docEnd))
	}
	return doc[:i+len(docBegin)] + gen + doc[j:], nil
}

// notYet lists what a format does not write, with why.
func notYet(f emit.Format) string {
	var b strings.Builder
	if len(f.Unsupported) == 0 && f.Local {
		return "Every fact an archive carries is written, and an installed CUDA is served.\n"
	}
	fmt.Fprintf(&b, "What an archive carries that `--format %s` does not write yet (its `Unsupported` list, which the\nparity test holds to the output):\n\n", f.Name)
	for _, g := range f.Unsupported {
		fmt.Fprintf(&b, "- **%s**: %s;\n", g.Fact, g.Reason)
	}
	if !f.Local {
		fmt.Fprintf(&b, "- **an installed CUDA** (`--local-cuda`): refused with a usage error.\n")
	}
	return b.String()
}

// factTable is a table of the facts, one column per format.
func factTable(formats []emit.Format) string {
	var b strings.Builder
	b.WriteString("| fact |")
	for _, f := range formats {
		fmt.Fprintf(&b, " `%s` |", f.Name)
	}
	b.WriteString("\n|---|")
	for range formats {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	row := func(name string, yes func(emit.Format) bool) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, f := range formats {
			if yes(f) {
				b.WriteString(" yes |")
			} else {
				b.WriteString(" not yet |")
			}
		}
		b.WriteString("\n")
	}
	for _, fact := range emit.Facts() {
		row(string(fact), func(f emit.Format) bool { return f.Supports(fact) })
	}
	row("an installed CUDA (`--local-cuda`)", func(f emit.Format) bool { return f.Local })
	return b.String()
}
