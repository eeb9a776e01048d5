package manifest

import (
	"path/filepath"
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
