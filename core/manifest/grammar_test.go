package manifest

import (
	"strings"
	"testing"
)

const sha = "e1636f27a142d24e73dfd831c54bbf5575b498fd5900648d7372fae46f824fdf"

// manifestWith is a manifest holding a good package and the given entries.
func manifestWith(entries string) []byte {
	return []byte(`{"release_label": "12.4.1",
"good": {"version": "1.0", "linux-x86_64": {"relative_path": "good/a.tar.xz", "sha256": "` + sha + `", "size": "1"}},
` + entries + `}`)
}

func withPath(rel string) []byte {
	return manifestWith(`"p": {"version": "1.0", "linux-x86_64": {"relative_path": "` + rel + `", "sha256": "` + sha + `", "size": "1"}}`)
}

// Every relative_path outside the grammar marks its package unusable with
// the reason; the rest of the manifest is used.
func TestRelativePathGrammar(t *testing.T) {
	for _, tt := range []struct{ rel, want string }{
		{".", `segment "." made only of dots`},
		{"./a.tar.xz", `segment "." made only of dots`},
		{"a/./b.tar.xz", `segment "." made only of dots`},
		{"a/.../b.tar.xz", `segment "..." made only of dots`},
		{"a//b.tar.xz", "empty segment"},
		{"a/b/", "empty segment"},
		{"%2e%2e/x", "'%' (a percent escape?)"},
		{"a?b=1", `holds '?'`},
		{"a#frag", `holds '#'`},
		{`a\tb`, "control or format character U+0009"},
		{`a\u001b[31mb`, "control or format character U+001B"},
		{`a\"b`, `holds '"'`},
		{"a'b", `holds '\''`},
		{"$(id)", `holds '$'`},
		{"a b", "holds a space"},
		{`a\u202eb`, "control or format character U+202E"},
		{"a\xffb", "is not valid UTF-8"},
		{`a\ud800b`, "is not valid UTF-8"},
		// Issue 24: the base name less its extension is the archive's
		// default strip_prefix, which reached generated.bzl as "..".
		{"a/...tar.xz", `base name "...tar.xz", which gives the archive's top folder (its default strip_prefix) ".."`},
		{"a/..tar.xz", `(its default strip_prefix) "."`},
		{"a/.tar.xz", `(its default strip_prefix) ""`},
		{"a/...zip", `(its default strip_prefix) ".."`},
		{"a/-_.tar.gz", `(its default strip_prefix) "-_"`},
		// Look-alikes of '/' and '.' are punctuation, not ASCII.
		{"a\uff0fb.tar.xz", `holds '／'`},
		{"a\u2024b.tar.xz", `holds '․'`},
		{"a\u2215b.tar.xz", `holds '∕'`},
		// Invisible characters.
		{`a\u200bb.tar.xz`, "control or format character U+200B"},
		{`a\u00adb.tar.xz`, "control or format character U+00AD"},
		{`a\udb40\udc41b.tar.xz`, "control or format character U+E0041"},
		{`a\ufe0fb.tar.xz`, "invisible character U+FE0F"},
		{`a\u034fb.tar.xz`, "invisible character U+034F"},
		{`a\u3164b.tar.xz`, "invisible character U+3164"},
		// Combining marks with nothing to mark.
		{`\u0301\u0301/x.tar.xz`, "starts with the combining mark U+0301"},
		{`a/\u0301b.tar.xz`, "starts with the combining mark U+0301"},
		{"a/-_/b.tar.xz", `segment "-_" with no letter or digit`},
		// Compatibility characters look like other letters.
		{"\uff41/b.tar.xz", `segment "ａ" holding compatibility characters (NFKC: "a")`},
		{"a/x\ufb01.tar.xz", `compatibility characters (NFKC: "xfi.tar.xz")`},
		// Length: a segment over NAME_MAX, a path over PATH_MAX, printed
		// cut.
		{strings.Repeat("a", 256) + "/b.tar.xz", "has a segment of 256 bytes, over the 255-byte limit for a file name"},
		{strings.Repeat("a/", 2048) + "b.tar.xz", "is 4104 bytes long, over the 4096-byte limit for a path"},
		{strings.Repeat("a/", 1<<19) + "b.tar.xz", `"a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/"… (1048584 bytes) is 1048584 bytes long`},
	} {
		m, err := Parse("redistrib_12.4.1.json", "cuda", "12.4.1", withPath(tt.rel))
		if err != nil {
			t.Errorf("%q: refused the whole file: %v", tt.rel, err)
			continue
		}
		p, _ := m.Package("p")
		if p == nil || len(p.Archives) != 0 || len(p.Problems) != 1 || !strings.Contains(p.Problems[0], tt.want) {
			t.Errorf("%q: package = %+v, want unusable with %q", tt.rel, p, tt.want)
		}
		if g, _ := m.Package("good"); g == nil || len(g.Archives) != 1 {
			t.Errorf("%q: the good package was not kept", tt.rel)
		}
		if len(m.Warnings) == 0 || !strings.Contains(m.Warnings[len(m.Warnings)-1].Msg, `package "p" cannot be used`) {
			t.Errorf("%q: warnings %v", tt.rel, m.Warnings)
		}
	}
	for _, ok := range []string{"a/b-1.2.3_x86+cuda12~rc@x=1,2.tar.xz", "libcublas/linux-sbsa/libcublas-linux-sbsa-12.4.5.8-archive.tar.xz", "ä/ü.tar.xz",
		"e\u0301/a\u0301.tar.xz", "日本/१२/x.tar.xz", strings.Repeat("a", 255) + "/b.tar.xz", "a/x.whl", "a/.x.tar.xz"} {
		m, err := Parse("redistrib_12.4.1.json", "cuda", "12.4.1", withPath(ok))
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := m.Package("p"); len(p.Problems) != 0 || p.Archives[0].RelativePath != ok {
			t.Errorf("%q refused: %v", ok, p.Problems)
		}
	}
}

