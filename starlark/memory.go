package starlark

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sl "go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// DefaultMaxMemory is the memory budget of one run when Interp.MaxMemory is
// zero: far more than any configuration or query needs, far less than what a
// runaway allocation would take from the machine.
const DefaultMaxMemory = 1 << 30

// The memory budget has two parts, because go.starlark.net offers no
// allocation hook:
//
//   - Single operations that could allocate a lot in one step are checked
//     before they run, against what the budget has left: sequence repetition
//     and concatenation (x * n, x + y, and their augmented forms), integer
//     products, string formatting (%, .format), the string, list, dict and
//     set methods whose result can outgrow their inputs (join, replace,
//     split, items, ...; methodSize), printing (render.go), and the
//     constructors that preallocate from their argument's length (list,
//     tuple, dict, set, sorted, enumerate, zip). The source is rewritten
//     before it is compiled so that the operators and those methods go
//     through a check (rewrite.go); the results are the same. The same
//     checks charge the operations' work to the step budget (work.go).
//   - Growth made of many small steps (a loop appending) is measured: a
//     watcher samples the process's heap while the run lasts and cancels
//     every thread of the run when the heap has grown by more than the
//     budget (after a garbage collection confirms it).
//
// Either way the run stops with the file and line where it was. The budget
// itself is lowered to what the process can get (limits.go).

const memoryReason = "memory budget exhausted"

// valueSize is what one element of a list, tuple or dict costs, roughly.
const valueSize = 16

// memory is one run's memory budget.
type memory struct {
	budget int64
	// setting is how the budget was set, for messages ("" for none).
	setting  string
	baseline uint64
	grown    atomic.Int64 // heap growth since the run started, last sample
	stopOnce sync.Once
	done     chan struct{}
}

// heapBytes is the live heap. Each call has its own sample, so that runs
// watched at once share nothing.
func heapBytes() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// watchMemory starts the watcher of run r's heap growth.
func (r *run) watchMemory(budget int64, setting string) {
	m := &memory{budget: budget, setting: setting, baseline: heapBytes(), done: make(chan struct{})}
	r.mem = m
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-m.done:
				return
			case <-t.C:
			}
			g := int64(heapBytes()) - int64(m.baseline)
			if g > m.budget {
				// Garbage counts until it is collected: make sure.
				runtime.GC()
				g = int64(heapBytes()) - int64(m.baseline)
			}
			m.grown.Store(g)
			if g > m.budget {
				r.cancel(fmt.Sprintf("%s: the run's heap grew by %s, over the %s budget%s", memoryReason, byteSize(g), byteSize(m.budget), m.setBy()))
				return
			}
		}
	}()
}

// setBy is " (<setting>)" after the budget in messages, when the caller
// named how its users set it.
func (m *memory) setBy() string {
	if m.setting == "" {
		return ""
	}
	return " (" + m.setting + ")"
}

func (m *memory) stop() { m.stopOnce.Do(func() { close(m.done) }) }

// reserve refuses an operation that would allocate about n bytes when the
// budget has not that much left.
func (m *memory) reserve(n int64, what string) error {
	if m.fits(n) {
		return nil
	}
	return m.refuse(n, what)
}

// fits says whether n bytes fit in what the budget has left: the check
// before an operation's name is formatted for refuse.
func (m *memory) fits(n int64) bool {
	return m == nil || n <= 0 || n <= m.budget-max(m.grown.Load(), 0)
}

