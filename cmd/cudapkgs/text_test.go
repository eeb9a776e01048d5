package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// query --format text prints control characters from untrusted text (here a
// reason set by an override; the same path serves manifests' and plugins'
// text) escaped, never raw.
func TestQueryTextEscapesControlCharacters(t *testing.T) {
	ws := t.TempDir()
	star := `override("cuda_cccl", lambda pkg: {"unusable": {"linux-x86_64": "evil \x1b]0;pwned\x07 \x1b[31mred\tcolumn \u202eevil"}})` + "\n"
	if err := os.WriteFile(filepath.Join(ws, "cudapkgs.star"), []byte(star), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "query", "--manifests", shared.Manifests(t), "--workspace", ws, "--cuda", "12.4.1", "--platform", "linux-x86_64", "--package", "cuda_cccl")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "red\tcolumn"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("output holds %q raw:\n%s", bad, stdout)
		}
	}
	wantOutput(t, "stdout", stdout, `evil \x1b]0;pwned\a \x1b[31mred\tcolumn \u202eevil`)
}

func TestEscapeText(t *testing.T) {
	for in, want := range map[string]string{
		"plain, ünïcode": "plain, ünïcode",
		"a\tb\x1bc\x00":  `a\tb\x1bc\x00`,
		"bad \xff utf8":  `bad \xff utf8`,
		"line\nnext\r":   `line\nnext\r`,
		"\u2067isolate":  `\u2067isolate`,
	} {
		if got := escapeText(in, false); got != want {
			t.Errorf("escapeText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := escapeText("a\nb\x1b", true); got != "a\nb\\x1b" {
		t.Errorf("keepNewlines: %q", got)
	}
}
