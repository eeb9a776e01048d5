package sdk

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// example is a small declaration that uses every part of the skeleton.
func example() Product {
	return Product{
		Name: "thing", Title: "Thing", Path: "compute/thing/redist",
		Platforms: []string{"linux-x86_64", "linux-sbsa"}, Majors: []int{1, 2},
		Packages: []PackageSpec{{
			Manifest: "libthing",
			Files: []FileSpec{
				Header("include"),
				Shared("lib/libthing.so", ReleaseMajor),
				Shared("lib/libthingMg.so", "0").From("1.4"),
				DataFile("lib/libthingMp.so.2").From("2.4").Below("3"),
				Static("lib/libthing_static.a"),
				Tool("bin/thingc"),
			},
			Deps: []DepSpec{
				{Package: "cuda_cudart"},
				{Package: "cuda_nvrtc", Runtime: true, Range: Range{From: "1.5"}},
				{Package: "libabsent"},
				{Package: "libthing_samples", SameRelease: true},
			},
			Floors: []Floor{
				{Range: Range{From: "2.3"}, Min: "7.5", Says: "{title} {release} supports capabilities {min} and newer"},
				{Min: "6.0", Says: "{title} {version} supports capabilities {min} and newer"},
			},
			StaticLinkopts: []string{"-ldl"},
		}},
	}
}

func exampleBatch(release string) *Batch {
	return &Batch{CUDA: "12.4.0", Product: "thing",
		Config: Config{Targets: []string{"linux-x86_64", "linux-sbsa"},
			Capabilities:  map[string][]string{"linux-x86_64": {"7.0", "8.0"}, "linux-sbsa": {"9.0"}},
			Architectures: map[string]string{"7.0": "Volta", "8.0": "Ampere", "9.0": "Hopper"}},
		Packages: []Package{
			{Name: "libthing", Manifest: "libthing", Product: "thing", Release: release, Version: release + ".7",
				Archives: []Archive{{Platform: "linux-sbsa"}, {Platform: "linux-x86_64"}}},
			{Name: "libnew", Manifest: "libnew", Product: "thing", Release: release, Version: "1",
				Archives: []Archive{{Platform: "linux-x86_64"}}},
		},
		SetPackages: []SetPackage{{Name: "cuda_cudart", Manifest: "cuda_cudart"}, {Name: "cuda_nvrtc", Manifest: "cuda_nvrtc"},
			{Name: "libthing_samples_2_4", Manifest: "libthing_samples", Release: "2.4.1"}},
	}
}

func TestDeclaredAnswers(t *testing.T) {
	files := func(extra ...File) []File {
		return append([]File{{Path: "include", Kind: Headers, Role: Target}}, extra...)
	}
	for _, tt := range []struct {
		release string
		want    PackageResult
	}{
		{"1.3.0", PackageResult{Name: "libthing", Deps: []Dep{{Package: "cuda_cudart"}}, StaticLinkopts: []string{"-ldl"},
			Platforms: map[string]PlatformResult{
				"linux-sbsa": {Files: files(File{Path: "lib/libthing.so.1", Kind: SharedLib, Role: Target, SONAME: "libthing.so.1"},
					File{Path: "lib/libthing_static.a", Kind: StaticLib, Role: Target}, File{Path: "bin/thingc", Kind: Binary, Role: Exec})},
				"linux-x86_64": {Files: files(File{Path: "lib/libthing.so.1", Kind: SharedLib, Role: Target, SONAME: "libthing.so.1"},
					File{Path: "lib/libthing_static.a", Kind: StaticLib, Role: Target}, File{Path: "bin/thingc", Kind: Binary, Role: Exec})},
			}}},
		{"2.4.1", PackageResult{Name: "libthing",
			Deps:           []Dep{{Package: "cuda_cudart"}, {Package: "cuda_nvrtc", Runtime: true}, {Package: "libthing_samples", Release: "2.4"}},
			StaticLinkopts: []string{"-ldl"},
			Platforms: map[string]PlatformResult{
				"linux-sbsa": {Files: files(File{Path: "lib/libthing.so.2", Kind: SharedLib, Role: Target, SONAME: "libthing.so.2"},
					File{Path: "lib/libthingMg.so.0", Kind: SharedLib, Role: Target, SONAME: "libthingMg.so.0"},
					File{Path: "lib/libthingMp.so.2", Kind: Data, Role: Target},
					File{Path: "lib/libthing_static.a", Kind: StaticLib, Role: Target}, File{Path: "bin/thingc", Kind: Binary, Role: Exec})},
				"linux-x86_64": {Files: files(File{Path: "lib/libthing.so.2", Kind: SharedLib, Role: Target, SONAME: "libthing.so.2"},
					File{Path: "lib/libthingMg.so.0", Kind: SharedLib, Role: Target, SONAME: "libthingMg.so.0"},
					File{Path: "lib/libthingMp.so.2", Kind: Data, Role: Target},
					File{Path: "lib/libthing_static.a", Kind: StaticLib, Role: Target}, File{Path: "bin/thingc", Kind: Binary, Role: Exec}),
					Unusable: []string{"Thing 2.4.1 supports capabilities 7.5 and newer; 7.0 (Volta) is selected"}},
			}}},
		{"3.0", PackageResult{Name: "libthing", Platforms: map[string]PlatformResult{
			"linux-sbsa":   {Unusable: []string{"the thing plugin describes Thing 1.x and 2.x, not Thing 3.0: its files and dependencies are not described"}},
			"linux-x86_64": {Unusable: []string{"the thing plugin describes Thing 1.x and 2.x, not Thing 3.0: its files and dependencies are not described"}},
		}}},
	} {
		res, err := example().Fixer().Fixup(context.Background(), exampleBatch(tt.release))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, res.Packages[0]); d != "" {
			t.Errorf("release %s (-want +got):\n%s", tt.release, d)
		}
		// NVIDIA's next package is served generically.
		if d := cmp.Diff(PackageResult{Name: "libnew", Platforms: map[string]PlatformResult{"linux-x86_64": {Generic: true}}}, res.Packages[1]); d != "" {
			t.Errorf("release %s: unknown package (-want +got):\n%s", tt.release, d)
		}
	}
}

