package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxNameLen bounds a package name.
const MaxNameLen = 128

// CheckPackageName checks a package name (a top-level key of a manifest)
// against the grammar every emitter can use as a target, repository and file
// name in Bazel and Buck2: an ASCII letter or digit, then ASCII letters,
// digits, '_', '-' and '.', at most MaxNameLen in all.
func CheckPackageName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("the name is empty")
	case len(name) > MaxNameLen:
		return fmt.Errorf("the name is %d bytes long, over %d", len(name), MaxNameLen)
	case !isAlnum(name[0]):
		return fmt.Errorf("expected a name that starts with an ASCII letter or digit")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '_' && c != '-' && c != '.' {
			return fmt.Errorf("character %q is not allowed: expected ASCII letters, digits, '_', '-' and '.'", rune(c))
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// pathPunct is the punctuation a relative_path may hold besides '/'.
const pathPunct = "-._+~@=,"

// isPathPunct reports whether c is in pathPunct, without a search of it per
// byte (TestPathPunct holds the two together).
func isPathPunct(c byte) bool {
	switch c {
	case '-', '.', '_', '+', '~', '@', '=', ',':
		return true
	}
	return false
}

// Limits on a relative_path: NAME_MAX and PATH_MAX of Linux, the tightest
// of the file systems and tools the path reaches (a cache file, a mirror's
// URL, Bazel's external repository folder). NVIDIA's longest is under 120
// bytes; a longer path is not a name but a payload (issue 24 had 1 MB).
const (
	MaxPathSegment = 255
	MaxPath        = 4096
)

// ArchiveExts are the archive extensions whose removal from a
// relative_path's base name gives the archive's top folder, its default
// strip_prefix (NVIDIA's archives unpack to <name>/).
// (A wheel keeps its .whl: its files are at its root, and a product that
// ships wheels says their strip_prefix.)
var archiveExts = []string{".tar.xz", ".tar.gz", ".tar.zst", ".tar.bz2", ".tgz", ".zip"}

// TrimArchiveExt removes the first of .tar.xz, .tar.gz, .tar.zst, .tar.bz2,
// .tgz or .zip that ends name.
func TrimArchiveExt(name string) string {
	for _, ext := range archiveExts {
		if s, ok := strings.CutSuffix(name, ext); ok {
			return s
		}
	}
	return name
}

// checkPathGrammar checks what checkRelativePath leaves (escapes refuse the
// file there). The grammar, with its reasons, is in docs/manifests.md
// ("Grammars of untrusted text"); in short, a relative_path is:
//
//   - valid UTF-8, at most MaxPath bytes, of segments separated by single
//     '/', each at most MaxPathSegment bytes, none empty, none made only of
//     dots;
//   - each segment of ASCII letters and digits, the ASCII punctuation in
//     pathPunct, and non-ASCII letters, digits and combining marks, with at
//     least one letter or digit (a base character) and not starting with a
//     combining mark: a mark alone draws onto its neighbour, the '/';
//   - without default-ignorable characters (format characters such as
//     zero-width spaces, soft hyphens, bidirectional controls and tag
//     characters; variation selectors; Hangul fillers; the combining
//     grapheme joiner), which print as nothing;
//   - without compatibility characters (its NFKC and NFC forms agree): a
//     fullwidth 'ａ', a ligature 'ﬁ' or a superscript '²' look like
//     another path's letters;
//
// checkArchiveName adds a rule for relative_path alone.
//
// So no percent escape, '?', '#', space, tab, escape, quote or '$' reaches a
// URL, a label or a shell, and no look-alike of '/' or '.' (they are
// punctuation, and only ASCII punctuation is allowed).
func checkPathGrammar(rel string) error {
	if !utf8.ValidString(rel) {
		return fmt.Errorf("relative_path %s is not valid UTF-8", quotePath(rel))
	}
	if len(rel) > MaxPath {
		return fmt.Errorf("relative_path %s is %d bytes long, over the %d-byte limit for a path", quotePath(rel), len(rel), MaxPath)
	}
	// Segment by segment without strings.Split: every archive of every
	// manifest passes here on each load, and the slice of segments was
	// most of the check's allocations (issue 25).
	for rest := rel; ; {
		seg, tail, more := strings.Cut(rest, "/")
		if err := checkPathSegment(rel, seg); err != nil {
			return err
		}
		if !more {
			return nil
		}
		rest = tail
	}
}

// checkPathSegment checks one segment of rel for checkPathGrammar.
func checkPathSegment(rel, seg string) error {
	if seg == "" {
		return fmt.Errorf("relative_path %s has an empty segment (a leading, trailing or doubled '/'): expected a normalised path", quotePath(rel))
	}
	if len(seg) > MaxPathSegment {
		return fmt.Errorf("relative_path %s has a segment of %d bytes, over the %d-byte limit for a file name", quotePath(rel), len(seg), MaxPathSegment)
	}
	if strings.Trim(seg, ".") == "" {
		return fmt.Errorf("relative_path %s has a segment %q made only of dots: expected a normalised path", quotePath(rel), seg)
	}
	// NVIDIA's paths are ASCII: byte by byte, with the same rules and the
	// same first offending character as the rune loop below, which only a
	// segment with a non-ASCII byte reaches. Such a segment has nothing
	// for the Unicode tables or NFKC to find (issue 25: they were most of
	// the check's time).
	base := false
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case c >= utf8.RuneSelf:
			return checkUnicodeSegment(rel, seg)
		case isAlnum(c):
			base = true
		case isPathPunct(c):
		default:
			return fmt.Errorf("relative_path %s holds %s: expected letters, digits and %s", quotePath(rel), describeRune(rune(c)), pathPunct)
		}
	}
	if !base {
		return fmt.Errorf("relative_path %s has a segment %q with no letter or digit: expected a name", quotePath(rel), seg)
	}
	return nil
}

