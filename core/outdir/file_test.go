package outdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFile: the file is written whole, its folder created, an old
// file replaced, no temporary file left beside it; a write that cannot
// happen leaves the old file as it was.
func TestWriteFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, dir string) string // the path to write
		wantErr bool
		want    string // the file's content after
	}{
		{"new file in a new folder", func(t *testing.T, dir string) string { return filepath.Join(dir, "a", "b", "index.html") }, false, "new"},
		{"replaces a file", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "cudapkgs.star")
			mustWrite(t, p, "old")
			return p
		}, false, "new"},
		{"folder is a file", func(t *testing.T, dir string) string {
			mustWrite(t, filepath.Join(dir, "f"), "old")
			return filepath.Join(dir, "f", "x")
		}, true, ""},
		{"path is a folder, which stays", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "index.html")
			mustWrite(t, filepath.Join(p, "kept"), "old")
			return p
		}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := tc.setup(t, dir)
			err := WriteFile(p, []byte("new"))
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want error %v", err, tc.wantErr)
			}
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				if b, err := os.ReadFile(filepath.Join(p, "kept")); err != nil || string(b) != "old" {
					t.Errorf("the folder's file = %q, %v", b, err)
				}
			}
			if tc.want != "" {
				b, err := os.ReadFile(p)
				if err != nil || string(b) != tc.want {
					t.Errorf("%s = %q, %v; want %q", p, b, err, tc.want)
				}
			}
			entries, _ := os.ReadDir(filepath.Dir(p))
			for _, e := range entries {
				if e.Name() != filepath.Base(p) && strings.Contains(e.Name(), filepath.Base(p)) {
					t.Errorf("left beside it: %s", e.Name())
				}
			}
		})
	}
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
