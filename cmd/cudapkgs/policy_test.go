package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/report"
)

// cells builds the support matrix's cells from ../shared with the default
// configuration plus the given options, as `cudapkgs report` does.
func cells(t *testing.T, o config.Options) map[string]report.Cell {
	t.Helper()
	specs, err := cudapkgs.BuiltinSpecs()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := cudapkgs.Evaluate(ctx, cudapkgs.Inputs{Manifests: shared.Manifests(t), Workspace: t.TempDir(), Builtins: specs,
		Layers: []config.Layer{config.Literal{From: "test", Options: o}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sets, err := r.Sets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Build(report.Input{Sets: sets, Config: r.Config})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]report.Cell{}
	for _, c := range rep.Cells {
		out[c.CUDA+" "+c.Product+" "+c.Platform] = c
	}
	return out
}

// newestEverywhere is the newest plain capability of a kind that every
// CUDA version supports: no product's capability floor rules it out, as
// every floor is a minimum.
func newestEverywhere(t *testing.T, cudas []version.Version, jetson bool) string {
	t.Helper()
	best := ""
	for _, c := range gpu.Capabilities() {
		if c.Jetson != jetson || c.Suffix != "" {
			continue
		}
		all := true
		for _, v := range cudas {
			all = all && c.SupportedBy(v)
		}
		if all {
			best = c.Name
		}
	}
	if best == "" {
		t.Fatalf("no capability (jetson %v) serves every CUDA version of ../shared", jetson)
	}
	return best
}

// With the defaults, no cell of the support matrix (every built-in product ×
// every target platform × every CUDA version of ../shared) fails for
// policy: each serves as many packages as with capabilities every product
// supports. A cell that serves fewer is one the default capabilities rule
// out although NVIDIA ships a build for it.
func TestDefaultsFailNoCellForPolicy(t *testing.T) {
	defaults := cells(t, config.Options{})
	var cudas []version.Version
	seen := map[string]bool{}
	for _, c := range defaults {
		if !seen[c.CUDA] {
			seen[c.CUDA] = true
			cudas = append(cudas, version.MustParse(c.CUDA))
		}
	}
	// Capabilities go by kind: one run names a discrete GPU (Jetson keeps
	// its defaults), the other a Jetson one.
	discrete, jetson := newestEverywhere(t, cudas, false), newestEverywhere(t, cudas, true)
	permissive := map[bool]map[string]report.Cell{
		false: cells(t, config.Options{Capabilities: []string{discrete}}),
		true:  cells(t, config.Options{Capabilities: []string{jetson}}),
	}
	failed := 0
	for key, d := range defaults {
		p := permissive[strings.HasSuffix(key, "linux-jetson")][key]
		if d.Served < p.Served {
			failed++
			t.Errorf("%s: %d of %d packages with the defaults, %d with capability %s or %s: %v", key, d.Served, d.Total, p.Served, discrete, jetson, d.Reasons)
		}
	}
	if len(defaults) < 500 {
		t.Errorf("only %d cells: expected every product × platform × CUDA version of ../shared", len(defaults))
	}
	t.Logf("%d cells, %d fail for policy with the defaults", len(defaults), failed)
}

// Capabilities the user names still rule a release out, with the reason:
// Turing, a default nobody chose, narrows cuSPARSELt's judgement; named, it
// leaves the default name unusable.
func TestUserCapabilitiesStillRuleOut(t *testing.T) {
	for _, tt := range []struct {
		caps   []string
		served int
	}{
		{nil, 1},
		{[]string{"7.5", "8.0"}, 0},
	} {
		c := cells(t, config.Options{CUDA: []string{"12.9.0"}, Capabilities: tt.caps})["12.9.0 cusparselt linux-x86_64"]
		if c.Served != tt.served {
			t.Errorf("capabilities %v: cuSPARSELt serves %d packages on linux-x86_64, want %d: %v", tt.caps, c.Served, tt.served, c.Reasons)
		}
		if tt.served == 0 && (len(c.Reasons) == 0 || !strings.Contains(c.Reasons[0].Text, "7.5")) {
			t.Errorf("capabilities %v: reasons %v do not name capability 7.5", tt.caps, c.Reasons)
		}
	}
}

// eval says which targets build default capabilities and which the user's,
// and, on defaults, what each narrowed package was judged against, while
// the gencode still covers every default.
func TestEvalShowsJudgedDefaults(t *testing.T) {
	out := runOK(t, "eval", "--manifests", shared.Manifests(t), "--workspace", t.TempDir(), "--cuda", "12.2.2",
		"--platform", "linux-x86_64,linux-jetson", "--capabilities", "8.7")
	var got struct {
		PerCUDA map[string]map[string]jsonTarget `json:"per_cuda"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	x86, jetson := got.PerCUDA["12.2.2"]["linux-x86_64"], got.PerCUDA["12.2.2"]["linux-jetson"]
	if x86.CapabilitiesFrom != "defaults" || jetson.CapabilitiesFrom != "flags" {
		t.Errorf("capabilities_from: x86_64 %q, jetson %q; want defaults and flags", x86.CapabilitiesFrom, jetson.CapabilitiesFrom)
	}
	if len(jetson.Judged) != 0 {
		t.Errorf("the user's capabilities narrowed: %v", jetson.Judged)
	}
	for pkg, want := range map[string]string{
		"libcusparse_lt": "8.0,8.6,8.9,9.0",
		"tensorrt":       "7.5,8.0,8.6,8.9,9.0",
		"cudnn_jit":      "8.0,8.6,8.9,9.0",
	} {
		if j := strings.Join(x86.Judged[pkg], ","); j != want {
			t.Errorf("x86_64 %s judged against %q, want %q", pkg, j, want)
		}
	}
	if _, ok := x86.Judged["cuda_cudart"]; ok {
		t.Error("cuda_cudart, which has no capability floor, is listed as narrowed")
	}
	if g := strings.Join(x86.Gencode, " "); !strings.Contains(g, "sm_60") || !strings.Contains(g, "sm_75") {
		t.Errorf("gencode %q does not build every default (6.0 to 9.0)", g)
	}
}
