package starlark

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	sl "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// ToJSON renders a Starlark value as indented JSON (two spaces, a final
// newline) with object keys sorted, so the same value always gives the same
// bytes. Dicts need string keys; structs and modules become objects; lists,
// tuples and sets become arrays in their order. Functions and other values
// without a JSON form are an error naming the path to them, and so are a
// list, dict or set that contains itself (before: a Go stack overflow) and
// nesting deeper than maxJSONDepth (before: a path string rebuilt at each
// level, quadratic; a million levels did not finish).
func ToJSON(v sl.Value) ([]byte, error) {
	w := &jsonWalker{path: []string{"result"}, onPath: map[sl.Value]bool{}}
	g, err := w.toGo(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// maxJSONDepth is how deep a result may nest. A run can build a list
// nested a million levels deep; its JSON would be a million levels of
// indentation, which no reader wants (and encoding/json recurses per level).
const maxJSONDepth = 1000

// jsonWalker converts a value, knowing where it is (for messages) and
// which lists, dicts and sets it is inside (a value that contains itself
// has no JSON form).
type jsonWalker struct {
	path   []string // "result", then "[0]", ".name", ...
	onPath map[sl.Value]bool
}

// in converts v, an element of the value being converted, at step.
func (w *jsonWalker) in(step string, v sl.Value) (any, error) {
	w.path = append(w.path, step)
	defer func() { w.path = w.path[:len(w.path)-1] }()
	return w.toGo(v)
}

// at is where the walk is, for a message: the path, its middle elided
// when it is long.
func (w *jsonWalker) at() string {
	if len(w.path) > 24 {
		return strings.Join(w.path[:4], "") + "…" + strings.Join(w.path[len(w.path)-16:], "")
	}
	return strings.Join(w.path, "")
}

func (w *jsonWalker) toGo(v sl.Value) (any, error) {
	if len(w.path) > maxJSONDepth {
		return nil, fmt.Errorf("%s: nested more than %d levels deep, too deep for JSON", w.at(), maxJSONDepth)
	}
	switch v.(type) {
	case *sl.List, *sl.Dict, *sl.Set:
		if w.onPath[v] {
			return nil, fmt.Errorf("%s: a %s that contains itself has no JSON form", w.at(), v.Type())
		}
		w.onPath[v] = true
		defer delete(w.onPath, v)
	}
	at := w.at
	switch x := v.(type) {
	case sl.NoneType:
		return nil, nil
	case sl.Bool:
		return bool(x), nil
	case sl.Int:
		return json.Number(x.String()), nil
	case sl.Float:
		f := float64(x)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%s: %s has no JSON form", at(), x)
		}
		return f, nil
	case sl.String:
		return string(x), nil
	case *sl.Dict:
		m := make(map[string]any, x.Len())
		for _, item := range x.Items() {
			k, ok := sl.AsString(item[0])
			if !ok {
				return nil, fmt.Errorf("%s: dict key %s is %s: JSON objects need string keys", at(), item[0], item[0].Type())
			}
			e, err := w.in(fmt.Sprintf("[%q]", k), item[1])
			if err != nil {
				return nil, err
			}
			m[k] = e
		}
		return m, nil
	case *starlarkstruct.Struct:
		m := map[string]any{}
		for _, n := range x.AttrNames() {
			a, err := x.Attr(n)
			if err != nil {
				return nil, err
			}
			if m[n], err = w.in("."+n, a); err != nil {
				return nil, err
			}
		}
		return m, nil
	case *starlarkstruct.Module:
		m := map[string]any{}
		for _, n := range x.AttrNames() {
			a, _ := x.Attr(n)
			e, err := w.in("."+n, a)
			if err != nil {
				return nil, err
			}
			m[n] = e
		}
		return m, nil
	case sl.Iterable:
		if _, ok := v.(sl.Callable); ok {
			break
		}
		out := []any{}
		it := x.Iterate()
		defer it.Done()
		var e sl.Value
		for i := 0; it.Next(&e); i++ {
			g, err := w.in("["+strconv.Itoa(i)+"]", e)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: a %s has no JSON form", at(), v.Type())
}
