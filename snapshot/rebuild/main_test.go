package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

const widget = `{"release_date": "2026-01-01", "libwidget": {"name": "w", "license": "x", "version": "1.0.0.1", "linux-x86_64": {"relative_path": "libwidget/w.tar.xz", "sha256": "0000000000000000000000000000000000000000000000000000000000000000", "md5": "00000000000000000000000000000000", "size": "1"}}}`

// rebuild writes the four files; the same folder and date give the same
// bytes; the result opens and checks against its own lock; SOURCES.md keeps
// the rows of the folder's SOURCES.md for the files taken.
func TestRebuild(t *testing.T) {
	from := t.TempDir()
	write(t, filepath.Join(from, "widget/redistrib_1.0.0.json"), widget)
	write(t, filepath.Join(from, "widget/redistrib_1.1.0.json"), widget)
	write(t, filepath.Join(from, "widget/features/feature_1.0.0.json"), "{}")
	// A folder of no known product is left out, and the summary names it.
	write(t, filepath.Join(from, "gadget/redistrib_2.0.0.json"), widget)
	write(t, filepath.Join(from, "SOURCES.md"), "# SOURCES\n\nHow it was got.\n\n## Copied\n\nFrom somewhere.\n\n| file | sha256 |\n|---|---|\n| widget/redistrib_1.0.0.json | abc |\n| other/redistrib_1.0.json | def |\n\n## Unused\n\n| file | x |\n|---|---|\n| other/redistrib_2.0.json | y |\n")
	var outs [2]string
	for i := range outs {
		outs[i] = t.TempDir()
		sum, err := rebuild(from, outs[i], "2026-12-02", []string{"widget"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sum, "2 manifests, ") || !strings.HasSuffix(sum, "; left out (no built-in product): gadget") {
			t.Errorf("summary %q", sum)
		}
	}
	for _, f := range []string{snapshot.ArchiveFile, snapshot.LockFile, snapshot.InfoFile, snapshot.SourcesFile} {
		a, _ := os.ReadFile(filepath.Join(outs[0], f))
		b, _ := os.ReadFile(filepath.Join(outs[1], f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: two rebuilds differ (or it is empty)", f)
		}
	}
	archive, _ := os.ReadFile(filepath.Join(outs[0], snapshot.ArchiveFile))
	lock, err := source.ReadLock(filepath.Join(outs[0], snapshot.LockFile))
	if err != nil {
		t.Fatal(err)
	}
	infoData, _ := os.ReadFile(filepath.Join(outs[0], snapshot.InfoFile))
	info, err := snapshot.ParseInfo(infoData)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.Open(archive, lock, info); err != nil {
		t.Errorf("the rebuilt snapshot does not open: %v", err)
	}
	src, _ := os.ReadFile(filepath.Join(outs[0], snapshot.SourcesFile))
	for _, want := range []string{"How it was got.", "## Copied", "From somewhere.", "| widget/redistrib_1.0.0.json | abc |", "## Without a row", "| widget/redistrib_1.1.0.json | "} {
		if !strings.Contains(string(src), want) {
			t.Errorf("SOURCES.md lacks %q:\n%s", want, src)
		}
	}
	for _, not := range []string{"other/redistrib", "## Unused", "feature_1.0.0", "gadget"} {
		if strings.Contains(string(src), not) {
			t.Errorf("SOURCES.md has %q:\n%s", not, src)
		}
	}
}

// A manifest cudapkgs would refuse stops the rebuild, naming it; so does a
// bad date or an empty folder.
func TestRebuildRefuses(t *testing.T) {
	from := t.TempDir()
	write(t, filepath.Join(from, "widget/redistrib_1.0.0.json"), `{"libwidget": {"version": "1", "linux-x86_64": {"relative_path": "/abs", "sha256": "x"}}}`)
	if _, err := rebuild(from, t.TempDir(), "2026-12-02", []string{"widget"}); err == nil || !strings.Contains(err.Error(), "widget/redistrib_1.0.0.json") {
		t.Errorf("bad manifest: %v", err)
	}
	if _, err := rebuild(from, t.TempDir(), "yesterday", []string{"widget"}); err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
		t.Errorf("bad date: %v", err)
	}
	if _, err := rebuild(t.TempDir(), t.TempDir(), "2026-12-02", []string{"widget"}); err == nil || !strings.Contains(err.Error(), "no manifests found") {
		t.Errorf("empty: %v", err)
	}
}

// The default products are the built-in plugins', each once, sorted, the
// toolkit among them.
func TestBuiltinProducts(t *testing.T) {
	var want []string
	for _, f := range builtin.Fixers() {
		want = append(want, f.Describe().Products...)
	}
	slices.Sort(want)
	if got := builtinProducts(); !slices.Equal(got, want) || !slices.Contains(got, "cuda") {
		t.Errorf("builtinProducts() = %s, want %s", got, want)
	}
}