// checkUnicodeSegment is checkPathSegment's character rules for a segment
// holding a non-ASCII byte.
func checkUnicodeSegment(rel, seg string) error {
	base := false
	for i, r := range seg {
		switch {
		case r < utf8.RuneSelf && isAlnum(byte(r)):
			base = true
			continue
		case r < utf8.RuneSelf && strings.ContainsRune(pathPunct, r):
			continue
		case r >= utf8.RuneSelf && isInvisible(r) && !unicode.Is(unicode.Cf, r):
			// Cf is neither letter, digit nor mark: the default
			// case names it a format character.
			return fmt.Errorf("relative_path %s holds the invisible character %U: expected letters, digits and %s that print", quotePath(rel), r, pathPunct)
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			base = true
			continue
		case r >= utf8.RuneSelf && unicode.IsMark(r):
			if i == 0 {
				return fmt.Errorf("relative_path %s has a segment that starts with the combining mark %U: expected a letter or digit for it to mark", quotePath(rel), r)
			}
			continue
		}
		return fmt.Errorf("relative_path %s holds %s: expected letters, digits and %s", quotePath(rel), describeRune(r), pathPunct)
	}
	if !base {
		return fmt.Errorf("relative_path %s has a segment %q with no letter or digit: expected a name", quotePath(rel), seg)
	}
	if norm.NFKC.String(seg) != norm.NFC.String(seg) {
		return fmt.Errorf("relative_path %s has a segment %q holding compatibility characters (NFKC: %q): expected the plain letters and digits", quotePath(rel), seg, norm.NFKC.String(seg))
	}
	return nil
}

// checkArchiveName checks a relative_path's base name, less its archive
// extension, for a letter or digit: it is the archive's default
// strip_prefix, which reaches generated files and Bazel, so "...tar.xz"
// would give "..", "..tar.xz" "." and ".tar.xz" "" (issue 24).
func checkArchiveName(rel string) error {
	last := rel[strings.LastIndexByte(rel, '/')+1:]
	if stem := TrimArchiveExt(last); !hasBase(stem) {
		return fmt.Errorf("relative_path %s has the base name %q, which gives the archive's top folder (its default strip_prefix) %q: expected a name with a letter or digit before the extension", quotePath(rel), last, stem)
	}
	return nil
}

