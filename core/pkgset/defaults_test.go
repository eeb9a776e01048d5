package pkgset_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// A set shaped like the plugins leave it: the default libfoo (release 9.2)
// is ruled out on jetson and sbsa, libfoo_9_1 serves jetson, libfoo_8_9 and
// libfoo_9_1 do not serve sbsa.
func defaultsSet() *pkgset.Set {
	arch := func(sha string) pkgset.Archive { return pkgset.Archive{Key: "k", SHA256: sha, URLs: []string{"u"}} }
	pkg := func(name, rel string) *pkgset.Package {
		return &pkgset.Package{Name: name, Product: "foo", Manifest: "libfoo", Release: version.MustParse(rel), Version: version.MustParse(rel + ".1"),
			Platforms: map[string]pkgset.Archive{}, Unavailable: map[string][]string{}, Files: map[string][]pkgset.File{}}
	}
	def, v91, v89 := pkg("libfoo", "9.2"), pkg("libfoo_9_1", "9.1"), pkg("libfoo_8_9", "8.9")
	def.Platforms["linux-x86_64"], def.Platforms["linux-jetson"], def.Platforms["linux-sbsa"] = arch("a"), arch("b"), arch("c")
	def.Unavailable["linux-jetson"] = []string{"capability 7.2 is not supported by libfoo 9.2"}
	def.Unavailable["linux-sbsa"] = []string{"capability 7.0 is not supported by libfoo 9.2"}
	def.Files["linux-x86_64"] = []pkgset.File{{Path: "lib/libfoo.so.9", Kind: "shared_lib"}}
	def.Deps = []pkgset.Dep{{Name: "libbar"}}
	for _, v := range []*pkgset.Package{v91, v89} {
		v.Platforms["linux-jetson"] = arch("j" + v.Name)
		v.Files["linux-jetson"] = []pkgset.File{{Path: "lib/" + v.Name + ".so", Kind: "shared_lib"}}
		v.Platforms["linux-sbsa"] = arch("s" + v.Name)
		v.Unavailable["linux-sbsa"] = []string{v.Name + " has no sbsa build for 7.0"}
		v.Deps = []pkgset.Dep{{Name: "libbaz", Runtime: true}}
	}
	return &pkgset.Set{CUDA: version.MustParse("12.4.1"), Packages: []*pkgset.Package{def, v89, v91}}
}

