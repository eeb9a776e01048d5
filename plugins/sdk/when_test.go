package sdk

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// toolkit is a declaration of the toolkit's shape: rows bounded by CUDA
// version, platform, package version and capability; reasons, refusals,
// renames and toolkit facts.
func toolkit() Product {
	return Product{
		Name: "kit", Title: "Kit", Toolkit: true, Toolchain: &Toolchain{Compiler: "nvcc", Runtime: "rt"},
		LocalIdentify: []string{"nvcc"}, Renames: []Rename{{Package: "cccl", Replaces: "cuda_cccl", Since: "13.3"}},
		Refuse: []Reason{{When: When{On: []string{"windows-x86_64"}}, Says: "no Windows"}},
		Packages: []PackageSpec{{
			Manifest: "rt",
			Files: []FileSpec{
				Header("include").CUDAThrough("12"),
				Header("include/cccl").CUDAFrom("13.0"),
				Shared("lib/librt.so", "11.0").Versions(Range{Below: "12"}),
				Shared("lib/librt.so", PackageMajor).Versions(Range{From: "12"}),
				Shared("lib/librt-builtins.so", PackageMajor+"."+PackageMinor),
				Unversioned("lib/libperf.so"),
				Static("lib/librt_static.a").OnlyOn("linux-x86_64"),
			},
			Deps: []DepSpec{
				{Package: "nvcc", When: When{Until: "12"}, Headers: true},
				{Package: "crt", When: When{Since: "13.0"}},
				{Package: "cuda_cccl"},
				{Package: "compat", ForwardCompat: true, Runtime: true, Platforms: []string{"linux-jetson", "linux-ppc64le"}},
				{Package: "compat_orin", ForwardCompat: true, Platforms: []string{"linux-jetson"}, OnlyFor: "8.7"},
			},
			Unusable: []Reason{
				{When: When{Since: "13.1", On: []string{"linux-sbsa"}}, Says: "{pkg} {version} is not for sbsa"},
				{When: When{On: []string{"linux-jetson"}, Lacks: "8.7"}, Says: "{pkg} is Orin's"},
			},
		}},
	}
}

func toolkitBatch(cuda, version string, caps map[string][]string, fc bool) *Batch {
	return &Batch{CUDA: cuda, Product: "kit",
		Config: Config{Targets: []string{"linux-jetson", "linux-sbsa", "linux-x86_64", "windows-x86_64"}, Capabilities: caps,
			ForwardCompat: fc, Architectures: map[string]string{"8.7": "Ampere", "11.0": "Blackwell"}},
		Packages: []Package{
			{Name: "rt", Manifest: "rt", Product: "kit", Release: cuda, Version: version,
				Archives: []Archive{{Platform: "linux-x86_64"}, {Platform: "linux-jetson"}, {Platform: "windows-x86_64"}}},
			{Name: "next", Manifest: "next", Product: "kit", Release: cuda, Version: "1.0",
				Archives: []Archive{{Platform: "linux-x86_64"}, {Platform: "windows-x86_64"}}},
		},
		SetPackages: []SetPackage{{Name: "nvcc", Manifest: "nvcc"}, {Name: "crt", Manifest: "crt"}, {Name: "cccl", Manifest: "cccl"},
			{Name: "compat", Manifest: "compat"}, {Name: "compat_orin", Manifest: "compat_orin"}},
	}
}

