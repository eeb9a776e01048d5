package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReport(t *testing.T) {
	want := map[string][]byte{"a": []byte("1\n2\n3\n"), "gone": []byte("x\n"), "same": []byte("s\n")}
	for _, tt := range []struct {
		name string
		got  map[string][]byte
		// has and lacks are what the report must and must not say.
		has, lacks []string
	}{
		{"same", map[string][]byte{"a": []byte("1\n2\n3\n"), "gone": []byte("x\n"), "same": []byte("s\n")}, nil, nil},
		{"changed", map[string][]byte{"a": []byte("1\nTWO\n3\n"), "gone": []byte("x\n"), "same": []byte("s\n")},
			[]string{"changed: a\n", "-2\n", "+TWO\n", " 1\n"}, []string{"same", "gone"}},
		{"added and missing", map[string][]byte{"a": []byte("1\n2\n3\n"), "new": []byte("n\n"), "same": []byte("s\n")},
			[]string{"added: new (produced, not in testdata)\n", "+n\n", "missing: gone (in testdata, not produced)\n"}, []string{"changed"}},
		// A test that produced nothing: every kept file is missing.
		{"nothing produced", nil, []string{"missing: a (", "missing: gone (", "missing: same ("}, []string{"added"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := report(want, tt.got)
			if (r == "") != (len(tt.has) == 0) {
				t.Fatalf("report:\n%s", r)
			}
			for _, s := range tt.has {
				if !strings.Contains(r, s) {
					t.Errorf("report lacks %q:\n%s", s, r)
				}
			}
			for _, s := range tt.lacks {
				if strings.Contains(r, s) {
					t.Errorf("report has %q:\n%s", s, r)
				}
			}
		})
	}
}

// TestReportOrder: files are reported in path order, whatever the maps'.
func TestReportOrder(t *testing.T) {
	got := map[string][]byte{}
	for i := range 20 {
		got[fmt.Sprintf("f%02d", i)] = []byte("x\n")
	}
	r := report(nil, got)
	if i, j := strings.Index(r, "added: f03"), strings.Index(r, "added: f17"); i < 0 || j < i {
		t.Errorf("not in path order:\n%s", r)
	}
}

// TestWrite: -update leaves exactly the files produced, stale ones and the
// folders that held them gone.
func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "golden")
	if err := write(dir, map[string][]byte{"old/stale": []byte("s"), "keep": []byte("k0")}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"keep": []byte("k1"), "sub/new": []byte("n")}
	if err := write(dir, files); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(files, readDir(t, dir)); d != "" {
		t.Errorf("-want +got:\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "old")); !os.IsNotExist(err) {
		t.Errorf("stale folder: %v", err)
	}
}

// recorder keeps what a harness function reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestDirAndFile(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir, map[string][]byte{"f": []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		run  func(testing.TB)
		want string // "" for a pass
		// hint: the report says how to refresh (not for Equal, whose want
		// -update does not write).
		hint bool
	}{
		{"dir same", func(tb testing.TB) { Dir(tb, dir, map[string][]byte{"f": []byte("a\n")}) }, "", false},
		{"dir changed", func(tb testing.TB) { Dir(tb, dir, map[string][]byte{"f": []byte("b\n")}) }, "changed: f", true},
		{"file same", func(tb testing.TB) { File(tb, filepath.Join(dir, "f"), []byte("a\n")) }, "", false},
		{"file changed", func(tb testing.TB) { File(tb, filepath.Join(dir, "f"), []byte("b\n")) }, "+b", true},
		{"equal", func(tb testing.TB) { Equal(tb, "f", []byte("a\n"), []byte("a\n")) }, "", false},
		{"not equal", func(tb testing.TB) { Equal(tb, "f", []byte("a\n"), []byte("b\n")) }, "f differs from its source", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			tt.run(r)
			got := strings.Join(r.errs, "\n")
			if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
				t.Errorf("reported %q, want %q", got, tt.want)
			}
			if h := strings.Contains(got, "go test ./internal/golden -update"); h != tt.hint {
				t.Errorf("refresh hint %v, want %v: %q", h, tt.hint, got)
			}
		})
	}
}
