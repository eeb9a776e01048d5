package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/golden"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// runOK runs a command line in process and returns its stdout.
func runOK(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb, false); code != 0 {
		t.Fatalf("cudapkgs %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.Bytes()
}

// The committed support matrix is what `report --format markdown` makes
// from the shared manifests with the default configuration. Refresh it with
// go test ./cmd/cudapkgs -run TestSupportMatrixUpToDate -update.
func TestSupportMatrixUpToDate(t *testing.T) {
	manifests := shared.Manifests(t)
	got := runOK(t, "report", "--format", "markdown", "--manifests", manifests, "--workspace", t.TempDir())
	golden.File(t, filepath.Join("..", "..", "docs", "support-matrix.md"), got)
}

// The page is the same bytes from run to run, and --out writes it.
func TestReportDeterministic(t *testing.T) {
	manifests := shared.Manifests(t)
	ws := t.TempDir()
	args := []string{"report", "--manifests", manifests, "--workspace", ws, "--cuda", "12.4.1,13.0.0"}
	a, b := runOK(t, args...), runOK(t, args...)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs wrote different pages")
	}
	out := filepath.Join(ws, "report")
	runOK(t, append(args, "--out", out)...)
	c, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, c) {
		t.Fatal("--out wrote a different page from stdout's")
	}
	if !bytes.Contains(a, []byte("Dependency graph of the CUDA 13.0.0 package set")) {
		t.Error("the graph is not the newest set's by default")
	}
	g := runOK(t, append(args, "--graph", "12.4.1")...)
	if !bytes.Contains(g, []byte("Dependency graph of the CUDA 12.4.1 package set")) {
		t.Error("--graph 12.4.1 does not draw 12.4.1's set")
	}
	var errb bytes.Buffer
	if code := run(context.Background(), append(args, "--graph", "11.8.0"), &bytes.Buffer{}, &errb, false); code != exitUsage || !strings.Contains(errb.String(), "no package set for CUDA 11.8.0") {
		t.Errorf("--graph of a version not configured: exit %d, %s", code, errb.String())
	}
	if code := run(context.Background(), append(args, "--format", "pdf"), &bytes.Buffer{}, &errb, false); code != exitUsage {
		t.Errorf("--format pdf: exit %d", code)
	}
}

// query --format dot gives one digraph per set with an edge per dependency.
func TestQueryDOT(t *testing.T) {
	manifests := shared.Manifests(t)
	ws := t.TempDir()
	dot := string(runOK(t, "query", "--manifests", manifests, "--workspace", ws, "--cuda", "12.4.1", "--format", "dot"))
	sets := querySets(t, manifests, ws, "--cuda", "12.4.1")
	if strings.Count(dot, "digraph ") != 1 || !strings.HasPrefix(dot, `digraph "cuda 12.4.1" {`) {
		t.Fatalf("want one digraph for 12.4.1:\n%.300s", dot)
	}
	_, edges := graphOf(sets[0])
	if n := strings.Count(dot, " -> "); n != len(edges) {
		t.Errorf("%d edges in the DOT, want %d", n, len(edges))
	}
	for _, e := range edges {
		from, to, _ := strings.Cut(e, " -> ")
		if !strings.Contains(dot, `"`+from+`" -> "`+to+`"`) {
			t.Errorf("edge %s missing", e)
		}
	}
}

// querySet is the part of query's JSON the report tests read.
type querySet struct {
	CUDA      string
	Releases  map[string]string `json:"releases"`
	NoRelease map[string]string `json:"no_release"`
	Packages  map[string]struct {
		Deps []struct {
			Name string `json:"name"`
		} `json:"deps"`
	} `json:"packages"`
}

func querySets(t *testing.T, manifests, ws string, flags ...string) []querySet {
	t.Helper()
	out := runOK(t, append([]string{"query", "--manifests", manifests, "--workspace", ws, "--format", "json"}, flags...)...)
	// Keep the versions in order: decode the object key by key.
	dec := json.NewDecoder(bytes.NewReader(out))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var sets []querySet
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var s querySet
		if err := dec.Decode(&s); err != nil {
			t.Fatal(err)
		}
		s.CUDA = k.(string)
		sets = append(sets, s)
	}
	return sets
}

// graphOf lists a set's packages and its dependency pairs ("a -> b").
func graphOf(s querySet) (nodes, edges []string) {
	seen := map[string]bool{}
	for name, p := range s.Packages {
		nodes = append(nodes, name)
		for _, d := range p.Deps {
			e := name + " -> " + d.Name
			if _, ok := s.Packages[d.Name]; ok && d.Name != name && !seen[e] {
				seen[e] = true
				edges = append(edges, e)
			}
		}
	}
	sort.Strings(nodes)
	sort.Strings(edges)
	return nodes, edges
}
