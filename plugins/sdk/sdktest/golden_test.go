package sdktest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

func thing() sdk.Fixer {
	return sdk.Product{Name: "thing", Title: "Thing", Path: "compute/thing/redist", Platforms: []string{"linux-x86_64"},
		Packages: []sdk.PackageSpec{{Manifest: "libthing", Files: []sdk.FileSpec{sdk.Header("include"), sdk.Shared("lib/libthing.so", sdk.ReleaseMajor)},
			Deps: []sdk.DepSpec{{Package: "cuda_cudart"}}}}}.Fixer()
}

func batch(release string) *sdk.Batch {
	return &sdk.Batch{CUDA: "12.4.0", Product: "thing", Config: sdk.Config{Targets: []string{"linux-x86_64"}},
		Packages: []sdk.Package{{Name: "libthing", Manifest: "libthing", Product: "thing", Release: release, Version: release,
			Archives: []sdk.Archive{{Platform: "linux-x86_64"}}}},
		SetPackages: []sdk.SetPackage{{Name: "libthing", Manifest: "libthing", Product: "thing", Release: release},
			{Name: "cuda_cudart", Manifest: "cuda_cudart", Product: "cuda", Release: "12.4.0"}}}
}

// TestGoldenRoundTrip: fixtures written, goldens written under update, then
// held; a changed answer, a missing golden, a broken fixture and a fixture
// of another shape are each an error naming the file.
func TestGoldenRoundTrip(t *testing.T) {
	dir := t.TempDir()
	WriteFixtures(t, dir, map[string]*sdk.Batch{"one": batch("1.2.0"), "two": batch("2.0.0")})
	Golden(t, thing(), dir, true)
	Golden(t, thing(), dir, false)
	data, err := os.ReadFile(filepath.Join(dir, "two.golden.json"))
	if err != nil || !strings.Contains(string(data), `"lib/libthing.so.2"`) {
		t.Fatalf("golden of two: %v\n%s", err, data)
	}
	// Fixtures no longer given go, with their goldens.
	WriteFixtures(t, dir, map[string]*sdk.Batch{"one": batch("1.2.0")})
	if _, err := os.Stat(filepath.Join(dir, "two.golden.json")); !os.IsNotExist(err) {
		t.Errorf("two's golden stayed: %v", err)
	}

	c := Run(t, thing())
	fixture := filepath.Join(dir, "one.batch.json")
	golden := filepath.Join(dir, "one.golden.json")
	for _, tt := range []struct {
		name string
		edit func() error
		want string
	}{
		{"changed answer", func() error {
			return os.WriteFile(golden, []byte(strings.Replace(string(mustRead(t, golden)), "libthing.so.1", "libthing.so.9", 1)), 0o644)
		}, "one.golden.json differs"},
		{"no golden", func() error { return os.Remove(golden) }, "run the test with -update"},
		{"broken fixture", func() error { return os.WriteFile(fixture, []byte("{"), 0o644) }, "one.batch.json: expected a batch as JSON"},
		{"another shape", func() error { return os.WriteFile(fixture, []byte(`{"Releases": "12"}`), 0o644) }, `unknown field "Releases"`},
	} {
		WriteFixtures(t, dir, map[string]*sdk.Batch{"one": batch("1.2.0")})
		if err := check(c, fixture, true); err != nil {
			t.Fatal(err)
		}
		if err := tt.edit(); err != nil {
			t.Fatal(err)
		}
		if err := check(c, fixture, false); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
