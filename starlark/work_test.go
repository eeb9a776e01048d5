package starlark

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sl "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// evalSteps evaluates src as cudapkgs.star under a step budget and returns
// the formatted error ("" for none).
func evalSteps(t *testing.T, ctx context.Context, steps uint64, print func(), src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in := interp(t, dir)
	in.MaxSteps = steps
	if print != nil {
		in.Print = func(string, string) { print() }
	}
	_, err := in.EvalConfig(ctx, filepath.Join(dir, "cudapkgs.star"))
	if err == nil {
		return ""
	}
	return FormatError(err)
}

// Builtins and operators whose work grows with their operands charge it to
// the step budget: a few calls over large values spend a budget of a
// million steps, which the interpreter alone counted as a few dozen steps
// (the loops of sorted, in and count ran without any limit).
func TestBuiltinWorkIsCharged(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"sorted", "x = list(range(100000))\nfor i in range(10):\n    sorted(x)\n", "sorted() would take"},
		{"in", "x = list(range(200000))\nfor i in range(10):\n    if -1 in x:\n        pass\n", "int in list would take"},
		{"not in", "x = [\"ab\"] * 200000\nfor i in range(10):\n    if \"cd\" not in x:\n        pass\n", "string not in list would take"},
		{"count", "s = \"a\" * 10000000\nfor i in range(10):\n    s.count(\"b\")\n", "str.count would take"},
		{"str", "x = [[1] * 1000] * 1000\nfor i in range(10):\n    str(x)\n", "str() would take"},
		{"percent", "x = [[1] * 1000] * 1000\nfor i in range(10):\n    \"%s\" % (x,)\n", "formatting a string with % would take"},
		{"join", "x = [\"a\" * 1000] * 10000\nfor i in range(10):\n    \"\".join(x)\n", "str.join would take"},
		{"hash", "s = \"a\" * 10000000\nd = {}\nfor i in range(10):\n    d.get(s)\n", "dict.get would take"},
		{"equal", "s = \"a\" * 10000000\nt = \"a\" * 10000000\nfor i in range(10):\n    if s == t:\n        pass\n", "string == string would take"},
		{"index", "x = list(range(200000))\nfor i in range(10):\n    x.index(199999)\n", "list.index would take"},
		{"max", "for i in range(10):\n    max(range(1000000))\n", "max() would take"},
		{"int product", "def f():\n    x = 3\n    for i in range(40):\n        x = x * x\nf()\n", "int * int would take"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg := evalSteps(t, context.Background(), 1_000_000, nil, tt.src)
			if !strings.Contains(msg, "step budget exhausted (1000000 steps): "+tt.want) {
				t.Errorf("got %q\nwant step budget exhausted (1000000 steps): %s…", msg, tt.want)
			}
		})
	}
}

// str() of a list nested a million levels deep is linear (go.starlark.net's
// own printer is quadratic in the depth: the run went past 120 s)
// and prints what go.starlark.net prints; cycles print as "...".
func TestPrintDeepAndCyclic(t *testing.T) {
	src := `
def deep(n):
    x = []
    for i in range(n):
        x = [x]
    return x
s = str(deep(1000000))
if len(s) != 2000002 or s[:3] != "[[[" or s[-3:] != "]]]":
    fail(len(s))
a = [1]
a.append(a)
d = {"k": (1, "x")}
d["self"] = d
e = {}
checks = [
    (str(a), "[1, [...]]"),
    (repr(d), '{"k": (1, "x"), "self": {...}}'),
    (str([(1,), {1: [2]}, set([3]), struct(b = [1], a = "q"), "s", None, True, 1.5, 1 << 100, len]),
     '[(1,), {1: [2]}, set([3]), struct(a = "q", b = [1]), "s", None, True, 1.5, 1267650600228229401496703205376, <built-in function len>]'),
    ("%s|%r|%s" % ([1], ["a\n"], "b"), '[1]|["a\\n"]|b'),
    ("%(k)s" % {"k": [1]}, "[1]"),
    ("{}{!r}{x}".format([1], "a", x = (2,)), '[1]"a"(2,)'),
    (str(e), "{}"),
]
for got, want in checks:
    if got != want:
        fail("got %s, want %s" % (got, want))
`
	if msg := evalSteps(t, context.Background(), 0, nil, src); msg != "" {
		t.Fatal(msg)
	}
}

