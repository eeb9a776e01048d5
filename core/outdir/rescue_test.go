package outdir

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRescueNewestWins: files the user saves into --out while a run builds
// the new tree land in the old tree and are moved back after the swap
// (rescue); saves made after the swap, while the rescue runs, are newer and
// must never be replaced by the older ones it moves back. The step hook
// makes each interleaving happen: "swap" is before the swap (the save lands
// in the old tree), "rescue" is before the rescue looks at a file, "rescue
// move" between its look and its move (the window strace forced).
func TestRescueNewestWins(t *testing.T) {
	type save struct {
		at   string // the step
		n    int    // its nth call (1 is the first); 0: every call
		path string
		body string // "" removes the file
	}
	tests := []struct {
		name  string
		saves []save
		want  map[string]string // path: contents, "" for no file
	}{
		{"saved during the build", []save{{"swap", 1, "mine.txt", "during\n"}},
			map[string]string{"mine.txt": "during\n"}},
		{"saved again before the rescue", []save{{"swap", 1, "mine.txt", "during\n"}, {"rescue", 1, "mine.txt", "after\n"}},
			map[string]string{"mine.txt": "after\n"}},
		{"saved again between look and move", []save{{"swap", 1, "mine.txt", "during\n"}, {"rescue move", 1, "mine.txt", "after\n"}},
			map[string]string{"mine.txt": "after\n"}},
		{"saved twice in the window", []save{{"swap", 1, "mine.txt", "during\n"}, {"rescue move", 1, "mine.txt", "after 1\n"}, {"rescue move", 2, "mine.txt", "after 2\n"}},
			map[string]string{"mine.txt": "after 2\n"}},
		{"removed after the swap", []save{{"swap", 1, "mine.txt", "during\n"}, {"rescue", 1, "mine.txt", ""}},
			map[string]string{"mine.txt": ""}},
		{"created during the build, again after the swap", []save{{"swap", 1, "new.txt", "during\n"}, {"rescue move", 1, "new.txt", "after\n"}},
			map[string]string{"new.txt": "after\n"}},
		{"created during the build only", []save{{"swap", 1, "new/x.txt", "during\n"}},
			map[string]string{"new/x.txt": "during\n"}},
		{"saves that never stop: both kept", []save{{"swap", 1, "mine.txt", "during\n"}, {"rescue move", 0, "mine.txt", "after"}},
			map[string]string{"mine.txt": "after" + strconv.Itoa(rescueRounds-1) + "\n", "mine.txt" + keptSuffix: "after" + strconv.Itoa(rescueRounds) + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := setup(t, root)
			calls := map[string]int{}
			step := func(s string) {
				calls[s]++
				for _, sv := range tt.saves {
					if sv.at != s || sv.n != 0 && sv.n != calls[s] {
						continue
					}
					p := filepath.Join(dir, sv.path)
					body := sv.body
					if sv.n == 0 {
						body += strconv.Itoa(calls[s]) + "\n"
					}
					if body == "" {
						if err := os.Remove(p); err != nil {
							t.Error(err)
						}
						continue
					}
					// An editor's save: a new file renamed over the old one.
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Error(err)
					}
					if err := os.WriteFile(p+".tmp", []byte(body), 0o644); err != nil {
						t.Error(err)
					}
					if err := os.Rename(p+".tmp", p); err != nil {
						t.Error(err)
					}
				}
			}
			tree, stamp := trees("new")
			if _, err := Write(context.Background(), dir, tree, Options{Stamp: stamp, step: step}); err != nil {
				t.Fatal(err)
			}
			checkFiles(t, dir, tt.want)
			if got := read(t, filepath.Join(dir, "BUILD.bazel")); got != string(gen("hub new")) {
				t.Errorf("BUILD.bazel = %q", got)
			}
			only(t, root, "out")
		})
	}
}

// checkFiles holds dir's files to want: path to content, "" for no file.
func checkFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for p, w := range want {
		b, err := os.ReadFile(filepath.Join(dir, p))
		switch {
		case w == "" && !os.IsNotExist(err):
			t.Errorf("%s: %q, %v; want no file", p, b, err)
		case w != "" && string(b) != w:
			t.Errorf("%s = %q, %v; want %q", p, b, err, w)
		}
	}
}
