package localcuda_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
)

// The rendered table is valid Starlark and reads back as the same data, so
// a repository rule can run the same search as Find.
func TestStarlarkRoundTrip(t *testing.T) {
	want := localcuda.Layouts()
	src := "LAYOUTS = " + localcuda.Starlark(want)
	globals, err := starlark.ExecFileOptions(&syntax.FileOptions{}, &starlark.Thread{Name: "test"}, "layouts.bzl", src, nil)
	if err != nil {
		t.Fatalf("rendered table does not run: %v\n%s", err, src)
	}
	d, ok := globals["LAYOUTS"].(*starlark.Dict)
	if !ok {
		t.Fatalf("LAYOUTS is %s, want dict", globals["LAYOUTS"].Type())
	}
	var got []localcuda.Layout
	for _, item := range d.Items() {
		l := fields(t, item[1])
		got = append(got, localcuda.Layout{
			Name:            str(t, item[0]),
			Markers:         strs(t, l["markers"]),
			Triples:         triples(t, l["triples"]),
			TripleProbe:     str(t, l["triple_probe"]),
			TripleLink:      str(t, l["triple_link"]),
			Merged:          bool(l["merged"].(starlark.Bool)),
			Dirs:            dirs(t, l["dirs"]),
			Release:         sources(t, l["release"]),
			ReleaseOptional: bool(l["release_optional"].(starlark.Bool)),
			Components:      sources(t, l["components"]),
		})
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("round trip (-table +starlark):\n%s", diff)
	}
}

// Layouts hands out a copy: changing it does not change the next call's.
func TestLayoutsIsACopy(t *testing.T) {
	a := localcuda.Layouts()
	a[0].Dirs[0].Candidates[0].Path = "changed"
	a[0].Markers[0] = "changed"
	if diff := cmp.Diff(localcuda.Layouts()[0], a[0]); diff == "" {
		t.Fatal("Layouts returned shared data")
	}
}

func fields(t *testing.T, v starlark.Value) map[string]starlark.Value {
	t.Helper()
	d, ok := v.(*starlark.Dict)
	if !ok {
		t.Fatalf("%s is %s, want dict", v, v.Type())
	}
	out := map[string]starlark.Value{}
	for _, it := range d.Items() {
		out[str(t, it[0])] = it[1]
	}
	return out
}

func str(t *testing.T, v starlark.Value) string {
	t.Helper()
	s, ok := starlark.AsString(v)
	if !ok {
		t.Fatalf("%s is %s, want string", v, v.Type())
	}
	return s
}

func list(t *testing.T, v starlark.Value) []starlark.Value {
	t.Helper()
	l, ok := v.(*starlark.List)
	if !ok {
		t.Fatalf("%s is %s, want list", v, v.Type())
	}
	var out []starlark.Value
	for i := range l.Len() {
		out = append(out, l.Index(i))
	}
	return out
}

func strs(t *testing.T, v starlark.Value) []string {
	var out []string
	for _, e := range list(t, v) {
		out = append(out, str(t, e))
	}
	return out
}

func triples(t *testing.T, v starlark.Value) []localcuda.Triple {
	var out []localcuda.Triple
	for _, e := range list(t, v) {
		p := strs(t, e)
		out = append(out, localcuda.Triple{Triple: p[0], Platform: p[1]})
	}
	return out
}

func dirs(t *testing.T, v starlark.Value) []localcuda.Dir {
	var out []localcuda.Dir
	for _, e := range list(t, v) {
		f := fields(t, e)
		d := localcuda.Dir{Prefix: str(t, f["prefix"])}
		for _, c := range list(t, f["candidates"]) {
			cf := fields(t, c)
			d.Candidates = append(d.Candidates, localcuda.Candidate{Path: str(t, cf["path"]), System: bool(cf["system"].(starlark.Bool))})
		}
		out = append(out, d)
	}
	return out
}

func sources(t *testing.T, v starlark.Value) []localcuda.Source {
	var out []localcuda.Source
	for _, e := range list(t, v) {
		f := fields(t, e)
		out = append(out, localcuda.Source{Kind: str(t, f["kind"]), Path: str(t, f["path"]), Key: str(t, f["key"])})
	}
	return out
}
