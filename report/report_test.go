package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Made-up products and packages: the report knows none by name.
func testConfig(t *testing.T) *config.Config {
	t.Helper()
	avail := config.Available{Toolkit: "kit", Releases: map[string][]version.Version{
		"kit": {version.MustParse("12.4.1"), version.MustParse("13.0.0")}, "lib": {version.MustParse("2.0"), version.MustParse("3.0")}}}
	cfg, err := config.Evaluate(avail, config.Defaults{}, config.Literal{From: "test", Options: config.Options{Targets: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"}}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func archive() pkgset.Archive {
	return pkgset.Archive{URLs: []string{"https://example.com/a.tar.xz"}, SHA256: "00"}
}

func pkg(name, product, release string, deps ...string) *pkgset.Package {
	p := &pkgset.Package{Name: name, Manifest: name, Product: product, Release: version.MustParse(release), Version: version.MustParse(release + ".1"),
		Platforms: map[string]pkgset.Archive{"linux-x86_64": archive(), "linux-sbsa": archive(), "linux-jetson": archive()}, Unavailable: map[string][]string{}}
	for _, d := range deps {
		p.Deps = append(p.Deps, pkgset.Dep{Name: d})
	}
	return p
}

func testSets() []*pkgset.Set {
	a := &pkgset.Set{CUDA: version.MustParse("12.4.1"), Releases: map[string]version.Version{"kit": version.MustParse("12.4.1"), "lib": version.MustParse("3.0")}}
	rt, cc, tool := pkg("kit_rt", "kit", "12.4.1"), pkg("kit_cc", "kit", "12.4.1", "kit_rt"), pkg("kit_doc", "kit", "12.4.1")
	tool.Unavailable["linux-jetson"] = []string{"not a build input"}
	delete(tool.Platforms, "linux-sbsa")
	tool.Unavailable["linux-sbsa"] = []string{"no linux-sbsa archive"}
	lib := pkg("liblib", "lib", "3.0", "kit_rt", "kit_cc")
	lib.Deps = append(lib.Deps, pkgset.Dep{Name: "kit_rt", Runtime: true, Since: "12.0"})
	old := pkg("liblib_2_0", "lib", "2.0", "kit_rt")
	old.Manifest = "liblib"
	lib.Served = map[string]pkgset.Served{"linux-jetson": {Name: "liblib_2_0", Release: version.MustParse("2.0"), Version: version.MustParse("2.0.1"), Passed: []string{"3.0 has no Jetson build"}}}
	a.Packages = []*pkgset.Package{cc, tool, rt, lib, old}
	b := &pkgset.Set{CUDA: version.MustParse("13.0.0"), Releases: map[string]version.Version{"kit": version.MustParse("13.0.0")},
		NoRelease: map[string]string{"lib": "no lib release serves CUDA 13.0.0"}}
	b.Packages = []*pkgset.Package{pkg("kit_cc", "kit", "13.0.0", "kit_rt"), pkg("kit_rt", "kit", "13.0.0")}
	return []*pkgset.Set{a, b}
}

func build(t *testing.T) *Report {
	t.Helper()
	r, err := Build(Input{Sets: testSets(), Products: []string{"kit"}, Config: testConfig(t), Graph: version.MustParse("12.4.1")})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCells(t *testing.T) {
	r := build(t)
	if got := fmt.Sprint(r.Products, r.Platforms); got != "[kit lib] [linux-x86_64 linux-sbsa linux-jetson]" {
		t.Fatalf("products and platforms: %s", got)
	}
	if len(r.Cells) != 2*2*3 {
		t.Fatalf("%d cells, want 12", len(r.Cells))
	}
	want := []string{
		"12.4.1 kit linux-x86_64 ok 12.4.1 3/3 []",
		"12.4.1 kit linux-sbsa partial 12.4.1 2/3 [kit_doc: no linux-sbsa archive]",
		"12.4.1 kit linux-jetson partial 12.4.1 2/3 [kit_doc: not a build input]",
		"12.4.1 lib linux-x86_64 ok 3.0 1/1 []",
		"12.4.1 lib linux-sbsa ok 3.0 1/1 []",
		"12.4.1 lib linux-jetson older 2.0 1/1 [liblib: served by liblib_2_0 2.0.1; 3.0 passed over: 3.0 has no Jetson build]",
		"13.0.0 kit linux-x86_64 ok 13.0.0 2/2 []",
		"13.0.0 kit linux-sbsa ok 13.0.0 2/2 []",
		"13.0.0 kit linux-jetson ok 13.0.0 2/2 []",
		"13.0.0 lib linux-x86_64 none  0/0 [no lib release serves CUDA 13.0.0]",
		"13.0.0 lib linux-sbsa none  0/0 [no lib release serves CUDA 13.0.0]",
		"13.0.0 lib linux-jetson none  0/0 [no lib release serves CUDA 13.0.0]",
	}
	for i, c := range r.Cells {
		var rs []string
		for _, x := range c.Reasons {
			rs = append(rs, x.String())
		}
		got := fmt.Sprintf("%s %s %s %s %s %d/%d [%s]", c.CUDA, c.Product, c.Platform, c.Status, c.Release, c.Served, c.Total, strings.Join(rs, "; "))
		if got != want[i] {
			t.Errorf("cell %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
}

func TestCoverageAndCompilers(t *testing.T) {
	r := build(t)
	if len(r.Coverage) != 2 || fmt.Sprint(r.Coverage[0].Targets) != "[linux-x86_64 linux-sbsa]" || r.Coverage[0].Jetson ||
		fmt.Sprint(r.Coverage[1].Targets) != "[linux-jetson]" || !r.Coverage[1].Jetson {
		t.Fatalf("coverage groups: %+v", r.Coverage)
	}
	for _, row := range r.Coverage[0].Rows {
		if row.Capability == "3.5" {
			t.Error("Kepler (3.5) listed though neither CUDA version supports it")
		}
		if row.Capability == "8.0" && fmt.Sprint(row.Cells) != "[built built]" {
			t.Errorf("8.0: %v", row.Cells)
		}
		if row.Capability == "9.0a" && fmt.Sprint(row.Cells) != "[supported supported]" {
			t.Errorf("9.0a: %v", row.Cells)
		}
	}
	if got := fmt.Sprintf("%+v", r.Compilers[0]); !strings.Contains(got, "CUDA:12.4 GCCMin:6 GCCMax:13") {
		t.Errorf("compilers: %s", got)
	}
}

func TestGraph(t *testing.T) {
	g := build(t).Graph
	if g.CUDA != "12.4.1" || len(g.Nodes) != 5 {
		t.Fatalf("graph of %s with %d nodes", g.CUDA, len(g.Nodes))
	}
	var edges []string
	for _, e := range g.Edges {
		edges = append(edges, fmt.Sprintf("%s>%s%v%v", e.From, e.To, e.Kinds, e.Conditions))
	}
	if got := strings.Join(edges, " "); got != "kit_cc>kit_rt[][] liblib>kit_cc[][] liblib>kit_rt[runtime][since 12.0] liblib_2_0>kit_rt[][]" {
		t.Errorf("edges: %s", got)
	}
	pos := map[string]*Node{}
	for _, n := range g.Nodes {
		pos[n.Name] = n
	}
	// Dependents above their dependencies; the package without edges below all.
	if !(pos["liblib"].Y < pos["kit_cc"].Y && pos["kit_cc"].Y < pos["kit_rt"].Y) || !pos["kit_doc"].Isolated || pos["kit_doc"].Y <= pos["kit_rt"].Y {
		t.Errorf("layers: %+v %+v %+v %+v", *pos["liblib"], *pos["kit_cc"], *pos["kit_rt"], *pos["kit_doc"])
	}
	// liblib -> kit_rt spans two rows: it bends through a dummy point.
	for _, e := range g.Edges {
		if e.From == "liblib" && e.To == "kit_rt" && len(e.Points) != 3 {
			t.Errorf("long edge points: %v", e.Points)
		}
	}
}

// A graph with a cycle and a ladder whose naive order crosses: the layout
// terminates, reverses one edge, and ends with no crossing.
func TestLayoutCyclesAndCrossings(t *testing.T) {
	s := &pkgset.Set{CUDA: version.MustParse("12.4.1")}
	add := func(name string, deps ...string) { s.Packages = append(s.Packages, pkg(name, "p", "1.0", deps...)) }
	add("a", "y")
	add("b", "x")
	add("x")
	add("y")
	add("c1", "c2")
	add("c2", "c1")
	g := NewGraph(s)
	rev := 0
	for _, e := range g.Edges {
		if e.Reversed {
			rev++
		}
	}
	if rev != 1 {
		t.Errorf("%d edges reversed, want 1", rev)
	}
	pos := map[string]float64{}
	for _, n := range g.Nodes {
		pos[n.Name] = n.X
	}
	if (pos["a"] < pos["b"]) != (pos["y"] < pos["x"]) {
		t.Errorf("a->y and b->x cross: %v", pos)
	}
}

func TestOutputsDeterministic(t *testing.T) {
	var first [3][]byte
	for i := 0; i < 3; i++ {
		r := build(t)
		var h, m, d bytes.Buffer
		if err := r.HTML(&h); err != nil {
			t.Fatal(err)
		}
		if err := r.Markdown(&m); err != nil {
			t.Fatal(err)
		}
		if err := DOT(&d, testSets()); err != nil {
			t.Fatal(err)
		}
		got := [3][]byte{h.Bytes(), m.Bytes(), d.Bytes()}
		for k := range got {
			if i == 0 {
				first[k] = got[k]
			} else if !bytes.Equal(first[k], got[k]) {
				t.Fatalf("output %d differs between runs", k)
			}
		}
	}
	page := string(first[0])
	if n := strings.Count(page, `<td class="cell `); n != 12 {
		t.Errorf("%d cells in the page", n)
	}
	// Self-contained: nothing to fetch.
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:)?//|url\([^#]|@import`).FindString(page); m != "" {
		t.Errorf("the page refers to something outside it: %s", m)
	}
	if !strings.Contains(string(first[1]), "| 12.4.1 | 2.0 (older) [1] |") && !strings.Contains(string(first[1]), "2.0 (older) [") {
		t.Errorf("markdown:\n%s", first[1])
	}
	if !strings.Contains(string(first[2]), `"liblib" -> "kit_rt" [label="runtime", style=dashed, tooltip="since 12.0"];`) {
		t.Errorf("dot:\n%s", first[2])
	}
}
