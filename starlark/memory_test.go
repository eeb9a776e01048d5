package starlark

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/allocs"
)

// evalSrc evaluates src as cudapkgs.star and returns the formatted error
// ("" for none) and the bytes allocated during the evaluation.
func evalSrc(t *testing.T, maxMemory int64, src string) (string, uint64) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in := interp(t, dir)
	in.MaxMemory, in.MaxMemoryName = maxMemory, "--starlark-memory" // as the command line names it
	var err error
	n := allocs.During(func() { _, err = in.EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star")) })
	if err == nil {
		return "", n
	}
	return FormatError(err), n
}

// The reproduction: with the default 1 GiB budget, an 8 GiB list
// ends at once with the file and line, instead of after 29 s at 8 GB: it is
// refused before anything of it is allocated.
func TestMemoryBudgetRepeat(t *testing.T) {
	msg, n := evalSrc(t, 0, "X = 1\nx = [0] * (1 << 29)\n")
	want := "cudapkgs.star:2:9: memory budget exhausted: repeating a list 536870912 times would allocate 8.0 GiB, and the run has"
	if !strings.HasPrefix(msg, want) || !strings.Contains(msg, "of its 1.0 GiB budget (--starlark-memory)") {
		t.Errorf("got %s\nwant %s…", msg, want)
	}
	if n > 16<<20 {
		t.Errorf("allocated %d MiB before refusing", n>>20)
	}
}

// Every operation that allocates much in one step is checked before it
// runs: the run allocates no more than the budget for it. Growth made of many steps is caught
// by the watcher, whose message says so: the step budget (the default 50
// million), which would end the loop otherwise, says something else.
func TestMemoryBudgetOperations(t *testing.T) {
	const budget = 64 << 20
	for _, tt := range []struct{ name, src, want string }{
		{"string repeat", `x = "abc" * (1 << 28)`, "cudapkgs.star:1:11: memory budget exhausted: repeating a string 268435456 times"},
		{"int first", `x = (1 << 28) * [1]`, "repeating a list 268435456 times"},
		{"augmented repeat", "def f():\n    x = [1]\n    x *= 1 << 28\nf()\n", "cudapkgs.star:3:7: memory budget exhausted: repeating a list"},
		{"doubling", "def f():\n    s = \"ab\"\n    for i in range(40):\n        s = s + s\nf()\n", "cudapkgs.star:4:15: memory budget exhausted: string + string would allocate"},
		{"augmented doubling", "def f():\n    s = [1]\n    for i in range(40):\n        s += s\nf()\n", "cudapkgs.star:4:11: memory budget exhausted: list + list"},
		{"replace", "s = \"a\" * 100000\nt = s.replace(\"a\", s)", "cudapkgs.star:2:14: memory budget exhausted: str.replace would allocate"},
		{"join", "s = \"a\" * 100000\nt = s.join([\"x\"] * 100000)", "memory budget exhausted: str.join would allocate"},
		{"format", "s = \"a\" * 1000000\nt = (\"{0}\" * 1000).format(s)", "memory budget exhausted: str.format"},
		{"percent", "s = [\"a\" * 1000] * 100000\nt = \"%s\" % (s,)", "memory budget exhausted: formatting a string with %"},
		{"str", "s = [\"a\" * 1000] * 100000\nt = str(s)", "memory budget exhausted: str() would allocate"},
		{"join of big elements", "s = \"a\" * 1000000\nt = \"\".join([s] * 1000)", "memory budget exhausted: str.join would allocate"},
		{"percent repr", "s = \"\\x00\" * 10000000\nt = \"%r\" % s", "memory budget exhausted: formatting a string with % would allocate"},
		{"repr", "s = \"\\x00\" * 10000000\nt = repr(s)", "memory budget exhausted: repr() would allocate"},
		{"split", "s = \"a\" * 10000000\nt = s.split(\"a\")", "memory budget exhausted: str.split would allocate"},
		{"int product", "def f():\n    x = 3\n    for i in range(40):\n        x = x * x\nf()\n", "cudapkgs.star:4:15: integer too large: multiplying integers would make an integer of"},
		{"list of range", "x = list(range(1 << 29))", "cudapkgs.star:1:9: memory budget exhausted: list() of 536870912 elements"},
		{"dict of zip", "x = dict(zip(range(1 << 28), range(1 << 28)))", "memory budget exhausted: zip() of 268435456 elements"},
		{"many small steps", "x = []\nfor i in range(50000000):\n    x.append([i, i])\n", "Starlark computation cancelled: memory budget exhausted: the run's heap grew by"},
		{"reserved name", "_cudapkgs_mul = 1\n", "cudapkgs.star:1:1: _cudapkgs_mul: names starting with _cudapkgs_ are reserved"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg, n := evalSrc(t, budget, tt.src)
			if !strings.Contains(msg, tt.want) {
				t.Errorf("got %s\nwant %s", msg, tt.want)
			}
			// One refused step allocates nothing of its result. Doubling
			// allocates what the checks let through, which depends on the
			// watcher's last sample of the heap: at most the budget for
			// the last step, about as much before it, and the copies of
			// a list's growth. The watcher alone bounds a loop of small
			// steps, by what it allocates between two samples.
			limit := uint64(budget)
			switch tt.name {
			case "doubling", "augmented doubling":
				limit = 4 * budget
			case "many small steps":
				limit = math.MaxUint64
			}
			if n > limit {
				t.Errorf("allocated %d MiB, over %d MiB, against a %d MiB budget", n>>20, limit>>20, budget>>20)
			}
		})
	}
}

