package starlark

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	sl "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// ToJSON renders a Starlark value as indented JSON (two spaces, a final
// newline) with object keys sorted, so the same value always gives the same
// bytes. Dicts need string keys; structs and modules become objects; lists,
// tuples and sets become arrays in their order. Functions and other values
// without a JSON form are an error naming the path to them.
func ToJSON(v sl.Value) ([]byte, error) {
	g, err := toGo(v, "result")
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

func toGo(v sl.Value, at string) (any, error) {
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
			return nil, fmt.Errorf("%s: %s has no JSON form", at, x)
		}
		return f, nil
	case sl.String:
		return string(x), nil
	case *sl.Dict:
		m := make(map[string]any, x.Len())
		for _, item := range x.Items() {
			k, ok := sl.AsString(item[0])
			if !ok {
				return nil, fmt.Errorf("%s: dict key %s is %s: JSON objects need string keys", at, item[0], item[0].Type())
			}
			e, err := toGo(item[1], fmt.Sprintf("%s[%q]", at, k))
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
			if m[n], err = toGo(a, at+"."+n); err != nil {
				return nil, err
			}
		}
		return m, nil
	case *starlarkstruct.Module:
		m := map[string]any{}
		for _, n := range x.AttrNames() {
			a, _ := x.Attr(n)
			e, err := toGo(a, at+"."+n)
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
			g, err := toGo(e, fmt.Sprintf("%s[%d]", at, i))
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: a %s has no JSON form", at, v.Type())
}
