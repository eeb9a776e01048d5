package manifest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// jsonPath renders keys as $.a["b-c"].d, the form jq and JSONPath users read.
func jsonPath(keys []string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, k := range keys {
		switch {
		case strings.HasPrefix(k, "[") && strings.HasSuffix(k, "]"):
			b.WriteString(k)
		case isIdent(k):
			b.WriteString(".")
			b.WriteString(k)
		default:
			b.WriteString("[")
			b.WriteString(strconv.Quote(k))
			b.WriteString("]")
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// locate finds the line and column of the key at keys (or of the list element
// "[i]"). It runs only when a manifest is refused, so a token walk is cheap
// enough; it returns 0, 0 when the path is not found.
func locate(data []byte, keys []string) (int, int) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		key    string // current key (object) or index (list)
		index  int
		expect bool // object: next token is a key
	}
	var stack []frame
	matches := func() bool {
		if len(stack) != len(keys) {
			return false
		}
		for i, f := range stack {
			if f.key != keys[i] {
				return false
			}
		}
		return true
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return 0, 0
		}
		// A value (not a key) is about to be read in a list: name it.
		if n := len(stack); n > 0 && !stack[n-1].object {
			if d, ok := tok.(json.Delim); !ok || d != ']' {
				stack[n-1].key = "[" + strconv.Itoa(stack[n-1].index) + "]"
				stack[n-1].index++
				if matches() {
					return lineCol(data, skipSpace(data, int(start)))
				}
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{object: true, expect: true})
				continue
			case '[':
				stack = append(stack, frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expect {
				stack[n-1].key = t
				stack[n-1].expect = false
				if matches() {
					return lineCol(data, skipSpace(data, int(start)))
				}
				continue
			}
		}
		// A value finished: the enclosing object expects a key next.
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expect = true
		}
	}
}

func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// lineCol turns a byte offset into a 1-based line and column (in bytes).
func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
