package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// The grammars of docs/manifests.md ("Grammars of untrusted text"), written
// here from the document and independently of the parser's own checks.
var (
	docName    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	docVersion = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)
	docHex64   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	docHex32   = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)
)

// docPackageName: [A-Za-z0-9][A-Za-z0-9_.-]*, at most 128 bytes.
func docPackageName(s string) bool { return len(s) <= 128 && docName.MatchString(s) }

// docRelativePath is the grammar of docs/manifests.md, written from the
// page: valid UTF-8, at most 4096 bytes; segments separated by single '/',
// each at most 255 bytes, none empty, none made only of dots; each of ASCII
// letters and digits, the ASCII punctuation - . _ + ~ @ = , and non-ASCII
// letters, digits and combining marks that are not default-ignorable (Cf,
// variation selectors, Other_Default_Ignorable_Code_Point); with a letter or
// digit, not starting with a mark, unchanged from NFC by NFKC; and a base
// name that keeps a letter or digit once its archive extension is removed.
func docRelativePath(p string) bool {
	if !utf8.ValidString(p) || len(p) > 4096 {
		return false
	}
	ignorable := func(r rune) bool {
		return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
	}
	letterOrDigit := func(r rune) bool {
		if r < utf8.RuneSelf {
			return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
		}
		return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !ignorable(r)
	}
	segs := strings.Split(p, "/")
	for _, seg := range segs {
		if seg == "" || len(seg) > 255 || strings.Trim(seg, ".") == "" {
			return false
		}
		if norm.NFKC.String(seg) != norm.NFC.String(seg) {
			return false
		}
		if !strings.ContainsFunc(seg, letterOrDigit) {
			return false
		}
		for i, r := range seg {
			switch {
			case letterOrDigit(r), r < utf8.RuneSelf && strings.ContainsRune("-._+~@=,", r):
			case r >= utf8.RuneSelf && unicode.IsMark(r) && !ignorable(r) && i > 0:
			default:
				return false
			}
		}
	}
	stem := segs[len(segs)-1]
	for _, ext := range []string{".tar.xz", ".tar.gz", ".tar.zst", ".tar.bz2", ".tgz", ".zip"} {
		if s, ok := strings.CutSuffix(stem, ext); ok {
			stem = s
			break
		}
	}
	return strings.ContainsFunc(stem, letterOrDigit)
}

// escapes reports whether a relative path leaves the folder it is joined to.
func escapes(p string) bool {
	const root = "/redist/root"
	j := filepath.Join(root, filepath.FromSlash(p))
	if j != root && !strings.HasPrefix(j, root+string(filepath.Separator)) {
		return true
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		return true
	}
	return slices.Contains(strings.Split(p, "/"), "..") || slices.Contains(strings.Split(filepath.ToSlash(filepath.FromSlash(p)), "/"), "..")
}

