package archives

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

var (
	x86  = platform.LinuxX86_64
	sbsa = platform.LinuxSBSA
	jet  = platform.LinuxJetson
	win  = platform.WindowsX86_64
)

func v(s string) version.Version { return version.MustParse(s) }

func arc(key, variant, sha string) pkgset.Archive {
	rel := "libfoo/" + key + "/libfoo-" + key + ".tar.xz"
	return pkgset.Archive{Key: key, Variant: variant, SHA256: sha, RelativePath: rel, URLs: []string{"https://example.com/" + rel}}
}

func header(p string) pkgset.File { return pkgset.File{Path: p, Kind: "headers", Role: "target"} }

func lib(p string) pkgset.File {
	return pkgset.File{Path: p, Kind: "shared_lib", Role: "target", SONAME: p[strings.LastIndex(p, "/")+1:]}
}

// foo is libfoo 1.2.3 with one archive per given platform.
func foo(platforms map[string]pkgset.Archive) *pkgset.Package {
	return &pkgset.Package{Name: "libfoo", Manifest: "libfoo", Version: v("1.2.3"), Platforms: platforms,
		Files: map[string][]pkgset.File{}, Unavailable: map[string][]string{}}
}

func set(cuda string, pkgs ...*pkgset.Package) *pkgset.Set {
	return &pkgset.Set{CUDA: v(cuda), Packages: pkgs}
}