// refuse is reserve's error.
func (m *memory) refuse(n int64, what string) error {
	if m == nil || n <= 0 {
		return nil
	}
	left := m.budget - max(m.grown.Load(), 0)
	if n > left {
		return fmt.Errorf("%s: %s would allocate %s, and the run has %s left of its %s budget%s", memoryReason, what, byteSize(n), byteSize(max(left, 0)), byteSize(m.budget), m.setBy())
	}
	return nil
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func memOf(th *sl.Thread) *memory {
	if r, ok := th.Local(localRun).(*run); ok {
		return r.mem
	}
	return nil
}

// sizeOf estimates the bytes a value's own storage takes (not what its
// elements refer to, which already exists).
func sizeOf(v sl.Value) int64 {
	switch x := v.(type) {
	case sl.String:
		return int64(len(x))
	case sl.Bytes:
		return int64(len(x))
	case *sl.Dict, *sl.Set:
		return int64(sl.Len(x)) * valueSize * 4
	}
	if l := sl.Len(v); l > 0 {
		return int64(l) * valueSize
	}
	return 0
}

// printedSize bounds the length of v's text in a formatting operation,
// once printable has replaced the containers by their text.
// quoted says whether the format may quote strings (%r, {!r}): a quoted
// string takes up to four bytes a byte, and go.starlark.net quotes it in a
// buffer of its own before copying it.
func printedSize(v sl.Value, quoted bool) int64 {
	switch x := v.(type) {
	case printed:
		return int64(len(x.text))
	case sl.String:
		if quoted {
			return 3 * (4*int64(len(x)) + 2)
		}
		return int64(len(x))
	case sl.Bytes:
		return 4*int64(len(x)) + 3
	case sl.Int:
		return intWords(x)*20 + 1
	}
	return 64
}

// checkBinary checks the memory of x op y before it runs.
func checkBinary(m *memory, op syntax.Token, x, y sl.Value) error {
	switch op {
	case syntax.STAR:
		seq, count := x, y
		if _, ok := x.(sl.Int); ok {
			seq, count = y, x
		}
		c, ok := count.(sl.Int)
		if !ok {
			return nil
		}
		if a, ok := seq.(sl.Int); ok {
			// The product of two integers is as long as both.
			if err := checkIntBits(intBits(a)+intBits(c), "multiplying integers"); err != nil {
				return err
			}
			return m.reserve(8*(intWords(a)+intWords(c)), "multiplying integers")
		}
		n, ok := c.Int64()
		if !ok {
			n = 1 << 62
		}
		if n <= 1 {
			return nil
		}
		if size := satMul(sizeOf(seq), n); !m.fits(size) {
			return m.refuse(size, fmt.Sprintf("repeating a %s %d times", seq.Type(), n))
		}
		return nil
	case syntax.LTLT:
		if a, ok := x.(sl.Int); ok {
			if n, ok := y.(sl.Int); ok {
				if k, ok := n.Int64(); ok && k > 0 {
					return checkIntBits(intBits(a)+min(k, 1<<40), "shifting an integer")
				}
			}
		}
		return nil
	case syntax.MINUS:
		if a, ok := x.(sl.Int); ok {
			if b, ok := y.(sl.Int); ok {
				return checkIntBits(max(intBits(a), intBits(b))+1, "subtracting integers")
			}
		}
		return nil
	case syntax.PLUS, syntax.PIPE:
		if a, ok := x.(sl.Int); ok && op == syntax.PLUS {
			if b, ok := y.(sl.Int); ok {
				return checkIntBits(max(intBits(a), intBits(b))+1, "adding integers")
			}
		}
		if size := sizeOf(x) + sizeOf(y); !m.fits(size) {
			return m.refuse(size, fmt.Sprintf("%s %s %s", x.Type(), op, y.Type()))
		}
		return nil
	case syntax.PERCENT:
		f, ok := x.(sl.String)
		if !ok {
			return nil
		}
		// The arguments are printable (guardBinary): their text is known.
		quoted := strings.Contains(string(f), "r")
		var est int64
		switch y := y.(type) {
		case sl.Tuple:
			for _, e := range y {
				est += printedSize(e, quoted)
			}
		case *sl.Dict:
			var most int64
			for _, e := range y.Entries() {
				most = max(most, printedSize(e, quoted))
			}
			est = max(printedSize(y, quoted), satMul(int64(strings.Count(string(f), "%")), most))
		default:
			est = printedSize(y, quoted)
		}
		// strings.Builder doubles as it grows.
		return m.reserve(2*(int64(len(f))+est), "formatting a string with %")
	}
	return nil
}

// maxIntBits caps the integers a run makes: arithmetic on an integer is
// linear in its length (multiplication and decimal conversion worse), and
// operations with a literal operand are not guarded (rewrite.go), so their
// work is bounded only by this cap. A million bits is 315,653 decimal
// digits: no configuration comes near.
const maxIntBits = 1 << 20

// checkIntBits refuses an integer result of bits bits past maxIntBits.
func checkIntBits(bits int64, what string) error {
	if bits <= maxIntBits {
		return nil
	}
	return &budgetError{fmt.Sprintf("integer too large: %s would make an integer of %d bits, over the limit of %d bits", what, bits, maxIntBits)}
}

// intBits is the length of an integer in bits.
func intBits(x sl.Int) int64 {
	if _, ok := x.Int64(); ok {
		return 64
	}
	return int64(x.BigInt().BitLen())
}

// Names of the builtins the rewritten source calls. A file that uses a name
// with this prefix is refused, so that none can be shadowed.
const guardPrefix = "_cudapkgs_"

// opNames are the operators the rewrite routes through guardBinary: those
// that allocate (memory budget) and those whose work grows with their
// operands (step budget, work.go).
var opNames = map[syntax.Token]string{
	syntax.STAR: "mul", syntax.PLUS: "add", syntax.PERCENT: "mod",
	syntax.MINUS: "sub", syntax.PIPE: "or", syntax.LTLT: "shl", syntax.AMP: "and", syntax.CIRCUMFLEX: "xor", syntax.SLASHSLASH: "div",
	syntax.IN: "in", syntax.NOT_IN: "notin",
	syntax.EQL: "eq", syntax.NEQ: "ne", syntax.LT: "lt", syntax.GT: "gt", syntax.LE: "le", syntax.GE: "ge",
}

// checkOp charges x op y to both budgets before it runs, and returns the
// right operand as the operation must see it (% prints containers itself).
func checkOp(th *sl.Thread, op syntax.Token, x, y sl.Value) (sl.Value, error) {
	r := runOf(th)
	if r == nil {
		return y, nil
	}
	if op == syntax.PERCENT {
		if f, ok := x.(sl.String); ok {
			var err error
			switch yy := y.(type) {
			case sl.Tuple:
				y, err = printableArgs(th, yy, "formatting a string with %")
			case *sl.Dict:
				if strings.Contains(string(f), "%(") {
					y, err = printableMapping(th, yy, "formatting a string with %")
					break
				}
				y, err = printable(th, y, "formatting a string with %")
			default:
				y, err = printable(th, y, "formatting a string with %")
			}
			if err != nil {
				return nil, err
			}
		}
	}
	// Most operands are small: a walk bounded by smallWork says so
	// without reading the budget.
	if w := binaryWork(op, x, y, smallWork); w > smallWork {
		if w = binaryWork(op, x, y, r.stepsLeft(th)); true {
			if err := r.chargeWork(th, w, fmt.Sprintf("%s %s %s", x.Type(), op, y.Type())); err != nil {
				return nil, err
			}
		}
	} else if w > 16 {
		if err := r.chargeWork(th, w, fmt.Sprintf("%s %s %s", x.Type(), op, y.Type())); err != nil {
			return nil, err
		}
	}
	return y, checkBinary(r.mem, op, x, y)
}

func guardBinary(op syntax.Token) *sl.Builtin {
	return sl.NewBuiltin(guardPrefix+opNames[op], func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		x, y := args[0], args[1]
		y, err := checkOp(th, op, x, y)
		if err != nil {
			return nil, err
		}
		switch op {
		case syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE:
			ok, err := sl.Compare(op, x, y)
			if err != nil {
				return nil, err
			}
			return sl.Bool(ok), nil
		}
		return sl.Binary(op, x, y)
	})
}

