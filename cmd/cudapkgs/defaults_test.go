package main

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// With the default configuration, every set's default cudnn, libcutensor,
// libcusparse_lt, libcudss and tensorrt are usable on every platform where any of their releases is
// (the plugins' verdicts choose the default, not the order of releases);
// where none is, the reason names why each release is ruled out.
func TestDefaultsUsableWhereAnyReleaseIs(t *testing.T) {
	code, out, errs := runCLI(t, "query", "--manifests", shared.Manifests(t), "--format", "json")
	if code != 0 {
		t.Fatalf("query exited %d: %s", code, errs)
	}
	type pkg struct {
		Manifest    string              `json:"manifest_name"`
		Release     string              `json:"release"`
		Platforms   map[string]any      `json:"platforms"`
		Unavailable map[string][]string `json:"unavailable"`
		ServedBy    map[string]struct {
			Name string `json:"name"`
		} `json:"served_by"`
	}
	var sets map[string]struct {
		Packages map[string]pkg `json:"packages"`
	}
	if err := json.Unmarshal([]byte(out), &sets); err != nil {
		t.Fatal(err)
	}
	usable := func(p pkg, plat string) bool { return p.Platforms[plat] != nil && len(p.Unavailable[plat]) == 0 }
	served := 0
	for cuda, s := range sets {
		for _, def := range []string{"cudnn", "libcutensor", "libcusparse_lt", "libcudss", "tensorrt"} {
			d, ok := s.Packages[def]
			if !ok {
				continue
			}
			var versioned []string
			for name, p := range s.Packages {
				if p.Manifest == def && name != def {
					versioned = append(versioned, name)
				}
			}
			sort.Strings(versioned)
			for _, plat := range []string{"linux-x86_64", "linux-sbsa", "linux-jetson"} {
				var any []string
				for _, v := range versioned {
					if usable(s.Packages[v], plat) {
						any = append(any, v)
					}
				}
				switch {
				case len(any) > 0 && !usable(d, plat):
					t.Errorf("CUDA %s: %s unusable on %s although %v serve it: %v", cuda, def, plat, any, d.Unavailable[plat])
				case len(any) == 0 && !usable(d, plat) && d.Release != "" && !strings.Contains(strings.Join(d.Unavailable[plat], " "), "no older release serves "+plat):
					for _, v := range versioned {
						if version.MustParse(s.Packages[v].Release).Less(version.MustParse(d.Release)) {
							t.Errorf("CUDA %s: %s on %s: no reason names the older releases: %v", cuda, def, plat, d.Unavailable[plat])
							break
						}
					}
				}
				if sb, ok := d.ServedBy[plat]; ok {
					served++
					if !usable(s.Packages[sb.Name], plat) {
						t.Errorf("CUDA %s: %s on %s served by %s, which is not usable there", cuda, def, plat, sb.Name)
					}
				}
			}
		}
	}
	if served == 0 {
		t.Error("no default was served by an older release; the test no longer tests anything")
	}
}