// A package name outside the grammar is dropped with a warning: it would
// become a target and repository name.
func TestPackageNameGrammar(t *testing.T) {
	for _, name := range []string{``, `../../etc/x \" $(id)`, `a b`, `-x`, `.x`, `a/b`, `a:b`, `a\u001bb`, `é`, strings.Repeat("a", 129)} {
		m, err := Parse("redistrib_12.4.1.json", "cuda", "12.4.1", manifestWith(`"`+name+`": {"version": "1.0", "linux-x86_64": {"relative_path": "x/a.tar.xz", "sha256": "`+sha+`", "size": "1"}}`))
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		if len(m.Packages) != 1 || m.Packages[0].Name != "good" {
			t.Errorf("%q: packages %+v, want only good", name, m.Packages)
		}
		if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0].Msg, "dropped") {
			t.Errorf("%q: warnings %v", name, m.Warnings)
		}
	}
	for _, name := range []string{"libcublas", "cuda_nvcc", "nsight-compute", "a.b", "9lib", "LibX"} {
		if err := CheckPackageName(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A key given twice is refused with both positions: in a package, the
// package is unusable; at the top level (release_label), the file.
func TestDuplicateKeys(t *testing.T) {
	src := "{\"release_label\": \"12.4.1\",\n" +
		"\"good\": {\"version\": \"1.0\", \"linux-x86_64\": {\"relative_path\": \"good/a.tar.xz\", \"sha256\": \"" + sha + "\", \"size\": \"1\"}},\n" +
		"\"p\": {\"version\": \"1.0\", \"linux-x86_64\": {\"relative_path\": \"p/a.tar.xz\",\n" +
		"  \"sha256\": \"" + sha + "\",\n" +
		"  \"sha256\": \"" + strings.Repeat("0", 64) + "\", \"size\": \"1\"}}}"
	m, err := Parse("redistrib_12.4.1.json", "cuda", "12.4.1", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.Package("p")
	want := `$.p["linux-x86_64"].sha256: duplicate key "sha256" at 5:3, first at 4:3: expected each key once`
	if p == nil || len(p.Problems) != 1 || p.Problems[0] != want {
		t.Errorf("duplicate sha256: %+v\nwant %s", p, want)
	}
	if g, _ := m.Package("good"); g == nil || len(g.Archives) != 1 {
		t.Error("the good package was not kept")
	}

	// Two entries for one package.
	m, err = Parse("redistrib_12.4.1.json", "cuda", "12.4.1", manifestWith(`"good": {"version": "2.0", "linux-x86_64": {"relative_path": "g/b.tar.xz", "sha256": "`+sha+`", "size": "1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := m.Package("good"); g == nil || len(g.Problems) != 1 || !strings.Contains(g.Problems[0], `$.good: duplicate key "good" at 3:1, first at 2:1`) {
		t.Errorf("duplicate package: %+v", g)
	}

	_, err = Parse("redistrib_12.4.1.json", "cuda", "12.4.1", []byte("{\"release_label\": \"12.4.1\",\n\"release_label\": \"12.4.2\", \"p\": {}}"))
	if err == nil || err.Error() != `redistrib_12.4.1.json:2:1: $.release_label: duplicate key "release_label" at 2:1, first at 1:2: expected each key once` {
		t.Errorf("duplicate release_label: %v", err)
	}
	// Escapes do not hide a duplicate.
	_, err = Parse("redistrib_12.4.1.json", "cuda", "12.4.1", []byte(`{"release_label": "12.4.1", "release_l\u0061bel": "12.4.1", "p": {}}`))
	if err == nil || !strings.Contains(err.Error(), `duplicate key "release_label"`) {
		t.Errorf("escaped duplicate: %v", err)
	}
}

// What held before the grammars and must keep holding: deep nesting, a BOM,
// a NUL and trailing data are refused with their position.
func TestHostileJSONStillRefused(t *testing.T) {
	deep := `{"p": ` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`
	for name, tt := range map[string]struct{ src, want string }{
		"100k deep": {deep, "redistrib_12.4.1.json:1:"},
		"BOM":       {"\xef\xbb\xbf" + good, "redistrib_12.4.1.json:1:2: invalid JSON"},
		"NUL":       {strings.Replace(good, `"name"`, "\"na\x00me\"", 1), "redistrib_12.4.1.json:6:"},
		"trailing":  {good + `{}`, "unexpected data after the top-level object"},
	} {
		_, err := Parse("redistrib_12.4.1.json", "cuda", "12.4.1", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", name, err, tt.want)
		}
	}
}

// isPathPunct, which the ASCII path of the grammar uses, is pathPunct,
// which the Unicode path and the messages use, for every byte.
func TestPathPunct(t *testing.T) {
	for c := range 256 {
		if got, want := isPathPunct(byte(c)), c < 0x80 && strings.IndexByte(pathPunct, byte(c)) >= 0; got != want {
			t.Errorf("isPathPunct(%q) = %v, want %v", rune(c), got, want)
		}
	}
}

// closingQuote finds the same end as a walk byte by byte that skips the
// byte after each backslash, for every text of up to 8 bytes of '"', '\'
// and 'a' after an opening quote.
func TestClosingQuote(t *testing.T) {
	walk := func(data []byte) int {
		i := 1
		for ; i < len(data) && data[i] != '"'; i++ {
			if data[i] == '\\' {
				i++
			}
		}
		return min(i, len(data))
	}
	var texts func(prefix string, n int)
	texts = func(prefix string, n int) {
		data := []byte(prefix)
		if got, want := closingQuote(data, 0), walk(data); got != want {
			t.Errorf("closingQuote(%q) = %d, want %d", prefix, got, want)
		}
		if n == 0 {
			return
		}
		for _, c := range []string{`"`, `\`, "a"} {
			texts(prefix+c, n-1)
		}
	}
	texts(`"`, 8)
}

// The path checks run on every archive of every load: an ASCII path costs
// them no allocation (a strings.Split per check before issue 25).
func TestPathChecksAllocateNothing(t *testing.T) {
	for _, rel := range []string{
		"cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.4.131-archive.tar.xz",
		"libcublas/windows-x86_64/libcublas-windows-x86_64-12.4.5.8-archive.zip",
		"a",
	} {
		allocs := testing.AllocsPerRun(50, func() {
			if checkRelativePath(rel) != nil || checkPathGrammar(rel) != nil || checkArchiveName(rel) != nil {
				t.Fatalf("%q refused", rel)
			}
		})
		if allocs != 0 {
			t.Errorf("%q: %v allocations, want 0", rel, allocs)
		}
	}
}