// guardAugmented checks x op= y for a name x: it returns y, and the
// assignment then runs as written (a list's += still extends it in place).
func guardAugmented(op syntax.Token) *sl.Builtin {
	return sl.NewBuiltin(guardPrefix+"aug"+opNames[op], func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		if _, err := checkOp(th, op, args[0], args[1]); err != nil {
			return nil, err
		}
		return args[1], nil
	})
}

// guardedValue wraps a value whose method is about to be called (one named
// in guardedMethods), so that the method charges its work and checks its
// result's size first.
type guardedValue struct{ v sl.Value }

func (g guardedValue) String() string        { return g.v.String() }
func (g guardedValue) Type() string          { return g.v.Type() }
func (g guardedValue) Freeze()               {}
func (g guardedValue) Truth() sl.Bool        { return g.v.Truth() }
func (g guardedValue) Hash() (uint32, error) { return g.v.Hash() }
func (g guardedValue) AttrNames() []string   { return g.v.(sl.HasAttrs).AttrNames() }

func (g guardedValue) Attr(name string) (sl.Value, error) {
	m, err := g.v.(sl.HasAttrs).Attr(name)
	if err != nil || m == nil {
		return m, err
	}
	inner := m.(sl.Callable)
	recv := g.v
	return sl.NewBuiltin(name, func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		if s, ok := recv.(sl.String); ok && name == "format" {
			what := methodName(recv, name)
			var err error
			if args, err = printableArgs(th, args, what); err != nil {
				return nil, err
			}
			if kwargs, err = printableKwargs(th, kwargs, what); err != nil {
				return nil, err
			}
			quoted := strings.Contains(string(s), "!r")
			var most int64
			for _, a := range args {
				most = max(most, printedSize(a, quoted))
			}
			for _, kv := range kwargs {
				most = max(most, printedSize(kv[1], quoted))
			}
			fields := int64(strings.Count(string(s), "{"))
			if err := memOf(th).reserve(2*(int64(len(s))+satMul(fields, most)), what); err != nil {
				return nil, err
			}
		}
		if m, size := memOf(th), methodSize(th, recv, name, args); !m.fits(size) {
			return nil, m.refuse(size, methodName(recv, name))
		}
		if err := chargeBuiltin(th, recv, name, args, kwargs); err != nil {
			return nil, err
		}
		return sl.Call(th, inner, args, kwargs)
	}), nil
}