func defaultsConfig(t *testing.T, pins ...string) *config.Config {
	t.Helper()
	avail := config.Available{Toolkit: "cuda", Releases: map[string][]version.Version{
		"cuda": {version.MustParse("12.4.1")}, "foo": {version.MustParse("8.9"), version.MustParse("9.1"), version.MustParse("9.2")}}}
	cfg, err := config.Evaluate(avail, config.Defaults{}, config.Literal{From: "test", Options: config.Options{Pins: pins, Targets: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"}}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestChooseDefaults(t *testing.T) {
	s := defaultsSet()
	pkgset.ChooseDefaults(defaultsConfig(t), s)
	def, _ := s.Package("libfoo")

	// x86_64 keeps the newest release; jetson is served by the newest that
	// is usable there, with its archive, files and edges.
	if _, ok := def.Served["linux-x86_64"]; ok || def.Platforms["linux-x86_64"].SHA256 != "a" {
		t.Errorf("x86_64 re-pointed: %+v", def.Served)
	}
	sv, ok := def.Served["linux-jetson"]
	if !ok || sv.Name != "libfoo_9_1" || sv.Version.String() != "9.1.1" || !strings.Contains(strings.Join(sv.Passed, ""), "capability 7.2") {
		t.Errorf("jetson served by %+v, want libfoo_9_1 with the reason 9.2 was passed over", sv)
	}
	if def.Platforms["linux-jetson"].SHA256 != "jlibfoo_9_1" || len(def.Unavailable["linux-jetson"]) != 0 || def.Files["linux-jetson"][0].Path != "lib/libfoo_9_1.so" {
		t.Errorf("jetson: archive %s, reasons %v, files %v", def.Platforms["linux-jetson"].SHA256, def.Unavailable["linux-jetson"], def.Files["linux-jetson"])
	}
	wantDeps := []pkgset.Dep{
		{Name: "libbar", Platforms: []string{"linux-sbsa", "linux-x86_64"}},
		{Name: "libbaz", Runtime: true, Platforms: []string{"linux-jetson"}},
	}
	if diff := cmp.Diff(wantDeps, def.Deps); diff != "" {
		t.Errorf("deps (-want +got):\n%s", diff)
	}

	// sbsa: nothing serves; the reasons are the default's own and one
	// sentence summing up the older releases, each of which is in Tried
	// with why it does not serve either.
	wantWhy := []string{"capability 7.0 is not supported by libfoo 9.2", "no older release serves linux-sbsa either (2 tried, libfoo_9_1 to libfoo_8_9)"}
	if diff := cmp.Diff(wantWhy, def.Unavailable["linux-sbsa"]); diff != "" {
		t.Errorf("sbsa reasons (-want +got):\n%s", diff)
	}
	wantTried := []pkgset.Tried{
		{Name: "libfoo_9_1", Release: version.MustParse("9.1"), Version: version.MustParse("9.1.1"), Reasons: []string{"libfoo_9_1 has no sbsa build for 7.0"}},
		{Name: "libfoo_8_9", Release: version.MustParse("8.9"), Version: version.MustParse("8.9.1"), Reasons: []string{"libfoo_8_9 has no sbsa build for 7.0"}},
	}
	if diff := cmp.Diff(wantTried, def.Tried["linux-sbsa"]); diff != "" {
		t.Errorf("sbsa tried (-want +got):\n%s", diff)
	}
	// jetson: the first older release served, nothing was ruled out first.
	if tr, ok := def.Tried["linux-jetson"]; ok {
		t.Errorf("jetson tried %+v, want none", tr)
	}

	// Deterministic: the same input gives the same answer.
	again := defaultsSet()
	pkgset.ChooseDefaults(defaultsConfig(t), again)
	d2, _ := again.Package("libfoo")
	if diff := cmp.Diff(def, d2); diff != "" {
		t.Errorf("second run differs:\n%s", diff)
	}
}

// An edge that asked for the default's own release (samples for the cuDNN
// of their release) keeps it, under the versioned name, where the default
// is now served by an older release.
func TestChooseDefaultsKeepsReleaseEdges(t *testing.T) {
	s := defaultsSet()
	own := &pkgset.Package{Name: "libfoo_9_2", Product: "foo", Manifest: "libfoo", Release: version.MustParse("9.2"), Version: version.MustParse("9.2.1"),
		Platforms: map[string]pkgset.Archive{}, Unavailable: map[string][]string{}}
	samples := &pkgset.Package{Name: "libfoo_samples", Product: "foo", Manifest: "libfoo_samples", Release: version.MustParse("9.2"), Version: version.MustParse("9.2.1"),
		Platforms:   map[string]pkgset.Archive{"linux-x86_64": {}, "linux-jetson": {}},
		Unavailable: map[string][]string{},
		Deps:        []pkgset.Dep{{Name: "libfoo", Release: "9.2"}, {Name: "libbar"}}}
	s.Packages = append(s.Packages, own, samples)
	sort.Slice(s.Packages, func(i, j int) bool { return s.Packages[i].Name < s.Packages[j].Name })
	pkgset.ChooseDefaults(defaultsConfig(t), s)
	want := []pkgset.Dep{
		{Name: "libbar"},
		{Name: "libfoo", Release: "9.2", Platforms: []string{"linux-sbsa", "linux-x86_64"}},
		{Name: "libfoo_9_2", Release: "9.2", Platforms: []string{"linux-jetson"}},
	}
	if diff := cmp.Diff(want, samples.Deps); diff != "" {
		t.Errorf("samples deps (-want +got):\n%s", diff)
	}
}

// A pinned product keeps its release everywhere: the user chose it.
func TestChooseDefaultsLeavesPins(t *testing.T) {
	s := defaultsSet()
	pkgset.ChooseDefaults(defaultsConfig(t, "foo=9.2"), s)
	def, _ := s.Package("libfoo")
	if def.Served != nil || len(def.Unavailable["linux-jetson"]) != 1 {
		t.Errorf("pinned default re-pointed: served %v, jetson reasons %v", def.Served, def.Unavailable["linux-jetson"])
	}
}
