package wheelfiles

import (
	"context"
	"slices"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Check runs fixer on the real batch of every listed wheel of product (the
// CUDA release of the listing, for the target platform of its arch) and
// fails t on every difference Compare finds between the answer for the
// wheel's packages of its release and the wheel's files.
func Check(t *testing.T, env fixuptest.Env, fixer sdk.Fixer, product string) {
	t.Helper()
	ls, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ cuda, platform string }
	batches := map[key]*sdk.Batch{}
	results := map[key]*sdk.Result{}
	n := 0
	for _, l := range ls {
		if l.Product != product {
			continue
		}
		n++
		cuda := l.CUDA
		if cuda == "" {
			cuda = l.Release
		}
		k := key{cuda, l.Platform()}
		if _, ok := batches[k]; !ok {
			b := env.Batch(t, product, cuda, []string{l.Platform()})
			r, err := fixer.Fixup(context.Background(), b)
			if err != nil {
				t.Fatalf("%s: Fixup(CUDA %s): %v", l.Key(), cuda, err)
			}
			batches[k], results[k] = b, r
		}
		byName := map[string]sdk.PackageResult{}
		for _, p := range results[k].Packages {
			byName[p.Name] = p
		}
		var own, all []sdk.File
		found := map[string]bool{}
		for _, p := range batches[k].Packages {
			if p.Release != l.Release {
				continue
			}
			pr := byName[p.Name].Platforms[l.Platform()]
			all = append(all, pr.Files...)
			// The package under its default name and its versioned one
			// (cudnn, cudnn_9_1) answer alike; one is enough.
			if !slices.Contains(l.Packages, p.Manifest) || found[p.Manifest] {
				continue
			}
			found[p.Manifest] = true
			if len(pr.Unusable) > 0 && len(pr.Files) == 0 {
				t.Errorf("%s: %s %s is unusable on %s: %q", l.Key(), p.Manifest, p.Release, l.Platform(), pr.Unusable)
			}
			own = append(own, pr.Files...)
		}
		for _, m := range l.Packages {
			if !found[m] {
				t.Errorf("%s: the %s batch of CUDA %s has no package %s of release %s", l.Key(), product, cuda, m, l.Release)
			}
		}
		for _, msg := range Compare(l, own, all, Allowed) {
			t.Errorf("%s %s %v: %s", product, l.Release, l.Packages, msg)
		}
	}
	if n == 0 {
		t.Fatalf("no %s wheel listings", product)
	}
}
