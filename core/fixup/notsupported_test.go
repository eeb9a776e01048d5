package fixup

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// TestNotSupported: the host, not each plugin, says why an archive for a
// platform the product's plugin does not describe cannot be used: in the
// redist plugin's words for Windows, first, before the plugin's own reasons,
// with no files; nothing for a plugin that declares no platforms, or where
// the plugin said it already.
func TestNotSupported(t *testing.T) {
	lib := []sdk.File{{Path: "include", Kind: sdk.Headers, Role: sdk.Target}}
	batch := &sdk.Batch{CUDA: "12.4.0", Product: "acme", Config: sdk.Config{Targets: []string{"linux-x86_64", "linux-ppc64le", "windows-x86_64"}},
		Packages: []sdk.Package{{Name: "libacme", Archives: []sdk.Archive{{Platform: "linux-x86_64"}, {Platform: "linux-ppc64le"}, {Platform: "windows-x86_64"}}}}}
	answer := func() *sdk.Result {
		return &sdk.Result{Packages: []sdk.PackageResult{{Name: "libacme", Platforms: map[string]sdk.PlatformResult{
			"linux-x86_64":   {Files: lib},
			"linux-ppc64le":  {Files: lib, Judged: []string{"7.0"}},
			"windows-x86_64": {Files: lib, Unusable: []string{"a floor"}},
		}}}}
	}
	for _, tt := range []struct {
		name      string
		described []string
		want      map[string]sdk.PlatformResult
	}{
		{"none declared", nil, answer().Packages[0].Platforms},
		{"linux-x86_64 only", []string{"linux-x86_64"}, map[string]sdk.PlatformResult{
			"linux-x86_64":   {Files: lib},
			"linux-ppc64le":  {Unusable: []string{"cudapkgs does not describe acme's linux-ppc64le archives: the plugin for acme declares no support for linux-ppc64le"}},
			"windows-x86_64": {Unusable: []string{reasonWindows, "a floor"}},
		}},
	} {
		r := answer()
		NotSupported(tt.described, batch, r)
		if d := cmp.Diff(tt.want, r.Packages[0].Platforms); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
	// A plugin that already says it is not repeated.
	r := answer()
	r.Packages[0].Platforms["windows-x86_64"] = sdk.PlatformResult{Unusable: []string{"a floor", reasonWindows}}
	NotSupported([]string{"linux-x86_64", "linux-ppc64le"}, batch, r)
	if d := cmp.Diff([]string{"a floor", reasonWindows}, r.Packages[0].Platforms["windows-x86_64"].Unusable); d != "" {
		t.Errorf("said twice (-want +got):\n%s", d)
	}
}

// wrapper fixes a product with another plugin's answers and gives no facts
// of its own, as plugins/examples/sitepolicy wraps the built-in cuDNN.
type wrapper struct{ sdk.Fixer }

func (w wrapper) Describe() sdk.Description {
	return sdk.Description{Name: "wrapper", Products: w.Fixer.Describe().Products}
}

// TestPlatformsOfAWrappedProduct: the platforms come from the facts the
// product is described with, the wrapped plugin's when the wrapper gives
// none, so a wrapped product still says "not supported" for Windows.
func TestPlatformsOfAWrappedProduct(t *testing.T) {
	declared := sdk.Product{Name: "acme", Title: "Acme", Path: "compute/acme/redist", Platforms: []string{"linux-x86_64"},
		Packages: []sdk.PackageSpec{{Manifest: "libacme"}}}.Fixer()
	for _, tt := range []struct {
		name   string
		fixers []sdk.Fixer
		want   []string
	}{
		{"declared", []sdk.Fixer{declared}, []string{"linux-x86_64"}},
		{"wrapped", []sdk.Fixer{declared, wrapper{declared}}, []string{"linux-x86_64"}},
		{"no facts at all", []sdk.Fixer{wrapper{declared}}, nil},
	} {
		h := InProcess(Options{}, tt.fixers...)
		if got := h.platformsOf("acme"); !cmp.Equal(got, tt.want) {
			t.Errorf("%s: platformsOf(acme) = %v, want %v", tt.name, got, tt.want)
		}
		if h.byProduct["acme"].desc.Name != tt.fixers[len(tt.fixers)-1].Describe().Name {
			t.Errorf("%s: acme is fixed by %s", tt.name, h.byProduct["acme"].desc.Name)
		}
	}
}
