package fixup

import (
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

func TestParseRenames(t *testing.T) {
	tests := []struct {
		r       sdk.Rename
		wantErr string
	}{
		{sdk.Rename{Package: "cccl", Replaces: "cuda_cccl", Since: "13.3"}, ""},
		{sdk.Rename{Package: "cccl", Replaces: "cuda_cccl", Since: "next"}, `since: version "next"`},
		{sdk.Rename{Package: "", Replaces: "cuda_cccl", Since: "13.3"}, "expected a package that replaces another name"},
		{sdk.Rename{Package: "x", Replaces: "x", Since: "13.3"}, "expected a package that replaces another name"},
		{sdk.Rename{Package: "../x", Replaces: "y", Since: "13.3"}, "expected plain package names"},
	}
	for _, tt := range tests {
		_, err := parseRenames(sdk.Description{Name: "p", Renames: []sdk.Rename{tt.r}})
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("parseRenames(%+v) = %v, want %q", tt.r, err, tt.wantErr)
		}
	}
}

func TestRenameResolvesAndAliases(t *testing.T) {
	rs, err := parseRenames(sdk.Description{Name: "redist", Products: []string{"cuda"}, Renames: []sdk.Rename{{Package: "cccl", Replaces: "cuda_cccl", Since: "13.3"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cuda string
		want string
	}{{"13.3.0", "cccl"}, {"13.4.1", "cccl"}, {"13.0.0", ""}, {"12.9.0", ""}} {
		got, _ := rs.successorIn(&sdk.Batch{SetPackages: []sdk.SetPackage{{Manifest: "cccl", Product: "cuda"}}}, "cuda_cccl", version.MustParse(tt.cuda))
		if got != tt.want {
			t.Errorf("successor in %s = %q, want %q", tt.cuda, got, tt.want)
		}
	}
	b := &sdk.Batch{CUDA: "13.3.0", SetPackages: []sdk.SetPackage{{Name: "cccl", Manifest: "cccl", Product: "cuda", Release: "13.3.0"}}}
	if name, err := resolveDep(b, sdk.Dep{Package: "cuda_cccl"}, rs); err != nil || name != "cccl" {
		t.Errorf("edge to cuda_cccl in 13.3.0 = %q, %v; want cccl", name, err)
	}
	b.CUDA = "13.0.0"
	if _, err := resolveDep(b, sdk.Dep{Package: "cuda_cccl"}, rs); err == nil {
		t.Error("edge to cuda_cccl in 13.0.0 resolved through a rename that starts in 13.3")
	}

	newOnly := &pkgset.Set{CUDA: version.MustParse("13.3.0"), Packages: []*pkgset.Package{{Name: "cccl", Product: "cuda"}}}
	both := &pkgset.Set{CUDA: version.MustParse("13.3.0"), Packages: []*pkgset.Package{{Name: "cccl", Product: "cuda"}, {Name: "cuda_cccl", Product: "cuda"}}}
	old := &pkgset.Set{CUDA: version.MustParse("12.4.1"), Packages: []*pkgset.Package{{Name: "cccl", Product: "cuda"}}}
	// A plugin renames its own products' packages only.
	other := &pkgset.Set{CUDA: version.MustParse("13.3.0"), Packages: []*pkgset.Package{{Name: "cccl", Product: "acme"}}}
	for _, s := range []*pkgset.Set{newOnly, both, old, other} {
		rs.alias(s)
	}
	if newOnly.Aliases["cuda_cccl"] != "cccl" || both.Aliases != nil || old.Aliases != nil || other.Aliases != nil {
		t.Errorf("aliases: new only %v, both %v, before the rename %v, another product's %v", newOnly.Aliases, both.Aliases, old.Aliases, other.Aliases)
	}
	b.SetPackages[0].Product = "acme"
	b.CUDA = "13.3.0"
	if _, err := resolveDep(b, sdk.Dep{Package: "cuda_cccl"}, rs); err == nil {
		t.Error("edge to cuda_cccl followed a rename to another product's package")
	}
}

// Two renames of one name would let edges and aliases disagree: refused.
func TestRenameConflicts(t *testing.T) {
	a, _ := parseRenames(sdk.Description{Name: "redist", Products: []string{"cuda"}, Renames: []sdk.Rename{{Package: "cccl", Replaces: "cuda_cccl", Since: "13.3"}}})
	b, _ := parseRenames(sdk.Description{Name: "acme", Products: []string{"acme"}, Renames: []sdk.Rename{{Package: "libacme", Replaces: "cuda_cccl", Since: "13.0"}}})
	err := append(a, b...).check()
	if err == nil || !strings.Contains(err.Error(), "plugins redist and acme both rename cuda_cccl") {
		t.Errorf("check = %v", err)
	}
	if err := a.check(); err != nil {
		t.Errorf("one rename refused: %v", err)
	}
}
