package manifest

import (
	"bytes"
	"encoding/json"
	"slices"
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

// text is a document being parsed, with what turns a path or an offset into
// a line and column, each built once, in one pass, the first time a
// message needs it: a manifest with thousands of unusable entries or
// duplicate keys costs one walk, not one per message (issue 24's 16,000
// entries ran past 300 s when each message rescanned the file).
type text struct {
	data  []byte
	lines []int     // offsets of the '\n' bytes, in order
	keys  *keyIndex // where each key and list element starts
	walks int       // whole passes over data made for positions (tests)
}

// at turns a byte offset into a 1-based line and column (in bytes).
func (t *text) at(off int) (int, int) {
	if t.lines == nil {
		t.walks++
		t.lines = make([]int, 0, bytes.Count(t.data, []byte("\n")))
		for i, rest := 0, t.data; ; {
			j := bytes.IndexByte(rest, '\n')
			if j < 0 {
				break
			}
			t.lines = append(t.lines, i+j)
			i, rest = i+j+1, rest[j+1:]
		}
	}
	off = max(0, min(off, len(t.data)))
	// n newlines stand before off: the line is n+1, and the column
	// counts from the byte after the last of them.
	n, _ := slices.BinarySearch(t.lines, off)
	if n == 0 {
		return 1, off + 1
	}
	return n + 1, off - t.lines[n-1]
}

// locate finds the line and column of the key at keys (or of the list
// element "[i]"); 0, 0 when the path is not in the text.
func (t *text) locate(keys []string) (int, int) {
	if t.keys == nil {
		t.walks++
		t.keys = indexKeys(t.data)
	}
	if off, ok := t.keys.find(keys); ok {
		return t.at(off)
	}
	return 0, 0
}

// keyIndex is a tree of the document's keys and list elements ("[i]"),
// each node holding where its first occurrence starts; a node is found
// from its parent and its name, so a path is found in as many steps as it
// has keys, and the tree is built in one pass however deep the document.
type keyIndex struct {
	child map[keyEdge]int32
	off   []int // by node; node 0 is the document
}

type keyEdge struct {
	parent int32
	name   string
}

func (x *keyIndex) find(keys []string) (int, bool) {
	node := int32(0)
	for _, k := range keys {
		c, ok := x.child[keyEdge{node, k}]
		if !ok {
			return 0, false
		}
		node = c
	}
	return x.off[node], node != 0
}

// add returns the node for name under parent, made at off if new.
func (x *keyIndex) add(parent int32, name string, off int) int32 {
	e := keyEdge{parent, name}
	if c, ok := x.child[e]; ok {
		return c
	}
	c := int32(len(x.off))
	x.child[e] = c
	x.off = append(x.off, off)
	return c
}

// indexKeys walks the document's tokens once. A text that stops being
// JSON keeps what was indexed before that point.
func indexKeys(data []byte) *keyIndex {
	x := &keyIndex{child: map[keyEdge]int32{}, off: []int{0}}
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		node   int32 // the object's or list's own node
		value  int32 // object: the node of the key whose value comes next
		index  int
		expect bool // object: next token is a key
	}
	stack := []frame{{node: 0, value: 0}}
	for {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return x
		}
		top := &stack[len(stack)-1]
		// The node the coming value is: a list's next element, an
		// object's current key, or the document.
		node := top.value
		if d, ok := tok.(json.Delim); len(stack) > 1 && !top.object && (!ok || d != ']') {
			node = x.add(top.node, "["+strconv.Itoa(top.index)+"]", skipSpace(data, start))
			top.index++
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{object: true, node: node, expect: true})
				continue
			case '[':
				stack = append(stack, frame{node: node})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top.object && top.expect {
				top.value = x.add(top.node, t, skipSpace(data, start))
				top.expect = false
				continue
			}
		}
		// A value finished: the enclosing object expects a key next.
		if f := &stack[len(stack)-1]; f.object {
			f.expect = true
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