func TestWhen(t *testing.T) {
	so := func(p string) File {
		return File{Path: p, Kind: SharedLib, Role: Target, SONAME: p[strings.LastIndex(p, "/")+1:]}
	}
	hdr := func(p string) File { return File{Path: p, Kind: Headers, Role: Target} }
	static := File{Path: "lib/librt_static.a", Kind: StaticLib, Role: Target}
	orin := map[string][]string{"linux-jetson": {"8.7"}}
	for _, tt := range []struct {
		name, cuda, version string
		caps                map[string][]string
		fc                  bool
		want                PackageResult
		next                PackageResult
	}{
		{name: "11.8: the package's version picks the SONAME; the CUDA version the headers and edges", cuda: "11.8.0", version: "11.8.89", caps: orin,
			want: PackageResult{Name: "rt", Deps: []Dep{{Package: "nvcc", Until: "12", Headers: true}}, // cuda_cccl: not in the set, renamed only from 13.3
				Platforms: map[string]PlatformResult{
					"linux-x86_64":   {Files: []File{hdr("include"), so("lib/librt.so.11.0"), so("lib/librt-builtins.so.11.8"), so("lib/libperf.so"), static}},
					"linux-jetson":   {Files: []File{hdr("include"), so("lib/librt.so.11.0"), so("lib/librt-builtins.so.11.8"), so("lib/libperf.so")}},
					"windows-x86_64": {Unusable: []string{"no Windows"}},
				}}},
		{name: "13.3: renamed edge kept; reasons on a platform without an archive; Lacks; forward-compat edges filtered to targets", cuda: "13.3.0", version: "13.3.20",
			caps: map[string][]string{"linux-jetson": {"11.0"}}, fc: true,
			want: PackageResult{Name: "rt", Deps: []Dep{{Package: "crt", Since: "13.0"}, {Package: "cuda_cccl"},
				{Package: "compat", Runtime: true, Platforms: []string{"linux-jetson"}}},
				Platforms: map[string]PlatformResult{
					"linux-x86_64":   {Files: []File{hdr("include/cccl"), so("lib/librt.so.13"), so("lib/librt-builtins.so.13.3"), so("lib/libperf.so"), static}},
					"linux-sbsa":     {Unusable: []string{"rt 13.3.20 is not for sbsa"}},
					"linux-jetson":   {Unusable: []string{"rt is Orin's"}},
					"windows-x86_64": {Unusable: []string{"no Windows"}},
				}}},
		{name: "OnlyFor keeps Orin's edge for a build for Orin alone", cuda: "13.0.0", version: "13.0.48", caps: orin, fc: true,
			want: PackageResult{Name: "rt", Deps: []Dep{{Package: "crt", Since: "13.0"},
				{Package: "compat", Runtime: true, Platforms: []string{"linux-jetson"}}, {Package: "compat_orin", Platforms: []string{"linux-jetson"}}},
				Platforms: map[string]PlatformResult{
					"linux-x86_64":   {Files: []File{hdr("include/cccl"), so("lib/librt.so.13"), so("lib/librt-builtins.so.13.0"), so("lib/libperf.so"), static}},
					"linux-jetson":   {Files: []File{hdr("include/cccl"), so("lib/librt.so.13"), so("lib/librt-builtins.so.13.0"), so("lib/libperf.so")}},
					"windows-x86_64": {Unusable: []string{"no Windows"}},
				}}},
	} {
		res, err := toolkit().Fixer().Fixup(context.Background(), toolkitBatch(tt.cuda, tt.version, tt.caps, tt.fc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d := cmp.Diff(tt.want, res.Packages[0], cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, d)
		}
		// NVIDIA's next package: generic, but the product's refusal holds.
		next := PackageResult{Name: "next", Platforms: map[string]PlatformResult{
			"linux-x86_64": {Generic: true}, "windows-x86_64": {Unusable: []string{"no Windows"}}}}
		if d := cmp.Diff(next, res.Packages[1], cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: next: (-want +got)\n%s", tt.name, d)
		}
	}
}

func TestToolkitFacts(t *testing.T) {
	d := toolkit().Fixer().Describe()
	f := d.Facts[0]
	if !f.Toolkit || f.Toolchain == nil || f.Toolchain.Compiler != "nvcc" || !cmp.Equal(f.LocalIdentify, []string{"nvcc"}) ||
		len(d.Renames) != 1 || f.Platforms != nil {
		t.Errorf("description %+v", d)
	}
}

func TestCheckWhen(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*Product)
		want string
	}{
		{"ok", func(*Product) {}, ""},
		{"bad CUDA bound", func(p *Product) { p.Packages[0].Files[0].When.Until = "12.x" }, `file "include": version "12.x"`},
		{"bad package version bound", func(p *Product) { p.Packages[0].Files[2].When.Version.Below = "v12" }, `file "lib/librt.so.11.0"`},
		{"edge on a platform", func(p *Product) { p.Packages[0].Deps[0].On = []string{"linux-x86_64"} }, "an edge names its Platforms"},
		{"bad OnlyFor", func(p *Product) { p.Packages[0].Deps[4].OnlyFor = "sm_87" }, "OnlyFor"},
		{"reason says nothing", func(p *Product) { p.Packages[0].Unusable[0].Says = "" }, "without what it says"},
		{"bad Lacks", func(p *Product) { p.Packages[0].Unusable[1].Lacks = "Orin" }, `reason "{pkg} is Orin's"`},
		{"refusal says nothing", func(p *Product) { p.Refuse[0].Says = "" }, "refusal"},
	} {
		p := toolkit()
		tt.edit(&p)
		err := p.Check()
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: Check() = %v, want %q", tt.name, err, tt.want)
		}
	}
}
