package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/internal/golden"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// EnvRequireBrowser, set to 1 in CI, makes a missing Chromium, Node or
// playwright-core a failure of TestReportInBrowser instead of a skip.
const EnvRequireBrowser = "CUDAPKGS_REQUIRE_BROWSER"

// browserTools finds what the browser test needs: Chromium, node, and
// playwright-core as .ci/browser-deps installs it (or CUDAPKGS_PLAYWRIGHT).
func browserTools(t *testing.T) (chromium, node, playwright string) {
	t.Helper()
	var missing []string
	chromium = os.Getenv("CUDAPKGS_CHROMIUM")
	if chromium == "" {
		for _, name := range []string{"chromium", "chromium-browser"} {
			if p, err := exec.LookPath(name); err == nil {
				chromium = p
				break
			}
		}
	}
	if chromium == "" {
		missing = append(missing, "chromium")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	playwright = os.Getenv("CUDAPKGS_PLAYWRIGHT")
	if playwright == "" {
		cache, err := os.UserCacheDir()
		if err == nil {
			playwright = filepath.Join(cache, "cudapkgs-browser", "node_modules", "playwright-core")
		}
	}
	if _, err := os.Stat(filepath.Join(playwright, "package.json")); err != nil {
		missing = append(missing, "playwright-core (at "+playwright+")")
	}
	if len(missing) > 0 {
		msg := "the browser test needs " + strings.Join(missing, ", ") + "; install them with `bash .ci/browser-deps`"
		if os.Getenv(EnvRequireBrowser) == "1" {
			t.Fatalf("%s (%s=1 forbids skipping)", msg, EnvRequireBrowser)
		}
		t.Skip(msg)
	}
	return chromium, node, playwright
}

// TestReportInBrowser opens the page made from the shared manifests (the
// same inputs as docs/support-matrix.md) in Debian's Chromium and checks it
// as a user sees it: report/testdata/browser/check.cjs lists the checks. The
// expectations come from query's JSON of the same sets, not from the
// report's own model. -update copies its screenshot to docs/report.png;
// CUDAPKGS_SCREENSHOTS=DIR keeps both screenshots there.
func TestReportInBrowser(t *testing.T) {
	manifests := shared.Manifests(t)
	chromium, node, playwright := browserTools(t)
	ws := t.TempDir()
	page := filepath.Join(ws, "report")
	runOK(t, "report", "--manifests", manifests, "--workspace", ws, "--out", page)
	// Releases of every set, then the newest set's packages for the graph.
	sets := querySets(t, manifests, ws)
	newest := querySets(t, manifests, ws, "--cuda", sets[len(sets)-1].CUDA)[0]
	var eval struct {
		Targets []string `json:"targets"`
	}
	if err := json.Unmarshal(runOK(t, "eval", "--manifests", manifests, "--workspace", ws), &eval); err != nil {
		t.Fatal(err)
	}
	products := map[string]bool{}
	var reason struct{ CUDA, Product, Platform, Text string }
	for _, s := range sets {
		for p := range s.Releases {
			products[p] = true
		}
		for p, why := range s.NoRelease {
			products[p] = true
			if reason.Text == "" || (reason.CUDA == s.CUDA && p < reason.Product) {
				reason.CUDA, reason.Product, reason.Text = s.CUDA, p, why
			}
		}
	}
	if reason.Text == "" {
		t.Fatal("no set lacks a product: nothing to check the reasons with")
	}
	reason.Platform = eval.Targets[0]
	searchRows := 0
	for _, s := range sets {
		for _, why := range s.NoRelease {
			if strings.Contains(why, reason.Text) {
				searchRows++
				break
			}
		}
	}
	var prods []string
	for p := range products {
		prods = append(prods, p)
	}
	sort.Strings(prods)
	nodes, edges := graphOf(newest)
	if len(edges) == 0 {
		t.Fatal("the newest set has no dependency")
	}
	focus, _, _ := strings.Cut(edges[0], " -> ")
	want := map[string]any{
		"cells":          len(sets) * len(prods) * len(eval.Targets),
		"platforms":      len(eval.Targets),
		"products":       len(prods),
		"filterPlatform": eval.Targets[len(eval.Targets)-1],
		"filterProduct":  prods[len(prods)-1],
		"search":         reason.Text,
		"searchRows":     searchRows,
		"reason":         map[string]string{"cuda": reason.CUDA, "product": reason.Product, "platform": reason.Platform, "text": reason.Text},
		"nodes":          nodes,
		"edges":          edges,
		"focus":          focus,
	}
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	expect := filepath.Join(ws, "expect.json")
	if err := os.WriteFile(expect, data, 0o644); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("CUDAPKGS_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, node, filepath.Join("..", "..", "report", "testdata", "browser", "check.cjs"),
		playwright, chromium, filepath.Join(page, "index.html"), expect, shots)
	out, err := cmd.CombinedOutput()
	t.Logf("browser checks (%s):\n%s", time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("browser checks failed: %v", err)
	}
	if golden.Update() {
		png, err := os.ReadFile(filepath.Join(shots, "report.png"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "report.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
