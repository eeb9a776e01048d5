package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// checkPathGrammar checks what checkRelativePath leaves (escapes refuse the
// file there): a relative_path is a normalised relative path, segments
// separated by single '/', none empty and none made only of dots, of letters
// and digits (any script) and the ASCII punctuation in pathPunct. So no
// percent escape, '?', '#', space, tab, escape, quote or '$' reaches a URL,
// a label or a shell.
func checkPathGrammar(rel string) error {
	if !utf8.ValidString(rel) {
		return fmt.Errorf("relative_path %q is not valid UTF-8", rel)
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" {
			return fmt.Errorf("relative_path %q has an empty segment (a leading, trailing or doubled '/'): expected a normalised path", rel)
		}
		if strings.Trim(seg, ".") == "" {
			return fmt.Errorf("relative_path %q has a segment %q made only of dots: expected a normalised path", rel, seg)
		}
		for _, r := range seg {
			if r < utf8.RuneSelf && (isAlnum(byte(r)) || strings.ContainsRune(pathPunct, r)) {
				continue
			}
			if r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
				continue
			}
			return fmt.Errorf("relative_path %q holds %s: expected letters, digits and %s", rel, describeRune(r), pathPunct)
		}
	}
	return nil
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
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			raw := data[start+1 : min(i, len(data))]
			n := len(stack)
			isKey := n > 0 && stack[n-1].obj && stack[n-1].expectKey
			plain := bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
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
