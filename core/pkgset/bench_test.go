package pkgset_test

import (
	"context"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
)

var allTargets = []string{"linux-x86_64", "linux-sbsa", "linux-jetson", "linux-ppc64le", "windows-x86_64"}

// BenchmarkLoadAndBuildAll is the whole of stages 1 to 3: read and parse every
// manifest in ../shared, evaluate the configuration, and build the package
// set of every CUDA version for every platform.
func BenchmarkLoadAndBuildAll(b *testing.B) {
	dir := shared.Manifests(b)
	for b.Loop() {
		c, err := manifest.LoadDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		cfg, err := config.Evaluate(available(b, c), config.Defaults{}, config.Literal{From: "bench", Options: layer{Targets: allTargets}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := pkgset.Build(context.Background(), cfg, c, builtintest.Products(b)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad is manifest reading and parsing alone.
func BenchmarkLoad(b *testing.B) {
	dir := shared.Manifests(b)
	for b.Loop() {
		if _, err := manifest.LoadDir(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildAll is stages 2 and 3 from manifests already in memory.
func BenchmarkBuildAll(b *testing.B) {
	c := load(b)
	for b.Loop() {
		cfg, err := config.Evaluate(available(b, c), config.Defaults{}, config.Literal{From: "bench", Options: layer{Targets: allTargets}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := pkgset.Build(context.Background(), cfg, c, builtintest.Products(b)); err != nil {
			b.Fatal(err)
		}
	}
}
