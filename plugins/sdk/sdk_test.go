package sdk_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
	"github.com/cudapkgs/cudapkgs/plugins/sdk/sdktest"
)

type echo struct{}

func (echo) Describe() sdk.Description {
	return sdk.Description{Name: "echo", Products: []string{"demo"}, Facts: echoFacts}
}

// echoFacts cross the wire in Describe and must come back as they were.
var echoFacts = []sdk.ProductFacts{{Product: "demo", Base: sdk.NVIDIABase, Path: "compute/demo/redist", NoCUDA: true}}

// Fixup answers every package with one header folder, a dependency and an
// unusable platform, echoing what it received so the test sees the batch
// crossed the wire intact (the default-capability targets come back as
// judged capabilities).
func (echo) Fixup(_ context.Context, b *sdk.Batch) (*sdk.Result, error) {
	r := &sdk.Result{}
	for _, p := range b.Packages {
		r.Packages = append(r.Packages, sdk.PackageResult{
			Name: p.Name,
			Deps: []sdk.Dep{{Package: other(b), Release: "1.2", Runtime: true, Since: b.CUDA, Platforms: b.Config.Targets}},
			Platforms: map[string]sdk.PlatformResult{
				p.Archives[0].Platform: {Files: []sdk.File{{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
					{Path: "lib/libdemo.so.1", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libdemo.so.1"}}, Judged: b.Config.DefaultCapabilityTargets},
				"linux-sbsa": {Unusable: []string{p.Unavailable["linux-sbsa"][0] + " (echoed)"}},
			},
		})
	}
	return r, nil
}

// other names the set's package from another product.
func other(b *sdk.Batch) string {
	for _, s := range b.SetPackages {
		if s.Product != b.Product {
			return s.Manifest
		}
	}
	return ""
}

func TestRoundTripOverGRPC(t *testing.T) {
	c := sdktest.Run(t, echo{})
	d, err := c.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "echo" || d.ProtocolVersion != sdk.ProtocolVersion || d.Products[0] != "demo" {
		t.Errorf("Describe = %+v", d)
	}
	if diff := cmp.Diff(echoFacts, d.Facts); diff != "" {
		t.Errorf("facts changed on the wire (-sent +received):\n%s", diff)
	}
	b := &sdk.Batch{CUDA: "12.4.1", Product: "demo",
		Config: sdk.Config{Targets: []string{"linux-x86_64", "linux-sbsa"}, Capabilities: map[string][]string{"linux-x86_64": {"8.0"}},
			DefaultCapabilityTargets: []string{"linux-sbsa"}},
		Packages: []sdk.Package{{Name: "demo", Manifest: "demo", Product: "demo", Release: "1.2.3", Version: "1.2.3.4",
			Archives:    []sdk.Archive{{Platform: "linux-x86_64", Key: "linux-x86_64", Variant: "cuda12", RelativePath: "demo/a.tar.xz", SHA256: "ab"}},
			Unavailable: map[string][]string{"linux-sbsa": {"no sbsa archive"}}}},
		SetPackages: []sdk.SetPackage{{Name: "other", Manifest: "other", Product: "x", Release: "1.2.0", Version: "1.2.0.1"}},
	}
	got, err := c.Fixup(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	want := &sdk.Result{Packages: []sdk.PackageResult{{
		Name: "demo",
		Deps: []sdk.Dep{{Package: "other", Release: "1.2", Runtime: true, Since: "12.4.1", Platforms: []string{"linux-x86_64", "linux-sbsa"}}},
		Platforms: map[string]sdk.PlatformResult{
			"linux-x86_64": {Files: []sdk.File{{Path: "include", Kind: sdk.Headers, Role: sdk.Target},
				{Path: "lib/libdemo.so.1", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libdemo.so.1"}}, Judged: []string{"linux-sbsa"}},
			"linux-sbsa": {Unusable: []string{"no sbsa archive (echoed)"}},
		},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// floor80 rules out every capability below 8.0, one reason each.
func floor80(caps []string) []string {
	var out []string
	for _, c := range caps {
		if c < "8.0" { // the test's names are all one digit, a dot, one digit
			out = append(out, c+" is too old")
		}
	}
	return out
}

func TestJudgeCapabilities(t *testing.T) {
	cfg := sdk.Config{Capabilities: map[string][]string{
		"user": {"7.5", "8.0", "8.6"}, "mixed": {"7.0", "7.5", "8.0", "8.6"}, "old": {"6.0", "7.0"}, "new": {"8.0", "9.0"},
	}, DefaultCapabilityTargets: []string{"mixed", "old", "new"}}
	for _, tt := range []struct {
		target           string
		unusable, judged []string
	}{
		// The user's capabilities all count.
		{"user", []string{"7.5 is too old"}, nil},
		// Defaults narrow to what the package supports.
		{"mixed", nil, []string{"8.0", "8.6"}},
		// Supporting none of the defaults is still unusable.
		{"old", []string{"6.0 is too old", "7.0 is too old"}, nil},
		// Supporting all of them needs no narrowing.
		{"new", nil, nil},
	} {
		unusable, judged := cfg.JudgeCapabilities(tt.target, floor80)
		if !cmp.Equal(unusable, tt.unusable) || !cmp.Equal(judged, tt.judged) {
			t.Errorf("%s: unusable %q judged %q, want %q and %q", tt.target, unusable, judged, tt.unusable, tt.judged)
		}
	}
}

func TestRoleOf(t *testing.T) {
	for _, tt := range []struct {
		files []sdk.File
		want  sdk.Role
	}{
		{nil, ""},
		{[]sdk.File{{Role: sdk.Exec}, {Role: sdk.Exec}}, sdk.Exec},
		{[]sdk.File{{Role: sdk.Target}}, sdk.Target},
		{[]sdk.File{{Role: sdk.Exec}, {Role: sdk.Target}}, sdk.Both},
	} {
		if got := sdk.RoleOf(tt.files); got != tt.want {
			t.Errorf("RoleOf(%v) = %q, want %q", tt.files, got, tt.want)
		}
	}
}

type twins struct{ echo }

// Fixup answers the same files on two platforms, which the SDK sends once.
func (twins) Fixup(_ context.Context, b *sdk.Batch) (*sdk.Result, error) {
	files := []sdk.File{{Path: "include", Kind: sdk.Headers, Role: sdk.Target}}
	return &sdk.Result{Packages: []sdk.PackageResult{{Name: b.Packages[0].Name, Platforms: map[string]sdk.PlatformResult{
		"linux-x86_64": {Files: files}, "linux-sbsa": {Files: files}, "linux-jetson": {Unusable: []string{"no"}},
	}}}}, nil
}

func TestSameFilesSentOnce(t *testing.T) {
	c := sdktest.Run(t, twins{})
	got, err := c.Fixup(context.Background(), &sdk.Batch{Packages: []sdk.Package{{Name: "p"}}})
	if err != nil {
		t.Fatal(err)
	}
	ps := got.Packages[0].Platforms
	want := []sdk.File{{Path: "include", Kind: sdk.Headers, Role: sdk.Target}}
	if !cmp.Equal(ps["linux-x86_64"].Files, want) || !cmp.Equal(ps["linux-sbsa"].Files, want) || len(ps["linux-jetson"].Files) != 0 {
		t.Errorf("platforms = %+v", ps)
	}
}

func TestEachPackage(t *testing.T) {
	b := &sdk.Batch{Product: "demo", Packages: []sdk.Package{{Name: "a"}, {Name: "b", Manifest: "b", Version: "1.0"}}}
	res, err := sdk.EachPackage(context.Background(), b, "demo", func(p sdk.Package) (sdk.PackageResult, error) {
		return sdk.PackageResult{Name: p.Name}, nil
	})
	if err != nil || len(res.Packages) != 2 || res.Packages[1].Name != "b" {
		t.Fatalf("EachPackage = %+v, %v", res, err)
	}
	_, err = sdk.EachPackage(context.Background(), b, "demo", func(p sdk.Package) (sdk.PackageResult, error) {
		if p.Name == "b" {
			return sdk.PackageResult{}, context.DeadlineExceeded
		}
		return sdk.PackageResult{Name: p.Name}, nil
	})
	if err == nil || err.Error() != "package b (b 1.0): context deadline exceeded" {
		t.Errorf("error = %v", err)
	}
	if _, err := sdk.EachPackage(context.Background(), b, "other", nil); err == nil || err.Error() != `batch is for product "demo"; this plugin fixes "other"` {
		t.Errorf("error = %v", err)
	}
}