// TestDeclaredFloorVersion: a floor's {version} is the package's version,
// and 1.3 has only the 6.0 floor, which 7.0 passes; 5.0 does not.
func TestDeclaredFloorVersion(t *testing.T) {
	b := exampleBatch("1.3.0")
	b.Config.Capabilities["linux-x86_64"] = []string{"5.0"}
	b.Config.Architectures["5.0"] = "Maxwell"
	res, err := example().Fixer().Fixup(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Thing 1.3.0.7 supports capabilities 6.0 and newer; 5.0 (Maxwell) is selected"}
	if d := cmp.Diff(want, res.Packages[0].Platforms["linux-x86_64"].Unusable); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestDeclaredAmend: the hook sees the declaration's answer and changes it.
func TestDeclaredAmend(t *testing.T) {
	p := example()
	var saw Call
	p.Amend = func(c Call, pkg Package, r *PackageResult) error {
		saw = c
		pr := r.Platforms["linux-sbsa"]
		pr.Unusable = append(pr.Unusable, "amended")
		r.Platforms["linux-sbsa"] = pr
		return nil
	}
	res, err := p.Fixer().Fixup(context.Background(), exampleBatch("2.4.1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Packages[0].Platforms["linux-sbsa"].Unusable; !cmp.Equal(got, []string{"amended"}) {
		t.Errorf("amended sbsa = %q", got)
	}
	if saw.CUDA.String() != "12.4.0" || saw.Release.String() != "2.4.1" || !saw.Set.Has("cuda_nvrtc") || saw.Set.Has("libabsent") ||
		!saw.Set.HasRelease("libthing_samples", MustVersion("2.4")) || len(saw.Set.Packages("cuda_cudart")) != 1 {
		t.Errorf("Amend saw %+v", saw)
	}
}

func TestDeclaredNoCUDA(t *testing.T) {
	p := example()
	b := exampleBatch("2.4.1")
	b.CUDA = ""
	if _, err := p.Fixer().Fixup(context.Background(), b); err == nil || !strings.Contains(err.Error(), "batch CUDA version") {
		t.Errorf("a CUDA product without a CUDA version: %v", err)
	}
	p.NoCUDA = true
	if _, err := p.Fixer().Fixup(context.Background(), b); err != nil {
		t.Errorf("a product without CUDA: %v", err)
	}
	if f := p.Fixer().Describe().Facts[0]; !f.NoCUDA || f.Base != NVIDIABase || !cmp.Equal(f.Platforms, p.Platforms) {
		t.Errorf("facts %+v", f)
	}
}

// A wheel's files may differ per CUDA major at one release (cuFFTMp's
// library, NVSHMEM's oldest bitcode): ForCUDA picks them by the archive's
// variant, else by the batch's CUDA major.
func TestDeclaredForCUDA(t *testing.T) {
	p := Product{Name: "w", Title: "W", Platforms: []string{"linux-x86_64", "linux-sbsa"},
		Wheels: []WheelProject{{Project: "nvidia-w-cu{major}", CUDAMajors: []string{"12", "13"}, Package: "libw", Prefix: "nvidia/w"}},
		Packages: []PackageSpec{{Manifest: "libw", Files: []FileSpec{
			Header("include"),
			Shared("lib/libw.so", "11").ForCUDA("12"),
			Shared("lib/libw.so", "12").ForCUDA("13"),
		}}}}
	for _, tt := range []struct {
		cuda, variant, want string
	}{
		{"12.9.0", "cuda12", "lib/libw.so.11"},
		{"13.0.0", "cuda13", "lib/libw.so.12"},
		{"12.9.0", "", "lib/libw.so.11"},
		{"13.0.0", "", "lib/libw.so.12"},
		{"14.0.0", "cuda14", ""},
	} {
		b := &Batch{CUDA: tt.cuda, Product: "w", Packages: []Package{{Name: "libw", Manifest: "libw", Product: "w", Release: "1.0", Version: "1.0.0",
			Archives: []Archive{{Platform: "linux-x86_64", Variant: tt.variant}}}}}
		res, err := p.Fixer().Fixup(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		var libs []string
		for _, f := range res.Packages[0].Platforms["linux-x86_64"].Files {
			if f.Kind == SharedLib {
				libs = append(libs, f.Path)
			}
		}
		if got := strings.Join(libs, ","); got != tt.want {
			t.Errorf("CUDA %s variant %q: shared libraries %q, want %q", tt.cuda, tt.variant, got, tt.want)
		}
	}
	// A wheel-only product has no NVIDIA folder: no Base, its wheels.
	if f := p.Fixer().Describe().Facts[0]; f.Base != "" || len(f.Wheels) != 1 || f.Wheels[0].Prefix != "nvidia/w" {
		t.Errorf("wheel-only facts %+v", f)
	}
}

func TestKnows(t *testing.T) {
	if p := example(); !p.Knows("libthing") || p.Knows("libnew") {
		t.Error("Knows")
	}
}

func TestDeclaredBadRelease(t *testing.T) {
	b := exampleBatch("x")
	if _, err := example().Fixer().Fixup(context.Background(), b); err == nil || !strings.Contains(err.Error(), "package libthing") {
		t.Errorf("bad release: %v", err)
	}
}

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*Product)
		want string
	}{
		{"ok", func(*Product) {}, ""},
		{"no title", func(p *Product) { p.Title = "" }, "expected a Name and a Title"},
		{"twice", func(p *Product) { p.Packages = append(p.Packages, p.Packages[0]) }, `package "libthing": expected a manifest name, declared once`},
		{"bad bound", func(p *Product) { p.Packages[0].Files[2] = p.Packages[0].Files[2].From("1.x") }, `file "lib/libthingMg.so.0": version "1.x"`},
		{"no soname major", func(p *Product) { p.Packages[0].Files[1].Path = "lib/libthing.so" }, "expected a SONAME major"},
		{"no kind", func(p *Product) { p.Packages[0].Files[0].Kind = "" }, "expected a path, a kind"},
		{"bad edge", func(p *Product) { p.Packages[0].Deps[0].Range.Below = "a" }, "edge to cuda_cudart"},
		{"bad floor", func(p *Product) { p.Packages[0].Floors[0].Min = "sm_75" }, "floor"},
		{"floor says nothing", func(p *Product) { p.Packages[0].Floors[1].Says = "" }, "expected what it says"},
		{"bad CUDA major", func(p *Product) { p.Packages[0].Files[0] = p.Packages[0].Files[0].ForCUDA("cu12") }, `file "include": CUDA major "cu12"`},
	} {
		p := example()
		tt.edit(&p)
		err := p.Check()
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: Check() = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// A product's own wheel carries no static library and no stub unless the
// declaration says its wheels do (Wheeled): an NVIDIA archive of the same
// release keeps them.
func TestDeclaredWheelArchive(t *testing.T) {
	p := Product{Name: "w", Title: "W", Path: "compute/w/redist", Platforms: []string{"linux-x86_64"},
		Wheels: []WheelProject{{Project: "nvidia-w-cu{major}", CUDAMajors: []string{"12"}, Package: "libw", Prefix: "nvidia/w"}},
		Packages: []PackageSpec{{Manifest: "libw", Files: []FileSpec{
			Shared("lib/libw.so", "0"), Static("lib/libw_static.a"), Stub("lib/stubs/libw.so"), Static("lib/libw_device.a").Wheeled(),
		}}}}
	for _, tt := range []struct{ rel, want string }{
		{"libw/linux-x86_64/libw-linux-x86_64-1.0.0-archive.tar.xz", "lib/libw.so.0,lib/libw_static.a,lib/stubs/libw.so,lib/libw_device.a"},
		{"nvidia-w-cu12/nvidia_w_cu12-1.0.0-py3-none-manylinux_2_17_x86_64.whl", "lib/libw.so.0,lib/libw_device.a"},
	} {
		b := &Batch{CUDA: "12.9.0", Product: "w", Packages: []Package{{Name: "libw", Manifest: "libw", Product: "w", Release: "1.0", Version: "1.0.0",
			Archives: []Archive{{Platform: "linux-x86_64", Variant: "cuda12", RelativePath: tt.rel}}}}}
		res, err := p.Fixer().Fixup(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Packages[0].Platforms["linux-x86_64"].Files {
			got = append(got, f.Path)
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("%s: files %q, want %s", tt.rel, got, tt.want)
		}
	}
}