// isInvisible reports the default-ignorable code points that a segment's
// other rules let through or that print as nothing: format characters (Cf:
// zero-width space and joiners, soft hyphen, bidirectional controls, tag
// characters), variation selectors, and the rest of Unicode's
// Other_Default_Ignorable_Code_Point (Hangul fillers, which are letters, and
// the combining grapheme joiner, a mark).
func isInvisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// hasBase reports whether s holds a letter or digit.
func hasBase(s string) bool {
	for _, r := range s {
		if r < utf8.RuneSelf && isAlnum(byte(r)) || r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) && !isInvisible(r) {
			return true
		}
	}
	return false
}

// quotePath quotes a path for a message, cut to its first 96 bytes (at a
// rune boundary) and its length when longer: a megabyte path is not to be
// printed whole.
func quotePath(p string) string {
	const keep = 96
	if len(p) <= keep {
		return strconv.Quote(p)
	}
	n := keep
	for n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(p[:n]), len(p))
}

func describeRune(r rune) string {
	switch r {
	case '%':
		return "'%' (a percent escape?)"
	case ' ':
		return "a space"
	}
	if unicode.IsPrint(r) {
		return fmt.Sprintf("%q", r)
	}
	return fmt.Sprintf("the control or format character %U", r)
}

// textProblem is a duplicate key or a string that is not valid UTF-8, found
// by scanText.
type textProblem struct {
	keys []string // JSON path of the key (or the value's key)
	off  int      // where in the text
	msg  string
}

// manyKeys is where an object's keys are looked up in a map instead of a
// list: below it, the list is faster and allocates nothing.
const manyKeys = 32

// scanText walks the text of a document that decoded as JSON and finds what
// decoding hides: a key given twice in one object (the decoder keeps the
// last) and strings that are not valid UTF-8 (the decoder replaces them with
// U+FFFD), raw or through escaped lone surrogates.
func scanText(t *text) []textProblem {
	data := t.data
	// Manifests are read on every run, so the scan allocates only for
	// what it reports: keys are kept as slices of data (decoded only when
	// escaped), an array's index and a value's text are looked at only when
	// something is wrong, and an object's keys are few enough to search.
	type keyAt struct {
		key []byte
		off int
	}
	type frame struct {
		obj       bool
		expectKey bool
		key       []byte
		idx       int
		seen      []keyAt
		// byKey replaces the search of seen once an object has many
		// keys: a lock's or a large manifest's top level has tens of
		// thousands, and comparing each with every earlier one took
		// minutes (issue 24).
		byKey map[string]int
	}
	var stack []frame
	var probs []textProblem
	// Two passes over the whole text (each vectorised) spare most strings
	// their own: in a text with no backslash no string has an escape, and
	// in valid UTF-8 every string is valid (NVIDIA's manifests are plain
	// ASCII without escapes; issue 25).
	escapes := bytes.IndexByte(data, '\\') >= 0
	valid := utf8.Valid(data)
	path := func() []string {
		keys := make([]string, len(stack))
		for i, f := range stack {
			if f.obj {
				keys[i] = string(f.key)
			} else {
				keys[i] = "[" + strconv.Itoa(f.idx) + "]"
			}
		}
		return keys
	}
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			// A popped frame's key list is reused by the next object at
			// its depth.
			var seen []keyAt
			if n := len(stack); n < cap(stack) {
				seen = stack[:n+1][n].seen[:0]
			}
			stack = append(stack, frame{obj: data[i] == '{', expectKey: data[i] == '{', seen: seen})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				f := &stack[n-1]
				if f.obj {
					f.expectKey = true
				} else {
					f.idx++
				}
			}
		case '"':
			start := i
			i = closingQuote(data, start)
			raw := data[start+1 : i]
			n := len(stack)
			isKey := n > 0 && stack[n-1].obj && stack[n-1].expectKey
			plain := (!escapes || bytes.IndexByte(raw, '\\') < 0) && (valid || utf8.Valid(raw))
			if !isKey && plain {
				continue
			}
			key, bad := raw, false
			if !plain {
				var s string
				s, bad = decodeString(raw)
				key = []byte(s)
			}
			if !isKey {
				if bad {
					probs = append(probs, textProblem{path(), start, fmt.Sprintf("string %s is not valid UTF-8", truncate(strconv.Quote(string(key)), 60))})
				}
				continue
			}
			f := &stack[n-1]
			f.key, f.expectKey = key, false
			if bad {
				probs = append(probs, textProblem{path(), start, fmt.Sprintf("key %q is not valid UTF-8", key)})
			}
			first := -1
			if f.byKey != nil {
				if off, ok := f.byKey[string(key)]; ok {
					first = off
				}
			} else {
				for _, k := range f.seen {
					if bytes.Equal(k.key, key) {
						first = k.off
						break
					}
				}
			}
			if first >= 0 {
				l1, c1 := t.at(first)
				l2, c2 := t.at(start)
				probs = append(probs, textProblem{path(), start, fmt.Sprintf("duplicate key %q at %d:%d, first at %d:%d: expected each key once", key, l2, c2, l1, c1)})
			} else if f.byKey != nil {
				f.byKey[string(key)] = start
			} else if f.seen = append(f.seen, keyAt{key, start}); len(f.seen) > manyKeys {
				f.byKey = make(map[string]int, 2*len(f.seen))
				for _, k := range f.seen {
					f.byKey[string(k.key)] = k.off
				}
			}
		}
	}
	return probs
}

