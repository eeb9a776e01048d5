package manifest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

const zeroSHA = "0000000000000000000000000000000000000000000000000000000000000000"

func fake(pkgVersion string) string {
	return `{"release_date": "2026-01-01", "libfoo": {"name": "foo", "license": "x", "version": "` + pkgVersion +
		`", "linux-x86_64": {"relative_path": "libfoo/foo.tar.xz", "sha256": "` + zeroSHA + `", "md5": "00000000000000000000000000000000", "size": "1"}}}`
}

// A file system laid out like a folder loads like one, its files named
// under the name given.
func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"widget/redistrib_1.0.0.json": {Data: []byte(fake("1.0.0.1"))},
		"widget/redistrib_1.1.0.json": {Data: []byte(fake("1.1.0.1"))},
		"widget/features/x.json":      {Data: []byte("{}")},
		"README":                      {Data: []byte("x")},
	}
	c, err := LoadFS(context.Background(), fsys, "(embedded)", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := c.Releases("widget")
	if len(rs) != 2 || rs[1].File != filepath.Join("(embedded)", "widget", "redistrib_1.1.0.json") {
		t.Fatalf("releases %v", rs)
	}
	if c.Origin(rs[0]) != "" {
		t.Errorf("origin %q outside Merge", c.Origin(rs[0]))
	}
	if _, err := LoadFS(context.Background(), fstest.MapFS{"README": {Data: []byte("x")}}, "(embedded)", LoadOptions{}); !errors.Is(err, ErrNoManifests) {
		t.Errorf("empty: %v, want ErrNoManifests", err)
	}
	dir := t.TempDir()
	if _, err := LoadDir(dir); !errors.Is(err, ErrNoManifests) || !strings.Contains(err.Error(), dir+": no manifests found: expected") {
		t.Errorf("empty folder: %v", err)
	}
}

// Merge serves each (product, release) from the first source that has it;
// a refused file is served from a later source, the refusal kept as a
// warning that says so.
func TestMerge(t *testing.T) {
	first, err := LoadFS(context.Background(), fstest.MapFS{
		"widget/redistrib_1.1.0.json": {Data: []byte(fake("1.1.0.7"))},
		"widget/redistrib_1.2.0.json": {Data: []byte(fake("1.2.0.1"))},
		"widget/redistrib_1.3.0.json": {Data: []byte(`{`)},
		"widget/redistrib_1.4.0.json": {Data: []byte(`{`)},
	}, "cachedir", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := LoadFS(context.Background(), fstest.MapFS{
		"widget/redistrib_1.0.0.json": {Data: []byte(fake("1.0.0.1"))},
		"widget/redistrib_1.1.0.json": {Data: []byte(fake("1.1.0.1"))},
		"widget/redistrib_1.3.0.json": {Data: []byte(fake("1.3.0.1"))},
		"gadget/redistrib_2.0.0.json": {Data: []byte(fake("2.0.0.1"))},
	}, "snap", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Merge(Named{"cache", first}, Named{"none", nil}, Named{"snapshot", second})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range c.All() {
		p, _ := m.Package("libfoo")
		got[m.Product+" "+m.Release.String()] = c.Origin(m) + " " + p.Version.String()
	}
	want := map[string]string{
		"widget 1.0.0": "snapshot 1.0.0.1",
		"widget 1.1.0": "cache 1.1.0.7", // the cache wins
		"widget 1.2.0": "cache 1.2.0.1",
		"widget 1.3.0": "snapshot 1.3.0.1", // refused in the cache
		"gadget 2.0.0": "snapshot 2.0.0.1",
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	rs := c.Refused()
	if len(rs) != 1 || rs[0].Release != "1.4.0" {
		t.Errorf("refused %v, want only 1.4.0", rs)
	}
	ws := c.Warnings()
	if len(ws) != 2 || !strings.Contains(ws[0].Msg, "widget 1.3.0 is served from the snapshot instead") || !strings.Contains(ws[1].Msg, "widget 1.4.0 is not served") {
		t.Errorf("warnings %v", ws)
	}
	// With keeps the origins.
	w, err := c.With(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := w.Origin(w.Releases("gadget")[0]); o != "snapshot" {
		t.Errorf("origin after With: %q", o)
	}
}
