package manifest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// Every real manifest in ../shared must load, with no warnings.
func TestLoadSharedManifests(t *testing.T) {
	c, err := LoadDir(shared.Manifests(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, p := range []string{"cuda", "cudnn", "cutensor", "tensorrt"} {
		files, _ := filepath.Glob(filepath.Join(shared.Manifests(t), p, "redistrib_*.json"))
		want[p] = len(files)
	}
	for p, n := range want {
		if got := len(c.Releases(p)); got != n {
			t.Errorf("%s: %d releases, want %d", p, got, n)
		}
	}
	if ws := c.Warnings(); len(ws) != 0 {
		t.Errorf("warnings on real manifests: %v", ws)
	}
	m := c.Releases("cudnn")[len(c.Releases("cudnn"))-1]
	if m.Release.String() != "9.12.0" {
		t.Errorf("newest cudnn = %s, want 9.12.0 (numeric, not text, order)", m.Release)
	}
	p, ok := m.Package("cudnn")
	if !ok || p.Version.String() != "9.12.0.46" && p.Version.Parts() != 4 {
		t.Errorf("cudnn package version = %v", p.Version)
	}
	if !p.HasVariants() {
		t.Error("cudnn 9.12 has cuda_variant nesting")
	}
	ct := c.Releases("cutensor")[0]
	if lp, _ := ct.Package("libcutensor"); lp.HasVariants() {
		t.Error("cutensor 1.3.2 is flat")
	}
}

func mustV(s string) version.Version { return version.MustParse(s) }

// A Budget bounds the bytes of manifests read across every load of a run
// (issue 24: 40 manifests, each under the 64 MiB limit, took 4.35 GB).
func TestBudget(t *testing.T) {
	data := manyPackages(10, false)
	n := int64(len(data))
	dir := func(products ...string) string {
		d := t.TempDir()
		for _, p := range products {
			if err := os.MkdirAll(filepath.Join(d, p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, p, "redistrib_1.0.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	// Two manifests fit a budget of 2.5 of them; a second load sharing it
	// goes over with its first file, and so does a user's product.
	b := NewBudget(5*n/2, "--max-manifest-bytes")
	if _, err := Load(context.Background(), dir("a", "b"), LoadOptions{Budget: b}); err != nil {
		t.Fatal(err)
	}
	if b.Used() != 2*n {
		t.Errorf("used %d bytes, want %d", b.Used(), 2*n)
	}
	_, err := Load(context.Background(), dir("c"), LoadOptions{Budget: b})
	var be *BudgetError
	if !errors.As(err, &be) || be.Max != 5*n/2 || be.Size != n || be.Total != 3*n ||
		!strings.Contains(err.Error(), "redistrib_1.0.json: its "+strconv.FormatInt(n, 10)+" bytes bring the manifests read in this run to "+strconv.FormatInt(3*n, 10)+" bytes, over the "+strconv.FormatInt(5*n/2, 10)+" bytes limit for all manifests together: refused (raise it with --max-manifest-bytes)") {
		t.Errorf("error = %v, want a *BudgetError", err)
	}
	_, err = LoadProductContext(context.Background(), filepath.Join(dir("d"), "d"), "d", b)
	if !errors.As(err, &be) {
		t.Errorf("user product: error = %v, want a *BudgetError", err)
	}
	// The embedded copy counts too; without a budget nothing is counted.
	if _, err := LoadFS(context.Background(), os.DirFS(dir("e")), "<snapshot>", LoadOptions{Budget: NewBudget(n-1, "")}); !errors.As(err, &be) || strings.Contains(err.Error(), "raise it") {
		t.Errorf("embedded: error = %v, want a *BudgetError naming no way to raise it", err)
	}
	if _, err := Load(context.Background(), dir("a", "b", "c"), LoadOptions{}); err != nil {
		t.Errorf("no budget: %v", err)
	}
	if NewBudget(0, "").Max() != DefaultMaxTotal {
		t.Errorf("default limit %d", NewBudget(0, "").Max())
	}
}
