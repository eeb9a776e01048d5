package sdk

import (
	"context"
	"strings"
	"testing"
)

type oneProduct struct{ name, product string }

func (f oneProduct) Describe() Description {
	return Description{Name: f.name, Products: []string{f.product}, Renames: []Rename{{Package: f.product + "_new", Replaces: f.product + "_old", Since: "12.0"}}}
}

func (f oneProduct) Fixup(_ context.Context, b *Batch) (*Result, error) {
	return &Result{Packages: []PackageResult{{Name: f.name}}}, nil
}

// TestMerge: a merged plugin describes its parts in order under its own
// name, sends each batch to the part that fixes its product, and refuses a
// product named twice or a batch of a product none fixes.
func TestMerge(t *testing.T) {
	m, err := Merge("both", oneProduct{"a", "pa"}, oneProduct{"b", "pb"})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Describe()
	if d.Name != "both" || strings.Join(d.Products, ",") != "pa,pb" || len(d.Renames) != 2 || d.Renames[1].Package != "pb_new" {
		t.Errorf("description %+v", d)
	}
	for _, tc := range []struct{ product, fixer, err string }{
		{"pa", "a", ""}, {"pb", "b", ""}, {"pc", "", "both: no plugin here fixes product pc"},
	} {
		res, err := m.Fixup(context.Background(), &Batch{Product: tc.product})
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s: got %v, want %q", tc.product, err, tc.err)
		case tc.err == "" && (err != nil || res.Packages[0].Name != tc.fixer):
			t.Errorf("%s: got %+v, %v; want fixer %s", tc.product, res, err, tc.fixer)
		}
	}
	if _, err := Merge("dup", oneProduct{"a", "pa"}, oneProduct{"b", "pa"}); err == nil || !strings.Contains(err.Error(), "product pa is named by two of them") {
		t.Errorf("duplicate product: %v", err)
	}
}