// The rewritten operators behave as the language says.
func TestMemoryGuardsKeepSemantics(t *testing.T) {
	src := `
def aug():
    a = [1]
    b = a
    a += [2]
    a *= 2
    s = "x"
    s += "y"
    s *= 2
    return b, s
b, s = aug()
checks = [
    (b, [1, 2]),  # += extends in place, *= makes a new list
    (s, "xyxy"),
    (2 * [0], [0, 0]),
    ("ab" * 2, "abab"),
    ((1,) + (2,), (1, 2)),
    (7 % 3, 1),
    (7 * 3 + 1, 22),
    ("%s-%d" % ("a", 1), "a-1"),
    ("%s" % [1], "[1]"),
    ("a,b".replace(",", ";"), "a;b"),
    ("a,b,c".replace(",", "", 1), "ab,c"),
    (",".join(["a", "b"]), "a,b"),
    ("{}{x}".format(1, x = 2), "12"),
    (list(range(3)), [0, 1, 2]),
    (dict(a = 1), {"a": 1}),
    (sorted([3, 1]), [1, 3]),
    (str(1), "1"),
    (repr("a"), '"a"'),
    (list(enumerate("ab".elems())), [(0, "a"), (1, "b")]),
    ([x * 2 for x in [1, 2] if x + 1 > 1], [2, 4]),
    ((lambda x, y = 2 * 3: x + y)(1), 7),
    ("a" in ("a", "b"), True),
    (3 not in [1, 2], True),
    ("b" in "abc", True),
    ([7 - 1, 7 // 2, 6 & 3, 6 | 1, 6 ^ 3, 1 + 2, 1 << 3], [6, 3, 2, 7, 5, 3, 8]),
    ([1 < 2, "a" == "a", 2 >= 3, [1] != [1], (1, 2) < (1, 3)], [True, True, False, False, True]),
    (set([1, 2]) - set([1]), set([2])),
    (set([1]) | set([2]), set([1, 2])),
]
for got, want in checks:
    if got != want:
        fail("got %r, want %r" % (got, want))
def f(x, k = 1 + 1):
    return x * k
if f(2) != 4 or f(x = 2, k = 3) != 6:
    fail("f")
`
	if msg, _ := evalSrc(t, 0, src); msg != "" {
		t.Error(msg)
	}
	in := interp(t, t.TempDir())
	v, err := Query(context.Background(), in, `[1] * 3 + ["%s" % "a"]`, nil)
	if err != nil || v.String() != `[1, 1, 1, "a"]` {
		t.Errorf("query: %v %v", v, err)
	}
	if _, err := Query(context.Background(), in, `[0] * (1 << 29)`, nil); err == nil || !strings.Contains(FormatError(err), "<expr>:1:5: memory budget exhausted") {
		t.Errorf("query budget: %v", FormatError(err))
	}
}

// BenchmarkMemoryBudgetSmallSteps is how long the heap watcher lets a loop
// of small allocations run before it stops it (64 MiB budget).
func BenchmarkMemoryBudgetSmallSteps(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "cudapkgs.star")
	if err := os.WriteFile(file, []byte("x = []\nfor i in range(50000000):\n    x.append([i, i])\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	in, err := NewInterp(dir)
	if err != nil {
		b.Fatal(err)
	}
	in.MaxMemory = 64 << 20
	for b.Loop() {
		if _, err := in.EvalConfig(context.Background(), file); err == nil {
			b.Fatal("the loop was not stopped")
		}
	}
}
