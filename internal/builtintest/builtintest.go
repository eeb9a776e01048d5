// Package builtintest gives tests the built-in products without starting
// the plugins: what each built-in's Describe says, made into the core's
// types the way a run makes them.
package builtintest

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/splice"
	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
)

// Products are the built-in products, the toolkit first.
func Products(t testing.TB) []pkgset.Product {
	t.Helper()
	ps, err := pkgset.FromFacts(builtin.Facts())
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// Toolchain is the toolkit plugin's nvcc toolchain.
func Toolchain(t testing.TB) splice.Toolchain {
	t.Helper()
	for _, f := range builtin.Facts() {
		if f.Toolchain != nil {
			tc, err := splice.ToolchainFrom(*f.Toolchain)
			if err != nil {
				t.Fatal(err)
			}
			return tc
		}
	}
	t.Fatal("no built-in plugin describes a toolchain")
	return splice.Toolchain{}
}

// Env builds sets and batches with every built-in product.
func Env() fixuptest.Env { return fixuptest.New(builtin.Fixers()...) }
