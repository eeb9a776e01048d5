// Package builtintest gives tests the built-in products without starting
// the plugins: what each built-in's Describe says, made into the core's
// types the way a run makes them.
package builtintest

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/splice"
	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
)

func products(t testing.TB) fixup.Products {
	t.Helper()
	ps, err := builtin.Products()
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// Products are the built-in products, the toolkit first.
func Products(t testing.TB) []pkgset.Product {
	t.Helper()
	return products(t).List
}

// Toolchain is the toolkit plugin's nvcc toolchain.
func Toolchain(t testing.TB) splice.Toolchain {
	t.Helper()
	return products(t).Toolkit.Toolchain
}

// Env builds sets and batches with every built-in product.
func Env() fixuptest.Env { return fixuptest.New(builtin.Fixers()...) }
