package sdk

import (
	"context"
	"fmt"
	"slices"
)

// Merge is one plugin made of several: it describes itself as name, with
// the products, facts and renames of every fixer in order
// (MergeDescriptions), and sends each batch to the fixer whose products
// include the batch's. One process then serves them all: cudapkgs serves
// its built-ins this way (a process start costs more CPU than most runs'
// answers, docs/benchmarks.md), and a site with several plugins of its own
// can do the same. Two fixers must not name the same product.
func Merge(name string, fixers ...Fixer) (Fixer, error) {
	m := &merged{byProduct: map[string]Fixer{}}
	descs := make([]Description, len(fixers))
	for i, f := range fixers {
		descs[i] = f.Describe()
		for _, p := range descs[i].Products {
			if _, dup := m.byProduct[p]; dup {
				return nil, fmt.Errorf("merging plugins into %s: product %s is named by two of them", name, p)
			}
			m.byProduct[p] = f
		}
	}
	m.desc = MergeDescriptions(name, descs...)
	return m, nil
}

// MergeDescriptions is the description of a Merge of plugins that describe
// themselves as descs, in that order: what a host expects of the merged
// plugin when it knows its parts.
func MergeDescriptions(name string, descs ...Description) Description {
	out := Description{Name: name}
	for _, d := range descs {
		out.Products = append(out.Products, d.Products...)
		out.Renames = append(out.Renames, d.Renames...)
		out.Facts = append(out.Facts, d.Facts...)
	}
	return out
}

type merged struct {
	desc      Description
	byProduct map[string]Fixer
}

func (m *merged) Describe() Description {
	d := m.desc
	d.Products = slices.Clone(d.Products)
	d.Renames = slices.Clone(d.Renames)
	d.Facts = slices.Clone(d.Facts)
	return d
}

func (m *merged) Fixup(ctx context.Context, b *Batch) (*Result, error) {
	f, ok := m.byProduct[b.Product]
	if !ok {
		return nil, fmt.Errorf("%s: no plugin here fixes product %s", m.desc.Name, b.Product)
	}
	return f.Fixup(ctx, b)
}
