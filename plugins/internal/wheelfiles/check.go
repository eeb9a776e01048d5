package wheelfiles

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Check runs fixer on the batch of every listed wheel of product at every
// release that ships it (Release and Also; the CUDA release of the listing,
// for the target platform of its arch) and fails t on every difference
// Compare finds between the answer for the wheel's packages of that release
// and the wheel's files.
//
// The batch is the real one where ../shared has the release's manifest, and
// the listed wheel must then be the manifest's version. Point releases that
// have wheels on PyPI but no manifest here (CUDA 13.0.1, 13.1, 13.2) get a
// batch made of their listed wheels: the packages those wheels are, at the
// wheels' versions, each with an archive for the wheel's platform. That is
// what NVIDIA's manifest of the release holds for them, so the tables are
// checked at every release whose files are known, and a range boundary
// placed at the wrong point release fails.
func Check(t *testing.T, env fixuptest.Env, fixer sdk.Fixer, product string) {
	t.Helper()
	ls, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	manifests := shared.Manifests(t)
	type key struct{ release, cuda, platform string }
	batches := map[key]*sdk.Batch{}
	results := map[key]*sdk.Result{}
	n := 0
	for _, l := range ls {
		if l.Product != product {
			continue
		}
		for _, release := range l.Releases() {
			n++
			cuda := l.CUDA
			if cuda == "" {
				cuda = release
			}
			_, err := os.Stat(filepath.Join(manifests, product, "redistrib_"+release+".json"))
			real := err == nil
			k := key{cuda: cuda, platform: l.Platform()}
			if !real {
				k.release = release // a batch of this release's wheels only
			}
			if _, ok := batches[k]; !ok {
				var b *sdk.Batch
				if real {
					b = env.Batch(t, product, cuda, []string{l.Platform()})
				} else {
					b = WheelBatch(ls, product, release, cuda, l.Arch)
				}
				r, err := fixer.Fixup(context.Background(), b)
				if err != nil {
					t.Fatalf("%s: Fixup(CUDA %s): %v", l.Key(), cuda, err)
				}
				batches[k], results[k] = b, r
			}
			checkOne(t, l, release, cuda, batches[k], results[k])
		}
	}
	if n == 0 {
		t.Fatalf("no %s wheel listings", product)
	}
}

func checkOne(t *testing.T, l Listing, release, cuda string, b *sdk.Batch, res *sdk.Result) {
	t.Helper()
	byName := map[string]sdk.PackageResult{}
	for _, p := range res.Packages {
		byName[p.Name] = p
	}
	var own, all []sdk.File
	found := map[string]bool{}
	for _, p := range b.Packages {
		if p.Release != release {
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
		if !SameVersion(l.Version, p.Version) {
			t.Errorf("%s: %s %s is version %s in its manifest, not the wheel's", l.Key(), p.Manifest, release, p.Version)
		}
		if len(pr.Unusable) > 0 && len(pr.Files) == 0 {
			t.Errorf("%s: %s %s is unusable on %s: %q", l.Key(), p.Manifest, release, l.Platform(), pr.Unusable)
		}
		own = append(own, pr.Files...)
	}
	for _, m := range l.Packages {
		if !found[m] {
			t.Errorf("%s: the %s batch of CUDA %s has no package %s of release %s", l.Key(), l.Product, cuda, m, release)
		}
	}
	for _, msg := range Compare(l, own, all, Allowed) {
		t.Errorf("%s %s %v: %s", l.Product, release, l.Packages, msg)
	}
}

// WheelBatch is the batch of product for a release that has no manifest
// here: one package per manifest package of the listed wheels of that
// release and arch, at the wheel's version, with an archive for the wheel's
// platform.
func WheelBatch(ls []Listing, product, release, cuda, arch string) *sdk.Batch {
	b := &sdk.Batch{CUDA: cuda, Product: product}
	seen := map[string]bool{}
	for _, l := range ls {
		if l.Product != product || l.Arch != arch || !slices.Contains(l.Releases(), release) {
			continue
		}
		b.Config.Targets = []string{l.Platform()}
		for _, m := range l.Packages {
			if seen[m] {
				continue
			}
			seen[m] = true
			v := wheelVersion(l.Version)
			b.Packages = append(b.Packages, sdk.Package{Name: m, Manifest: m, Product: product, Release: release, Version: v,
				Archives: []sdk.Archive{{Platform: l.Platform(), Key: l.Platform(), RelativePath: l.File, SHA256: l.SHA256}}})
			b.SetPackages = append(b.SetPackages, sdk.SetPackage{Name: m, Manifest: m, Product: product, Release: release, Version: v})
		}
	}
	b.Config.CUDAVersions = []string{cuda}
	return b
}

var postRelease = regexp.MustCompile(`\.post\d+$`)

// wheelVersion is the component version a wheel's version stands for: a
// .postN rebuild is the same component.
func wheelVersion(v string) string { return postRelease.ReplaceAllString(v, "") }

// SameVersion reports whether a wheel of version wheel is the manifest
// component of version manifest: the same, but for a .postN wheel rebuild,
// or a release the manifest writes with more parts (cuTENSOR's wheel 2.3.1
// is the manifest's 2.3.1.0).
func SameVersion(wheel, manifest string) bool {
	w := wheelVersion(wheel)
	return w == manifest || strings.HasPrefix(manifest, w+".")
}

// Batches are the golden fixtures of a wheel-only product, which ../shared
// has no manifests for: per listed CUDA release ("cuda-12.9.0"), the batch
// `manifests fetch` makes from its wheels, a package per manifest package at
// the wheel's version with an archive per arch of variant cuda<major>. The
// set also has the packages set names (of product cuda, at that CUDA
// release), so that the fixtures show the plugin's edges to them.
func Batches(product string, set ...string) (map[string]*sdk.Batch, error) {
	ls, err := Load()
	if err != nil {
		return nil, err
	}
	out := map[string]*sdk.Batch{}
	pkgs := map[string]map[string]*sdk.Package{}
	for _, l := range ls {
		if l.Product != product {
			continue
		}
		name := "cuda-" + l.CUDA
		b := out[name]
		if b == nil {
			b = &sdk.Batch{CUDA: l.CUDA, Product: product}
			b.Config.CUDAVersions = []string{l.CUDA}
			for _, s := range set {
				b.SetPackages = append(b.SetPackages, sdk.SetPackage{Name: s, Manifest: s, Product: "cuda", Release: l.CUDA, Version: l.CUDA})
			}
			out[name], pkgs[name] = b, map[string]*sdk.Package{}
		}
		major, _, _ := strings.Cut(l.CUDA, ".")
		if !slices.Contains(b.Config.Targets, l.Platform()) {
			b.Config.Targets = append(b.Config.Targets, l.Platform())
		}
		for _, m := range l.Packages {
			p := pkgs[name][m]
			if p == nil {
				p = &sdk.Package{Name: m, Manifest: m, Product: product, Release: l.Release, Version: wheelVersion(l.Version)}
				pkgs[name][m] = p
				b.SetPackages = append(b.SetPackages, sdk.SetPackage{Name: m, Manifest: m, Product: product, Release: l.Release, Version: p.Version})
			}
			p.Archives = append(p.Archives, sdk.Archive{Platform: l.Platform(), Key: l.Platform(), Variant: "cuda" + major, RelativePath: l.URL, SHA256: l.SHA256})
		}
	}
	for name, b := range out {
		for _, m := range slices.Sorted(maps.Keys(pkgs[name])) {
			b.Packages = append(b.Packages, *pkgs[name][m])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no wheels of %s listed in testdata/listings.json", product)
	}
	return out, nil
}
