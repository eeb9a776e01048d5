package fixup_test

import (
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// A plugin's judged capabilities must be what JudgeCapabilities can give:
// some, not all, of a default target's capabilities, on a usable package.
func TestJudgedValidated(t *testing.T) {
	batch := func() *sdk.Batch {
		return &sdk.Batch{CUDA: "12.2.2", Product: "demo",
			Config: sdk.Config{Targets: []string{"linux-x86_64", "linux-jetson"},
				Capabilities:             map[string][]string{"linux-x86_64": {"7.5", "8.0", "8.6"}, "linux-jetson": {"7.2", "8.7"}},
				DefaultCapabilityTargets: []string{"linux-x86_64"}},
			Packages: []sdk.Package{{Name: "demo", Manifest: "demo", Product: "demo", Release: "1.0", Version: "1.0.0",
				Archives: []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64"}, {Platform: "linux-jetson", Key: "linux-aarch64"}}}}}
	}
	tests := []struct {
		name string
		plat string
		pr   sdk.PlatformResult
		want string // "" for accepted
	}{
		{"narrowed", "linux-x86_64", sdk.PlatformResult{Judged: []string{"8.0", "8.6"}}, ""},
		{"user's capabilities", "linux-jetson", sdk.PlatformResult{Judged: []string{"8.7"}}, "but the user set this target's capabilities (7.2, 8.7)"},
		{"all of them", "linux-x86_64", sdk.PlatformResult{Judged: []string{"7.5", "8.0", "8.6"}}, "expected fewer than the target's defaults"},
		{"not a default", "linux-x86_64", sdk.PlatformResult{Judged: []string{"9.0"}}, `capability "9.0", which is not one of the target's defaults (7.5, 8.0, 8.6)`},
		{"and unusable", "linux-x86_64", sdk.PlatformResult{Judged: []string{"8.0"}, Unusable: []string{"no"}}, "expected judged capabilities only on a package usable there"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &sdk.Result{Packages: []sdk.PackageResult{{Name: "demo", Platforms: map[string]sdk.PlatformResult{tt.plat: tt.pr}}}}
			err := fixup.Validate("demo-plugin", batch(), r)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == "":
			case err == nil:
				t.Fatalf("accepted, want an error containing %q", tt.want)
			case !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "plugin demo-plugin: Fixup(CUDA 12.2.2, product demo): package demo: "+tt.plat):
				t.Errorf("error %q does not name the plugin, package and platform, or lacks %q", err, tt.want)
			}
		})
	}
}
