// Package fixuptest builds plugin batches from the real manifests for tests.
package fixuptest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/internal/golden"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
	"github.com/cudapkgs/cudapkgs/plugins/sdk/sdktest"
)

// Env builds sets and batches with the products some plugins describe. A
// plugin's tests name the toolkit's plugin and the plugins of the products
// their package depends on; other tests take every built-in.
type Env struct{ descs []sdk.Description }

// New is an Env of the products the fixers describe.
func New(fixers ...sdk.Fixer) Env {
	var e Env
	for _, f := range fixers {
		e.descs = append(e.descs, f.Describe())
	}
	return e
}

// Sets builds, from the real manifests in ../shared, the configuration and
// package sets of some CUDA versions for the given target platforms (all
// five when none). Capabilities are the defaults unless caps is set.
func (e Env) Sets(t testing.TB, cudas []string, targets []string, caps ...string) (*config.Config, []*pkgset.Set) {
	t.Helper()
	ps, err := fixup.ProductsOf(e.descs...)
	if err != nil {
		t.Fatal(err)
	}
	products := ps.List
	coll, err := manifest.LoadDir(shared.Manifests(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) == 0 {
		targets = []string{"linux-x86_64", "linux-sbsa", "linux-jetson", "linux-ppc64le", "windows-x86_64"}
	}
	avail := pkgset.Available(coll, products)
	o := config.Options{CUDA: cudas, Targets: targets}
	if len(caps) > 0 {
		o.Capabilities = caps
	}
	cfg, err := config.Evaluate(avail, config.Defaults{}, config.Literal{From: "test", Options: o})
	if err != nil {
		t.Fatal(err)
	}
	sets, err := pkgset.Build(context.Background(), cfg, coll, products)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, sets
}

// Batch builds the batch of one product for one CUDA version, as Sets does.
func (e Env) Batch(t testing.TB, product, cuda string, targets []string, caps ...string) *sdk.Batch {
	t.Helper()
	cfg, sets := e.Sets(t, []string{cuda}, targets, caps...)
	for _, b := range fixup.Batches(cfg, sets[0]) {
		if b.Product == product {
			return b
		}
	}
	t.Fatalf("no %s packages for CUDA %s", product, cuda)
	return nil
}

// Cache builds each CUDA version's batch of one product once per test
// binary (building one reads every manifest). Tests that change a batch copy
// it first.
type Cache struct {
	env     Env
	product string
	mu      sync.Mutex
	batches map[string]*sdk.Batch
}

// NewCache returns an empty cache for a product's batches with all targets.
func (e Env) NewCache(product string) *Cache {
	return &Cache{env: e, product: product, batches: map[string]*sdk.Batch{}}
}

// Batch returns the product's batch for a CUDA version.
func (c *Cache) Batch(t testing.TB, cuda string) *sdk.Batch {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.batches[cuda]; ok {
		return b
	}
	b := c.env.Batch(t, c.product, cuda, nil)
	c.batches[cuda] = b
	return b
}

// Fix runs a fixer on a batch in process, checks that it answered every
// package once, and returns the answers by package name, with what the host
// adds for the platforms the plugin declares no support for
// (fixup.NotSupported).
func Fix(t testing.TB, f sdk.Fixer, b *sdk.Batch) map[string]sdk.PackageResult {
	t.Helper()
	res, err := f.Fixup(context.Background(), b)
	if err != nil {
		t.Fatalf("Fixup(CUDA %s): %v", b.CUDA, err)
	}
	for _, pf := range f.Describe().Facts {
		if pf.Product == b.Product && len(pf.Platforms) > 0 {
			fixup.NotSupported(pf.Platforms, b, res)
		}
	}
	if len(res.Packages) != len(b.Packages) {
		t.Fatalf("Fixup(CUDA %s) answered %d packages for %d", b.CUDA, len(res.Packages), len(b.Packages))
	}
	out := map[string]sdk.PackageResult{}
	for _, r := range res.Packages {
		out[r.Name] = r
	}
	return out
}

// Golden is a plugin's golden test: the batches of product for each case
// ("12.9.0", or "12.4.1:5.0,6.1" for those capabilities on every target),
// kept in testdata as fixtures, and the plugin's answers to them, held by
// sdktest.Golden. The test reads only testdata, so it runs without
// ../shared; -update rebuilds the fixtures from ../shared's manifests and
// rewrites the answers.
func (e Env) Golden(t *testing.T, f sdk.Fixer, product string, cases ...string) {
	t.Helper()
	if golden.Update() {
		batches := map[string]*sdk.Batch{}
		for _, c := range cases {
			cuda, caps, _ := strings.Cut(c, ":")
			name := "cuda-" + cuda
			var capList []string
			if caps != "" {
				capList = strings.Split(caps, ",")
				name += "-capabilities-" + strings.Join(capList, "-")
			}
			batches[name] = e.Batch(t, product, cuda, nil, capList...)
		}
		sdktest.WriteFixtures(t, "testdata", batches)
	}
	sdktest.Golden(t, f, "testdata", golden.Update())
}

// Manifests reads every manifest of product in ../shared: by file name
// (redistrib_<release>.json), its top-level keys, packages and the strings
// beside them (release_date...) alike.
func Manifests(t testing.TB, product string) map[string]map[string]json.RawMessage {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(shared.Manifests(t), product, "redistrib_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s manifests: %v", product, err)
	}
	out := map[string]map[string]json.RawMessage{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = top
	}
	return out
}

// EveryPackageKnown fails on a package (a top-level key whose value is an
// object) of product's manifests in ../shared that the plugin's
// declaration does not know.
func EveryPackageKnown(t *testing.T, product string, knows func(manifest string) bool) {
	t.Helper()
	for file, top := range Manifests(t, product) {
		for k, v := range top {
			if strings.HasPrefix(string(v), "{") && !knows(k) {
				t.Errorf("%s: package %s is not known to the %s plugin", file, k, product)
			}
		}
	}
}

// safePath is a relative path a label may hold.
var safePath = regexp.MustCompile(`^[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*$`)

// CheckFiles holds a platform's answer to the file model: safe relative
// paths, each once, shared libraries by their SONAME file and only they
// with a SONAME, binaries run on the build machine and everything else for
// the target.
func CheckFiles(t testing.TB, what string, files []sdk.File) {
	t.Helper()
	seen := map[string]bool{}
	for _, f := range files {
		if !safePath.MatchString(f.Path) || slices.Contains(strings.Split(f.Path, "/"), "..") {
			t.Errorf("%s: unsafe path %q", what, f.Path)
		}
		if seen[f.Path] {
			t.Errorf("%s: %s listed twice", what, f.Path)
		}
		seen[f.Path] = true
		if (f.Kind == sdk.SharedLib) != (f.SONAME != "") || (f.SONAME != "" && !strings.HasSuffix(f.Path, "/"+f.SONAME)) {
			t.Errorf("%s: %s: kind %s with SONAME %q", what, f.Path, f.Kind, f.SONAME)
		}
		if f.Kind == sdk.Binary && f.Role != sdk.Exec || f.Kind != sdk.Binary && f.Role != sdk.Target {
			t.Errorf("%s: %s: kind %s with role %s", what, f.Path, f.Kind, f.Role)
		}
	}
}

// Paths are the paths of the files of a kind, in order.
func Paths(files []sdk.File, kind sdk.Kind) []string {
	var out []string
	for _, f := range files {
		if f.Kind == kind {
			out = append(out, f.Path)
		}
	}
	return out
}