// closingQuote returns the offset of the quote that ends the string whose
// opening quote is at data[start], or len(data) when none does. A quote
// ends the string when an even number of backslashes stand before it (each
// pair is an escaped backslash). The quotes are found with bytes.IndexByte
// rather than byte by byte: strings are most of a manifest, and this scan
// runs on every load (issue 25).
func closingQuote(data []byte, start int) int {
	for i := start + 1; ; {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return len(data)
		}
		i += j
		k := i
		for data[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			return i
		}
		i++
	}
}

// TextProblem is a key given twice in one object, or a string that is not
// valid UTF-8, in a JSON text (see CheckText).
type TextProblem struct {
	Path      string // JSON path of the key, $.a.b
	Line, Col int
	Msg       string
}

// CheckText finds, in a text that decodes as JSON, what decoding hides:
// duplicate keys (encoding/json keeps the last) and strings that are not
// valid UTF-8 (it replaces them with U+FFFD). For other JSON files that must
// be read strictly, such as the lock file.
func CheckText(data []byte) []TextProblem {
	var out []TextProblem
	t := &text{data: data}
	for _, pr := range scanText(t) {
		line, col := t.at(pr.off)
		out = append(out, TextProblem{Path: jsonPath(pr.keys), Line: line, Col: col, Msg: pr.msg})
	}
	return out
}

// decodeString decodes a JSON string's raw text, reporting whether it was
// not valid UTF-8 (invalid bytes, or an escaped lone surrogate).
func decodeString(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '\\') < 0 {
		if utf8.Valid(raw) {
			return string(raw), false
		}
		return strings.ToValidUTF8(string(raw), "\uFFFD"), true
	}
	var s string
	if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
		return string(raw), true
	}
	if !utf8.Valid(raw) {
		return s, true
	}
	// U+FFFD in the result that the text did not ask for is a substitution.
	asked := bytes.Count(raw, []byte("\uFFFD")) + bytes.Count(bytes.ToLower(raw), []byte(`\ufffd`))
	return s, strings.Count(s, "\uFFFD") > asked
}