// Cancelling the run's context (Ctrl-C) stops printing a deep value: the
// evaluation returns, with the cancellation. The context is cancelled a
// moment after the loop starts, in the middle of a str(): go.starlark.net's
// printer never looked at the cancellation, and the Ctrl-C did not
// stop it.
func TestCancelStopsPrinting(t *testing.T) {
	src := `
def f():
    x = []
    for i in range(1000000):
        x = [x]
    print("go")
    for i in range(1000):
        s = str(x)
f()
`
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := errors.New("interrupted")
	done := make(chan string, 1)
	go func() {
		done <- evalSteps(t, ctx, 1<<50, func() {
			go func() {
				time.Sleep(200 * time.Millisecond)
				cancel(stop)
			}()
		}, src)
	}()
	select {
	case msg := <-done:
		if !strings.Contains(msg, "Starlark computation cancelled: interrupted") {
			t.Errorf("got %q, want the cancellation", msg)
		}
	case <-time.After(2 * time.Minute): // a backstop, far past any run: the assertion is that it returns
		t.Fatal("the cancelled evaluation did not return")
	}
}

// Integers are capped at maxIntBits where they grow, and a source with a
// longer run of digits is refused before the parser converts it (a 4 MiB
// literal took the parser 38 s and 33 GB of allocations).
func TestIntegerLimits(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"literal", "x = 1\ny = " + strings.Repeat("9", 400000) + "\n", "cudapkgs.star:2:5: a run of more than 315654 decimal digits: integers are limited to 1048576 bits"},
		{"int()", "x = int(\"9\" * 400000)\n", "cudapkgs.star:1:8: integer too large: int() of a string of 400000 characters, over the limit of 315654 digits (1048576 bits)"},
		{"shift", "def f():\n    x = 1\n    for i in range(1000000):\n        x = x << 500\nf()\n", "cudapkgs.star:4:15: integer too large: shifting an integer would make an integer of"},
		{"sum", "def f():\n    x = 1 << 500\n    for i in range(10000):\n        x = x * (1 << 500) + x\nf()\n", "cudapkgs.star:4:15: integer too large: multiplying integers would make an integer of"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if msg := evalSteps(t, context.Background(), 0, nil, tt.src); !strings.HasPrefix(msg, tt.want) {
				t.Errorf("got %.300s\nwant %s…", msg, tt.want)
			}
		})
	}
	in := interp(t, t.TempDir())
	if _, err := Query(context.Background(), in, strings.Repeat("1", 400000), nil); err == nil || !strings.HasPrefix(FormatError(err), "<expr>:1:1: a run of more than") {
		t.Errorf("query: %.200v", err)
	}
}

// This package's printer writes what go.starlark.net's writes, cycles
// included.
func TestRenderMatchesStarlark(t *testing.T) {
	src := `
a = [1, "x\n\"", None]
a.append(a)
d = {"k": a, (1, 2): [d0 for d0 in range(3)]}
d["self"] = d
l = [d, {"in": d}, [a, [a]]]
e = {}
e[1] = [e, {2: e}]
values = [a, d, l, e, (1,), (), [], {}, set([1, "b"]), struct(z = [a], y = d), 1 << 70, -5, 1.5, True, b"\x01", len, range(3), "s\t"]
`
	th := &sl.Thread{}
	env := sl.StringDict{"struct": sl.NewBuiltin("struct", starlarkstruct.Make)}
	g, err := sl.ExecFileOptions(fileOptions, th, "v.star", src, env)
	if err != nil {
		t.Fatal(err)
	}
	values := g["values"].(*sl.List)
	for i := range values.Len() {
		v := values.Index(i)
		got, err := render(th, v, true, "repr()")
		if err != nil || got != v.String() {
			t.Errorf("value %d: got %s (%v)\nwant %s", i, got, err, v.String())
		}
	}
}

// A result that contains itself, or nests a million levels deep, is an
// error naming where, not a Go stack overflow or a conversion that does not
// finish.
func TestToJSONCyclesAndDepth(t *testing.T) {
	a := sl.NewList([]sl.Value{sl.MakeInt(1)})
	a.Append(a)
	d := sl.NewDict(1)
	d.SetKey(sl.String("k"), sl.NewList([]sl.Value{d}))
	deep := sl.NewList(nil)
	for range 1000000 {
		deep = sl.NewList([]sl.Value{deep})
	}
	ok := sl.NewList(nil)
	for range 900 {
		ok = sl.NewList([]sl.Value{ok})
	}
	for _, tt := range []struct {
		v    sl.Value
		want string
	}{
		{a, "result[1]: a list that contains itself has no JSON form"},
		{d, `result["k"][0]: a dict that contains itself has no JSON form`},
		{deep, "result[0][0][0]…[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested more than 1000 levels deep, too deep for JSON"},
		{sl.Tuple{a, a}, "result[0][1]: a list that contains itself has no JSON form"},
	} {
		if _, err := ToJSON(tt.v); err == nil || err.Error() != tt.want {
			t.Errorf("got %v\nwant %s", err, tt.want)
		}
	}
	// The same list twice, side by side, is no cycle.
	if j, err := ToJSON(sl.Tuple{ok, ok}); err != nil || len(j) < 1800 {
		t.Errorf("900 levels: %v", err)
	}
}