// serialise writes m's usable packages back in NVIDIA's shape.
func serialise(t *testing.T, m *Manifest) []byte {
	top := map[string]any{}
	if m.Date != "" {
		top["release_date"] = m.Date
	}
	for _, p := range m.Packages {
		if len(p.Problems) > 0 {
			continue
		}
		obj := map[string]any{"version": p.Version.String()}
		for k, v := range map[string]string{"name": p.DisplayName, "license": p.License, "license_path": p.LicensePath} {
			if v != "" {
				obj[k] = v
			}
		}
		if len(p.Variants) > 0 {
			obj["cuda_variant"] = p.Variants
		}
		for _, a := range p.Archives {
			ar := map[string]any{"relative_path": a.RelativePath, "sha256": a.SHA256, "size": json.Number(
				strings.TrimSpace(string(must(json.Marshal(a.Size)))))}
			if a.MD5 != "" {
				ar["md5"] = a.MD5
			}
			if a.Variant == "" {
				obj[a.Platform] = ar
				continue
			}
			vs, _ := obj[a.Platform].(map[string]any)
			if vs == nil {
				vs = map[string]any{}
				obj[a.Platform] = vs
			}
			vs[a.Variant] = ar
		}
		top[p.Name] = obj
	}
	data, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func usable(ps []Package) []Package {
	var out []Package
	for _, p := range ps {
		if len(p.Problems) == 0 {
			out = append(out, p)
		}
	}
	return out
}

// manifestSeeds adds real manifests: whole ones of the small products, and
// of every manifest each package alone with the release keys, so that the
// fuzzer starts from NVIDIA's shapes at a size it can mutate quickly.
func manifestSeeds(f *testing.F) {
	f.Add("cuda", "12.4.1", []byte(`{"release_date": "2024-04-09", "release_label": "12.4.1", "release_product": "cuda",
 "cuda_cccl": {"name": "CXX Core Compute Libraries", "license": "CUDA Toolkit", "license_path": "cuda_cccl/LICENSE.txt", "version": "12.4.127",
  "linux-x86_64": {"relative_path": "cuda_cccl/linux-x86_64/cuda_cccl-linux-x86_64-12.4.127-archive.tar.xz",
   "sha256": "3cc5c2ab5ff2d7b6b6a5ee0f9a4d3f1f5f4b8d3c3e2b8a4d0f5b8e6a7c9d1e2f", "md5": "0123456789abcdef0123456789abcdef", "size": "1157180"}}}`))
	f.Add("cudnn", "9.5.1", []byte(`{"release_date": "2024-10-22", "release_label": "9.5.1", "release_product": "cudnn",
 "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "version": "9.5.1.17", "cuda_variant": ["11", "12"],
  "linux-sbsa": {"cuda12": {"relative_path": "cudnn/linux-sbsa/cudnn-linux-sbsa-9.5.1.17_cuda12-archive.tar.xz",
   "sha256": "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789", "size": 12}},
  "linux-riscv64": {"relative_path": "x"}, "package_type": 3}}`))
	dir := shared.Find()
	if dir == "" {
		return
	}
	files, _ := filepath.Glob(filepath.Join(dir, "manifests", "*", "redistrib_*.json"))
	seen := map[string]bool{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		product := filepath.Base(filepath.Dir(file))
		release, _ := ReleaseFromFileName(file)
		if len(data) < 16<<10 {
			f.Add(product, release, data)
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(data, &top) != nil {
			continue
		}
		for k, v := range top {
			if isReleaseKey(k) {
				continue
			}
			one := map[string]json.RawMessage{k: v}
			for _, rk := range []string{"release_date", "release_label", "release_product"} {
				if rv, ok := top[rk]; ok {
					one[rk] = rv
				}
			}
			b, _ := json.MarshalIndent(one, "", "  ")
			// The same package in the next release differs only in its
			// version and hashes: one seed of each shape is enough.
			shape := product + "/" + k + "/" + string(regexp.MustCompile(`[0-9a-f]{32,}|[0-9.]+`).ReplaceAll(b, nil))
			if !seen[shape] {
				seen[shape] = true
				f.Add(product, release, b)
			}
		}
	}
}

// FuzzParse checks that whatever Parse accepts satisfies the documented
// grammars (package names, relative_path, versions, hashes), never escapes
// the redist folder, and re-serialises and re-parses to the same value.
func FuzzParse(f *testing.F) {
	manifestSeeds(f)
	f.Fuzz(func(t *testing.T, product, release string, data []byte) {
		m, err := Parse("f.json", product, release, data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T, expected *manifest.Error: %v", err, err)
			}
			return
		}
		if len(m.Packages) == 0 {
			t.Fatal("accepted with no packages")
		}
		if !slices.IsSortedFunc(m.Packages, func(a, b Package) int { return strings.Compare(a.Name, b.Name) }) {
			t.Fatal("packages not sorted by name")
		}
		for _, p := range m.Packages {
			if !docPackageName(p.Name) {
				t.Fatalf("package name %q is outside the grammar", p.Name)
			}
			if len(p.Problems) > 0 {
				if len(p.Archives) > 0 {
					t.Fatalf("unusable package %q has archives", p.Name)
				}
				continue
			}
			if !docVersion.MatchString(p.Version.String()) {
				t.Fatalf("package %q: version %q is outside the grammar", p.Name, p.Version)
			}
			if len(p.Archives) == 0 {
				t.Fatalf("usable package %q has no archive", p.Name)
			}
			for _, s := range append([]string{p.DisplayName, p.License, p.LicensePath}, p.Variants...) {
				if !utf8.ValidString(s) {
					t.Fatalf("package %q: string %q is not valid UTF-8", p.Name, s)
				}
			}
			for _, a := range p.Archives {
				if !docRelativePath(a.RelativePath) {
					t.Fatalf("package %q: relative_path %q is outside the grammar", p.Name, a.RelativePath)
				}
				if escapes(a.RelativePath) {
					t.Fatalf("package %q: relative_path %q escapes", p.Name, a.RelativePath)
				}
				if !docHex64.MatchString(a.SHA256) || (a.MD5 != "" && !docHex32.MatchString(a.MD5)) || a.Size < 0 {
					t.Fatalf("package %q: archive %+v outside the grammar", p.Name, a)
				}
				if !IsPlatformKey(a.Platform) {
					t.Fatalf("package %q: unknown platform %q kept", p.Name, a.Platform)
				}
				if _, ok := a.VariantVersion(); a.Variant != "" && !ok {
					t.Fatalf("package %q: unreadable variant %q kept", p.Name, a.Variant)
				}
			}
		}
		want := usable(m.Packages)
		if len(want) == 0 {
			return
		}
		out := serialise(t, m)
		m2, err := Parse("f.json", product, release, out)
		if err != nil {
			t.Fatalf("re-parsing the re-serialised manifest: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(m2.Packages, want) || m2.Date != m.Date || m2.Release != m.Release {
			t.Fatalf("round trip changed the manifest:\nbefore %+v\nafter  %+v\n%s", want, m2.Packages, out)
		}
		if len(m2.Warnings) > 0 {
			t.Fatalf("re-serialised manifest has warnings: %v\n%s", m2.Warnings, out)
		}
		if out2 := serialise(t, m2); !bytes.Equal(out, out2) {
			t.Fatalf("serialising is not stable:\n%s\n%s", out, out2)
		}
	})
}

// FuzzRelativePath checks the relative_path checks on their own: a path
// both accept satisfies the documented grammar and does not escape; a path
// that escapes is refused by the file-level check.
func FuzzRelativePath(f *testing.F) {
	for _, s := range []string{"cuda_cccl/linux-x86_64/cuda_cccl-linux-x86_64-12.4.127-archive.tar.xz",
		"a/b", ".", "./", "a//b", "%2e%2e/x", "a?b", "a#b", "a\tb", "a\x1bb", `a"b`, "$(id)", "a\xffb", "..",
		"../x", "a/../b", "/abs", `\x`, "C:x", "http://x/y", "a/.../b", "ä/日本/١٢", "a\u0301b", "a/b/", "a\u202eb",
		// Issue 24: base names whose default strip_prefix is "..", "."
		// or empty; look-alikes of '/' and '.'; invisible characters;
		// marks alone; compatibility forms; over-long paths.
		"a/...tar.xz", "a/..tar.xz", "a/.tar.xz", "a/...zip", "..tar.gz", "a/-.tar.xz",
		"a\uff0fb", "a\u2024b", "a\u2215b", "a\u2044b", "a\uff0eb",
		"a\u200bb", "a\u00adb", "a\ufe0fb", "a\U000e0041b", "a\u034fb", "a\u3164b", "\u3164/b", "a\u2060b",
		"\u0301\u0301/x", "a/\u0301b", "\uff41/b", "a/x\ufb01.tar.xz", "a\u00b2",
		strings.Repeat("a", 256) + "/b", strings.Repeat("a/", 2049) + "b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		// The byte loop for ASCII segments (issue 25) says what the rune
		// loop says, word for word.
		for _, seg := range strings.Split(p, "/") {
			if seg == "" || len(seg) > MaxPathSegment || strings.Trim(seg, ".") == "" || !utf8.ValidString(seg) {
				continue
			}
			if i := strings.IndexFunc(seg, func(r rune) bool { return r >= utf8.RuneSelf }); i < 0 {
				if fast, slow := fmt.Sprint(checkPathSegment(p, seg)), fmt.Sprint(checkUnicodeSegment(p, seg)); fast != slow {
					t.Fatalf("segment %q of %q: the ASCII loop says %s, the rune loop %s", seg, p, fast, slow)
				}
			}
		}
		hard := checkRelativePath(p)
		if hard == nil && escapes(p) {
			t.Fatalf("checkRelativePath(%q) accepts a path that escapes", p)
		}
		if hard != nil {
			return
		}
		if err := checkPathGrammar(p); err == nil && checkArchiveName(p) == nil && !docRelativePath(p) {
			t.Fatalf("checkPathGrammar(%q) accepts a path outside the documented grammar", p)
		}
	})
}