// methodName is how messages name a method: str.join, list.index.
func methodName(recv sl.Value, name string) string {
	if _, ok := recv.(sl.String); ok {
		return "str." + name
	}
	return recv.Type() + "." + name
}

// methodSize is what a method call allocates, about.
func methodSize(th *sl.Thread, recv sl.Value, name string, args sl.Tuple) int64 {
	arg := func(i int) sl.Value {
		if i < len(args) {
			return args[i]
		}
		return sl.None
	}
	switch recv := recv.(type) {
	case sl.String:
		switch name {
		case "replace":
			old, ok1 := arg(0).(sl.String)
			repl, ok2 := arg(1).(sl.String)
			if ok1 && ok2 && len(repl) > len(old) {
				count := int64(len(recv)) + 1
				if len(old) > 0 {
					count = int64(strings.Count(string(recv), string(old)))
				}
				return int64(len(recv)) + satMul(count, int64(len(repl)-len(old)))
			}
		case "join":
			m := memOf(th)
			if m == nil {
				return 0
			}
			return joinSize(recv, arg(0), m.budget)
		case "split", "rsplit", "splitlines":
			return splitSize(recv, name, args)
		case "upper", "lower", "title", "capitalize":
			return 2 * int64(len(recv))
		}
	case *sl.List:
		if name == "extend" {
			return 2 * lenOf(arg(0)) * valueSize
		}
	case *sl.Dict:
		switch name {
		case "items":
			return int64(recv.Len()) * 5 * valueSize
		case "keys", "values":
			return int64(recv.Len()) * valueSize
		case "update":
			return lenOf(arg(0)) * 4 * valueSize
		}
	case *sl.Set:
		var n int64
		for _, a := range args {
			n += lenOf(a)
		}
		switch name {
		case "union", "difference", "intersection", "symmetric_difference":
			n += int64(recv.Len())
		}
		return n * 4 * valueSize
	}
	return 0
}

var receiver = sl.NewBuiltin(guardPrefix+"recv", func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	switch args[0].(type) {
	case sl.String, *sl.List, *sl.Dict, *sl.Set:
		return guardedValue{args[0]}, nil
	}
	return args[0], nil
})

