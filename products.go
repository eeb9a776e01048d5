package cudapkgs

import (
	"fmt"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/splice"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Toolkit is what the toolkit product's plugin says beyond its files: the
// nvcc toolchain and how to read an installed toolkit.
type Toolkit struct {
	Product       string
	Toolchain     splice.Toolchain
	LocalHints    []localcuda.Hint
	LocalIdentify []string
}

// products turns the plugins' facts (checked by the host at Describe) into
// the core's product list and the toolkit's description.
func products(facts []sdk.ProductFacts) ([]pkgset.Product, Toolkit, error) {
	ps, err := pkgset.FromFacts(facts)
	if err != nil {
		return nil, Toolkit{}, err
	}
	var tk Toolkit
	for _, f := range facts {
		if !f.Toolkit {
			continue
		}
		tk = Toolkit{Product: f.Product, LocalIdentify: f.LocalIdentify}
		for _, h := range f.LocalHints {
			tk.LocalHints = append(tk.LocalHints, localcuda.Hint{Component: h.Component, Rel: h.Rel, Kind: h.Kind, Key: h.Key})
		}
		if f.Toolchain != nil {
			if tk.Toolchain, err = splice.ToolchainFrom(*f.Toolchain); err != nil {
				return nil, Toolkit{}, fmt.Errorf("product %s: %w", f.Product, err)
			}
		}
	}
	return ps, tk, nil
}