func mustCollect(t *testing.T, sets []*pkgset.Set, targets []platform.Platform, prefix string) *Index {
	t.Helper()
	ix, err := Collect(sets, targets, prefix)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func names(as []*Archive) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

// One archive in two CUDA versions' sets is one Archive, serving both.
func TestDedupeAcrossCUDAVersions(t *testing.T) {
	shared := arc("linux-x86_64", "cuda12", "s1")
	old, new := foo(map[string]pkgset.Archive{"linux-x86_64": shared}), foo(map[string]pkgset.Archive{"linux-x86_64": shared})
	// Sets out of order: the Index sorts them.
	ix := mustCollect(t, []*pkgset.Set{set("12.10.0", new), set("12.9.1", old)}, []platform.Platform{x86}, "hub")
	if got, want := names(ix.Archives()), []string{"hub_libfoo_1_2_3_linux_x86_64_cuda12"}; !cmp.Equal(got, want) {
		t.Fatalf("Archives: %v, want %v", got, want)
	}
	a := ix.Archives()[0]
	if got, want := a.CUDAVersions(), []string{"12.9.1", "12.10.0"}; !cmp.Equal(got, want) {
		t.Errorf("CUDAVersions: %v, want %v (by version, not as strings)", got, want)
	}
	for _, cuda := range []string{"12.9.1", "12.10.0"} {
		if u, ok := ix.Use("libfoo", v(cuda), x86); !ok || u.Archive != a {
			t.Errorf("Use(libfoo, %s): %+v, %v; want the one archive", cuda, u, ok)
		}
	}
	if got, want := ix.Versions(), []string{"12.9.1", "12.10.0"}; !cmp.Equal(got, want) {
		t.Errorf("Versions: %v, want %v", got, want)
	}
}

// An archive's files and edges are the union over every (CUDA version,
// platform) it serves; an edge limited to some platforms only counts there.
func TestUnionOfFilesAndDeps(t *testing.T) {
	shared := arc("linux-sbsa", "", "s1") // serves sbsa and, as in CUDA 13, Jetson
	a := foo(map[string]pkgset.Archive{"linux-x86_64": arc("linux-x86_64", "", "x1"), "linux-sbsa": shared, "linux-jetson": shared})
	a.Files["linux-sbsa"] = []pkgset.File{header("include"), lib("lib/libfoo.so.1")}
	a.Files["linux-jetson"] = []pkgset.File{header("include"), lib("lib/libfoo_jetson.so.1")}
	a.Files["linux-x86_64"] = []pkgset.File{header("include")}
	a.Deps = []pkgset.Dep{
		{Name: "libbar"},
		{Name: "libbaz", Platforms: []string{"linux-jetson"}},
		{Name: "libqux", Platforms: []string{"linux-x86_64"}},
		{Name: "libplug", Runtime: true},
	}
	b := foo(map[string]pkgset.Archive{"linux-sbsa": shared})
	b.Files["linux-sbsa"] = []pkgset.File{lib("lib/libfoo_extra.so.1")}
	ix := mustCollect(t, []*pkgset.Set{set("12.4.1", a), set("12.6.3", b)}, []platform.Platform{x86, sbsa, jet}, "")

	u, ok := ix.Use("libfoo", v("12.6.3"), sbsa)
	if !ok || u.Archive == nil {
		t.Fatalf("Use(libfoo, 12.6.3, sbsa): %+v, %v", u, ok)
	}
	got := u.Archive
	wantFiles := []pkgset.File{header("include"), lib("lib/libfoo.so.1"), lib("lib/libfoo_extra.so.1"), lib("lib/libfoo_jetson.so.1")}
	if d := cmp.Diff(wantFiles, got.SortedFiles()); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{"libbar": true, "libbaz": true}, got.Deps); d != "" {
		t.Errorf("deps (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{"libplug": true}, got.Runtime); d != "" {
		t.Errorf("runtime (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{"linux-sbsa": true, "linux-jetson": true}, got.Platforms); d != "" {
		t.Errorf("platforms (-want +got):\n%s", d)
	}
	if !got.HasFile("lib/libfoo.so.1") || got.HasFile("lib") || !got.HasKind("headers") || got.HasKind("data") {
		t.Error("HasFile/HasKind disagree with the files")
	}
	x, _ := ix.Use("libfoo", v("12.4.1"), x86)
	if d := cmp.Diff(map[string]bool{"libbar": true, "libqux": true}, x.Archive.Deps); d != "" {
		t.Errorf("x86_64 deps (-want +got):\n%s", d)
	}
	if got, want := names(ix.Archives()), []string{"libfoo_1_2_3_linux_sbsa", "libfoo_1_2_3_linux_x86_64"}; !cmp.Equal(got, want) {
		t.Errorf("Archives: %v, want %v", got, want)
	}
}

// Where nothing serves a package, the Use has the reasons: the plugins'
// (which win over an archive), or that no archive serves the platform; a
// set without the package has no Use at all.
func TestReasons(t *testing.T) {
	p := foo(map[string]pkgset.Archive{"linux-x86_64": arc("linux-x86_64", "", "x1"), "linux-sbsa": arc("linux-sbsa", "", "s1")})
	p.Unavailable["linux-sbsa"] = []string{"needs a newer driver", "not tested"}
	other := &pkgset.Package{Name: "libbar", Manifest: "libbar", Platforms: map[string]pkgset.Archive{"linux-x86_64": arc("linux-x86_64", "", "b1")}}
	ix := mustCollect(t, []*pkgset.Set{set("12.4.1", p, other), set("12.6.3", other)}, []platform.Platform{x86, sbsa, jet}, "")

	for _, tt := range []struct {
		pkg, cuda string
		p         platform.Platform
		ok        bool
		reasons   []string
		unusable  string
	}{
		{"libfoo", "12.4.1", sbsa, true, []string{"needs a newer driver", "not tested"},
			"@h//:libfoo cannot be used with CUDA 12.4.1 on linux-sbsa: needs a newer driver; not tested (every reason: cudapkgs query --cuda 12.4.1 --platform linux-sbsa --package libfoo --capabilities 6.0 --format json)"},
		{"libfoo", "12.4.1", jet, true, []string{"no archive of libfoo 1.2.3 serves linux-jetson"},
			"@h//:libfoo cannot be used with CUDA 12.4.1 on linux-jetson: no archive of libfoo 1.2.3 serves linux-jetson (every reason: cudapkgs query --cuda 12.4.1 --platform linux-jetson --package libfoo --capabilities 6.0 --format json)"},
		{"libfoo", "12.6.3", x86, false, nil,
			"@h//:libfoo cannot be used with CUDA 12.6.3 on linux-x86_64: there is no package libfoo in the CUDA 12.6.3 package set"},
	} {
		u, ok := ix.Use(tt.pkg, v(tt.cuda), tt.p)
		if ok != tt.ok || u.Archive != nil || !cmp.Equal(u.Reasons, tt.reasons) {
			t.Errorf("Use(%s, %s, %s): %+v, %v; want reasons %q, %v", tt.pkg, tt.cuda, tt.p, u, ok, tt.reasons, tt.ok)
		}
		var found bool
		for _, c := range ix.Cells(tt.pkg) {
			if c.CUDA.Equal(v(tt.cuda)) && c.Platform == tt.p {
				found = true
				if got := c.Unusable("@h//:", QueryFlags([]string{"6.0"})); got != tt.unusable {
					t.Errorf("Unusable:\n got %s\nwant %s", got, tt.unusable)
				}
			}
		}
		if !found {
			t.Errorf("no cell %s %s of %s", tt.cuda, tt.p, tt.pkg)
		}
	}
	// The sbsa archive has reasons: it serves nothing, so there is none.
	if got, want := names(ix.Archives()), []string{"libbar_linux_x86_64", "libfoo_1_2_3_linux_x86_64"}; !cmp.Equal(got, want) {
		t.Errorf("Archives: %v, want %v", got, want)
	}
	if got, want := ix.Usable("libfoo"), "it is usable with CUDA 12.4.1 on linux-x86_64"; got != want {
		t.Errorf("Usable: %q, want %q", got, want)
	}
	if got, want := ix.Packages(), []string{"libbar", "libfoo"}; !cmp.Equal(got, want) {
		t.Errorf("Packages: %v, want %v", got, want)
	}
	if !ix.HasPackage("libbar") || ix.HasPackage("libnone") {
		t.Error("HasPackage")
	}
	keys, labels := ix.Select("libfoo", func(c Cell) string { return c.CUDA.String() + "/" + c.Platform.Name() },
		func(a *Archive) string { return "@" + a.Name }, "default")
	wantKeys := []string{"12.4.1/linux-x86_64", "12.4.1/linux-sbsa", "12.4.1/linux-jetson",
		"12.6.3/linux-x86_64", "12.6.3/linux-sbsa", "12.6.3/linux-jetson", "default"}
	wantLabels := []string{"@libfoo_1_2_3_linux_x86_64", "//unusable:libfoo_12_4_1_linux_sbsa", "//unusable:libfoo_12_4_1_linux_jetson",
		"//unusable:libfoo_12_6_3_linux_x86_64", "//unusable:libfoo_12_6_3_linux_sbsa", "//unusable:libfoo_12_6_3_linux_jetson", "//unusable:libfoo"}
	if d := cmp.Diff(wantKeys, keys); d != "" {
		t.Errorf("Select keys (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantLabels, labels); d != "" {
		t.Errorf("Select labels (-want +got):\n%s", d)
	}
	nowhere := mustCollect(t, []*pkgset.Set{set("12.4.1", foo(nil))}, []platform.Platform{x86}, "")
	if got, want := nowhere.Usable("libfoo"), "it is usable nowhere"; got != want {
		t.Errorf("Usable: %q, want %q", got, want)
	}
}

func TestErrors(t *testing.T) {
	targets := []platform.Platform{x86, sbsa}
	with := func(mod func(p *pkgset.Package)) []*pkgset.Set {
		p := foo(map[string]pkgset.Archive{"linux-x86_64": arc("linux-x86_64", "", "x1"), "linux-sbsa": arc("linux-sbsa", "", "s1")})
		mod(p)
		return []*pkgset.Set{set("12.4.1", p)}
	}
	for _, tt := range []struct {
		name string
		sets []*pkgset.Set
		want string
	}{
		{"no sets", nil, "no package sets: nothing to generate"},
		{"duplicate version", []*pkgset.Set{set("12.4.1"), set("12.6.3"), set("12.4.1")}, "two package sets for CUDA 12.4.1"},
		{"no sha256", with(func(p *pkgset.Package) {
			a := p.Platforms["linux-sbsa"]
			a.SHA256 = ""
			p.Platforms["linux-sbsa"] = a
		}), "CUDA 12.4.1: libfoo on linux-sbsa: archive libfoo/linux-sbsa/libfoo-linux-sbsa.tar.xz has no sha256"},
		{"no URL", with(func(p *pkgset.Package) {
			a := p.Platforms["linux-x86_64"]
			a.URLs = nil
			p.Platforms["linux-x86_64"] = a
		}), "CUDA 12.4.1: libfoo on linux-x86_64: archive libfoo/linux-x86_64/libfoo-linux-x86_64.tar.xz has no URL"},
		{"one archive, two manifests", []*pkgset.Set{set("12.4.1",
			foo(map[string]pkgset.Archive{"linux-x86_64": arc("linux-x86_64", "", "x1")}),
			&pkgset.Package{Name: "libbar", Manifest: "libbar", Platforms: map[string]pkgset.Archive{"linux-x86_64": arc("linux-x86_64", "", "x1")}},
		)}, "CUDA 12.4.1: libbar on linux-x86_64: archive libfoo/linux-x86_64/libfoo-linux-x86_64.tar.xz (sha256 x1) serves both libfoo and libbar"},
		{"two archives, one name", with(func(p *pkgset.Package) {
			// Keys that differ only in what Sanitize replaces.
			p.Platforms["linux-sbsa"] = arc("linux_x86_64", "", "s1")
		}), "CUDA 12.4.1: libfoo on linux-sbsa: two different archives would both be named libfoo_1_2_3_linux_x86_64: " +
			"libfoo/linux-x86_64/libfoo-linux-x86_64.tar.xz (sha256 x1) and libfoo/linux_x86_64/libfoo-linux_x86_64.tar.xz (sha256 s1)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Collect(tt.sets, targets, "")
			if err == nil || err.Error() != tt.want {
				t.Errorf("Collect: %v, %v; want the error %q", ix, err, tt.want)
			}
		})
	}
}

// Collect sorts a copy: the caller's slices keep their order.
func TestCollectCopies(t *testing.T) {
	sets := []*pkgset.Set{set("12.6.3"), set("12.4.1")}
	targets := []platform.Platform{sbsa, x86}
	ix := mustCollect(t, sets, targets, "")
	if !sets[0].CUDA.Equal(v("12.6.3")) {
		t.Error("Collect reordered the caller's sets")
	}
	ix.Sets()[0] = nil
	if ix.Sets()[0] == nil {
		t.Error("Sets returns the Index's own slice")
	}
	if got := ix.Targets(); !cmp.Equal(got, targets) {
		t.Errorf("Targets: %v, want %v (Collect's order)", got, targets)
	}
}

func TestExecTargets(t *testing.T) {
	ix := mustCollect(t, []*pkgset.Set{set("12.4.1")}, []platform.Platform{win, x86, jet, sbsa}, "")
	if got, want := ix.ExecTargets(), []platform.Platform{jet, sbsa, x86}; !cmp.Equal(got, want) {
		t.Errorf("ExecTargets: %v, want %v", got, want)
	}
}

func TestNames(t *testing.T) {
	for _, tt := range []struct{ in, sanitized, target string }{
		{"libfoo", "libfoo", "libfoo"},
		{"libfoo-1.2+x", "libfoo_1_2_x", "libfoo-1.2+x"},
		{"a b/c@d", "a_b_c_d", "a_b_c_d"},
		{"", "", ""},
	} {
		if got := Sanitize(tt.in); got != tt.sanitized {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.sanitized)
		}
		if got := TargetName(tt.in); got != tt.target {
			t.Errorf("TargetName(%q) = %q, want %q", tt.in, got, tt.target)
		}
	}
	for s, want := range map[string]bool{"cuda": true, "my_hub2": true, "_x": true, "": false, "my-hub": false, "1hub": false, "hub.x": false} {
		if got := LabelSafe(s); got != want {
			t.Errorf("LabelSafe(%q) = %v, want %v", s, got, want)
		}
	}
	for in, want := range map[string]string{"libfoo.so.12": "libfoo", "libfoo_static.a": "libfoo_static", "libfoo.so": "libfoo", "foo": "foo", ".so": ""} {
		if got := LibBase(in); got != want {
			t.Errorf("LibBase(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"include/foo.h": true, "include/foo.cuh": true, "include": false, "include/foo": false, "lib/foo.so": false} {
		if got := IsHeaderFile(in); got != want {
			t.Errorf("IsHeaderFile(%q) = %v, want %v", in, got, want)
		}
	}
	if got := PlatformTarget(sbsa); got != "linux_sbsa" {
		t.Errorf("PlatformTarget(sbsa) = %q", got)
	}
	if got := UnusableTarget("libfoo", v("12.6.3"), x86); got != "libfoo_12_6_3_linux_x86_64" {
		t.Errorf("UnusableTarget = %q", got)
	}
}

func TestTargetNames(t *testing.T) {
	n := NewTargetNames("libfoo", "headers")
	var got []string
	for _, base := range []string{"libbar", "libbar", "libbar", "libfoo", "headers", "lib bar"} {
		got = append(got, n.Unique(base, "shared"))
	}
	want := []string{"libbar", "libbar_shared", "libbar_shared2", "libfoo_shared", "headers_shared", "lib_bar"}
	if !cmp.Equal(got, want) {
		t.Errorf("Unique: %v, want %v", got, want)
	}
}

func TestSortFiles(t *testing.T) {
	want := []pkgset.File{
		{Path: "a", Kind: "data", Role: "exec"},
		{Path: "a", Kind: "headers", Role: "exec"},
		{Path: "a", Kind: "headers", Role: "target"},
		{Path: "b", Kind: "shared_lib", Role: "target", SONAME: "b.1"},
		{Path: "b", Kind: "shared_lib", Role: "target", SONAME: "b.2"},
	}
	m := map[pkgset.File]bool{}
	for _, f := range want {
		m[f] = true
	}
	for i := 0; i < 5; i++ { // map order varies between runs
		if d := cmp.Diff(want, SortFiles(m)); d != "" {
			t.Fatalf("SortFiles (-want +got):\n%s", d)
		}
	}
}

func TestDefaultVersion(t *testing.T) {
	ix := mustCollect(t, []*pkgset.Set{set("12.10.0"), set("12.9.1")}, []platform.Platform{x86}, "hub")
	if got := ix.DefaultVersion(nil); got.String() != "12.10.0" {
		t.Errorf("DefaultVersion(nil) = %s, want the newest set, 12.10.0", got)
	}
	if got := ix.DefaultVersion([]version.Version{version.MustParse("12.9.1")}); got.String() != "12.9.1" {
		t.Errorf("DefaultVersion([12.9.1]) = %s, want the newest configured, 12.9.1", got)
	}
}

// A message is at most MaxMessage bytes: the first reason always (cut at a
// word when it alone is too long), as many more as fit, a count of the rest,
// what to use instead and the query that lists everything.
func TestUnusableFits(t *testing.T) {
	long := strings.Repeat("word ", 100)
	cell := func(instead string, reasons ...string) Cell {
		return Cell{Package: "libfoo", CUDA: v("12.4.1"), Platform: sbsa, InSet: true, Use: Use{Reasons: reasons, Instead: instead}}
	}
	const query = " (every reason: cudapkgs query --cuda 12.4.1 --platform linux-sbsa --package libfoo --format json)"
	const head = "@h//:libfoo cannot be used with CUDA 12.4.1 on linux-sbsa: "
	for _, tt := range []struct {
		name string
		c    Cell
		want string
	}{
		{"two fit", cell("", "first", "second"), head + "first; second" + query},
		{"instead", cell("libfoo_1_1", "first"), head + "first; use @h//:libfoo_1_1 instead" + query},
		{"the rest counted", cell("", "first", long, "third"), head + "first; 2 more" + query},
		{"the first cut", cell("", long, "second"), ""},
	} {
		got := tt.c.Unusable("@h//:", "")
		if len(got) > MaxMessage {
			t.Errorf("%s: %d bytes, over %d: %s", tt.name, len(got), MaxMessage, got)
		}
		if tt.want != "" && got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
		if tt.want == "" && (!strings.HasPrefix(got, head+"word word") || !strings.HasSuffix(got, "word...; 1 more"+query)) {
			t.Errorf("%s: %s", tt.name, got)
		}
	}
	if got := cut("abc déf ghi", 9); got != "abc..." {
		t.Errorf("cut: %q", got)
	}
}

// Where a package cannot be used, its Use names the newest other name of
// the same package that can be used there, judged after every plugin and
// override (the versioned name on a tie), and nothing where none can.
func TestInstead(t *testing.T) {
	mk := func(name, rel string, sbsaReason string) *pkgset.Package {
		// Two names of one release share its archives.
		p := foo(map[string]pkgset.Archive{"linux-x86_64": arc("linux-x86_64", "", "x"+rel), "linux-sbsa": arc("linux-sbsa", "", "s"+rel)})
		p.Name, p.Product, p.Release, p.Version = name, "foo", v(rel), v(rel+".1")
		if sbsaReason != "" {
			p.Unavailable["linux-sbsa"] = []string{sbsaReason}
		}
		return p
	}
	def, v2, v1, v0 := mk("libfoo", "2.0", "too new"), mk("libfoo_2_0", "2.0", "too new"), mk("libfoo_1_0", "1.0", ""), mk("libfoo_0_9", "0.9", "")
	other := &pkgset.Package{Name: "libbar", Product: "bar", Manifest: "libbar", Release: v("1.0"), Platforms: map[string]pkgset.Archive{"linux-x86_64": arc("linux-x86_64", "", "b")},
		Unavailable: map[string][]string{}}
	ix := mustCollect(t, []*pkgset.Set{set("12.4.1", def, other, v0, v1, v2)}, []platform.Platform{x86, sbsa}, "")
	for pkg, want := range map[string]string{"libfoo": "libfoo_1_0", "libfoo_2_0": "libfoo_1_0", "libbar": ""} {
		u, _ := ix.Use(pkg, v("12.4.1"), sbsa)
		if u.Archive != nil || u.Instead != want {
			t.Errorf("%s on sbsa: instead %q, want %q", pkg, u.Instead, want)
		}
	}
}