// guardedMethods are the methods of strings, lists, dicts and sets whose
// result can be far larger than their inputs, or whose work grows with
// them: every method but the constant-time ones (append, a dict's get of a
// short key is charged anyway through the key's weight).
var guardedMethods = func() map[string]bool {
	guardedMethods := map[string]bool{}
	for _, v := range []sl.Value{sl.String(""), sl.NewList(nil), sl.NewDict(0), new(sl.Set)} {
		for _, name := range v.(sl.HasAttrs).AttrNames() {
			guardedMethods[name] = true
		}
	}
	for _, cheap := range []string{"append", "elems", "codepoints", "elem_ords", "codepoint_ords",
		"isalnum", "isalpha", "isdigit", "islower", "isspace", "istitle", "isupper"} {
		delete(guardedMethods, cheap)
	}
	return guardedMethods
}()

// guardUniverse wraps a universe builtin: it charges its work (work.go)
// and reserves, per element of its longest argument, perElem bytes (the
// constructors preallocate from their argument's length).
func guardUniverse(name string, perElem int64) *sl.Builtin {
	inner := sl.Universe[name].(*sl.Builtin)
	return sl.NewBuiltin(name, func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		if perElem > 0 {
			var n int64
			for _, a := range args {
				n = max(n, lenOf(a))
			}
			if err := memOf(th).reserve(satMul(n, perElem), fmt.Sprintf("%s() of %d elements", name, n)); err != nil {
				return nil, err
			}
		}
		if err := chargeBuiltin(th, nil, name, args, kwargs); err != nil {
			return nil, err
		}
		return sl.Call(th, inner, args, kwargs)
	})
}

// guardText is str() and repr(), printed by render.
func guardText(name string) *sl.Builtin {
	inner := sl.Universe[name].(*sl.Builtin)
	return sl.NewBuiltin(name, func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		if len(args) != 1 || len(kwargs) != 0 || runOf(th) == nil {
			return sl.Call(th, inner, args, kwargs) // its own error
		}
		if _, isBytes := args[0].(sl.Bytes); isBytes {
			return sl.Call(th, inner, args, kwargs)
		}
		text, err := render(th, args[0], name == "repr", name+"()")
		if err != nil {
			return nil, err
		}
		return sl.String(text), nil
	})
}

// guardPrint is print() and fail(): their arguments printed by render.
func guardPrint(name string) *sl.Builtin {
	inner := sl.Universe[name].(*sl.Builtin)
	return sl.NewBuiltin(name, func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		args, err := printableArgs(th, args, name+"()")
		if err != nil {
			return nil, err
		}
		return sl.Call(th, inner, args, kwargs)
	})
}

// memoryBuiltins are added to every module's predeclared names.
var memoryBuiltins = func() sl.StringDict {
	d := sl.StringDict{
		guardPrefix + "augmul": guardAugmented(syntax.STAR),
		guardPrefix + "augadd": guardAugmented(syntax.PLUS),
		guardPrefix + "recv":   receiver,
		"list":                 guardUniverse("list", valueSize),
		"tuple":                guardUniverse("tuple", valueSize),
		"sorted":               guardUniverse("sorted", valueSize),
		"dict":                 guardUniverse("dict", 4*valueSize),
		"set":                  guardUniverse("set", 4*valueSize),
		"enumerate":            guardUniverse("enumerate", 5*valueSize),
		"zip":                  guardUniverse("zip", 4*valueSize),
		"reversed":             guardUniverse("reversed", valueSize),
		"min":                  guardUniverse("min", 0),
		"max":                  guardUniverse("max", 0),
		"any":                  guardUniverse("any", 0),
		"all":                  guardUniverse("all", 0),
		"hash":                 guardUniverse("hash", 0),
		"int":                  guardUniverse("int", 0),
		"float":                guardUniverse("float", 0),
		"ord":                  guardUniverse("ord", 0),
		"bytes":                guardUniverse("bytes", 1),
		"str":                  guardText("str"),
		"repr":                 guardText("repr"),
		"print":                guardPrint("print"),
		"fail":                 guardPrint("fail"),
	}
	for op := range opNames {
		d[guardPrefix+opNames[op]] = guardBinary(op)
	}
	return d
}()
