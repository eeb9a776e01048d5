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
//     and concatenation (x * n, x + y, and their augmented forms), string
//     formatting (%, .format), str.replace and str.join, str() and repr(),
//     and the constructors that preallocate from their argument's length
//     (list, tuple, dict, set, sorted, enumerate, zip). The source is
//     rewritten before it is compiled so that the operators go through a
//     check; the results are the same.
//   - Growth made of many small steps (a loop appending) is measured: a
//     watcher samples the process's heap while the run lasts and cancels
//     every thread of the run when the heap has grown by more than the
//     budget (after a garbage collection confirms it).
//
// Either way the run stops with the file and line where it was.

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

// textSize estimates how long str() or repr() of v is, stopping once it is
// past limit. Shared and nested values count each time they are printed, as
// they are.
func textSize(v sl.Value, limit int64) int64 {
	var n int64
	var walk func(v sl.Value, depth int)
	walk = func(v sl.Value, depth int) {
		if n > limit || depth > 64 {
			n += 8
			return
		}
		switch x := v.(type) {
		case sl.String:
			n += int64(len(x)) + 2
		case sl.Bytes:
			n += int64(len(x))*4 + 3
		case *sl.Dict:
			for _, it := range x.Items() {
				walk(it[0], depth+1)
				walk(it[1], depth+1)
				n += 4
				if n > limit {
					return
				}
			}
		case sl.Iterable:
			if _, lazy := x.(sl.Sequence); !lazy {
				n += 16
				return
			}
			it := x.Iterate()
			defer it.Done()
			var e sl.Value
			for it.Next(&e) {
				walk(e, depth+1)
				n += 2
				if n > limit {
					return
				}
			}
		default:
			n += 24
		}
	}
	walk(v, 0)
	return n
}

// checkBinary checks x op y before it runs.
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
		n, ok := c.Int64()
		if !ok {
			n = 1 << 62
		}
		if n <= 1 {
			return nil
		}
		per := sizeOf(seq)
		if per == 0 {
			return nil
		}
		total := per * n
		if total/n != per { // overflow
			total = 1 << 62
		}
		return m.reserve(total, fmt.Sprintf("repeating a %s %d times", seq.Type(), n))
	case syntax.PLUS:
		return m.reserve(sizeOf(x)+sizeOf(y), fmt.Sprintf("%s + %s", x.Type(), y.Type()))
	case syntax.PERCENT:
		f, ok := x.(sl.String)
		if !ok {
			return nil
		}
		left := m.budget
		est := int64(len(f)) + textSize(y, left)
		if t, ok := y.(sl.Tuple); ok {
			est = int64(len(f))
			for _, e := range t {
				est += textSize(e, left)
			}
		}
		return m.reserve(est, "formatting a string with %")
	}
	return nil
}

// Names of the builtins the rewritten source calls. A file that uses a name
// with this prefix is refused, so that none can be shadowed.
const guardPrefix = "_cudapkgs_"

var opNames = map[syntax.Token]string{syntax.STAR: "mul", syntax.PLUS: "add", syntax.PERCENT: "mod"}

func guardBinary(op syntax.Token) *sl.Builtin {
	return sl.NewBuiltin(guardPrefix+opNames[op], func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		if err := checkBinary(memOf(th), op, args[0], args[1]); err != nil {
			return nil, err
		}
		return sl.Binary(op, args[0], args[1])
	})
}

// guardAugmented checks x op= y for a name x: it returns y, and the
// assignment then runs as written (a list's += still extends it in place).
func guardAugmented(op syntax.Token) *sl.Builtin {
	return sl.NewBuiltin(guardPrefix+"aug"+opNames[op], func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		if err := checkBinary(memOf(th), op, args[0], args[1]); err != nil {
			return nil, err
		}
		return args[1], nil
	})
}

// guardedString wraps a string whose method is about to be called, so that
// replace, join and format check their result's size first.
type guardedString struct{ s sl.String }

func (g guardedString) String() string        { return g.s.String() }
func (g guardedString) Type() string          { return g.s.Type() }
func (g guardedString) Freeze()               {}
func (g guardedString) Truth() sl.Bool        { return g.s.Truth() }
func (g guardedString) Hash() (uint32, error) { return g.s.Hash() }
func (g guardedString) AttrNames() []string   { return g.s.AttrNames() }

func (g guardedString) Attr(name string) (sl.Value, error) {
	m, err := g.s.Attr(name)
	if err != nil || m == nil {
		return m, err
	}
	inner := m.(sl.Callable)
	s := g.s
	return sl.NewBuiltin(name, func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		mem := memOf(th)
		switch name {
		case "replace":
			if len(args) >= 2 {
				old, ok1 := args[0].(sl.String)
				repl, ok2 := args[1].(sl.String)
				if ok1 && ok2 && len(repl) > len(old) {
					count := int64(len(s)) + 1
					if len(old) > 0 {
						count = int64(strings.Count(string(s), string(old)))
					}
					if err := mem.reserve(int64(len(s))+count*int64(len(repl)-len(old)), "str.replace"); err != nil {
						return nil, err
					}
				}
			}
		case "join":
			if len(args) == 1 {
				if l := sl.Len(args[0]); l > 1 {
					if err := mem.reserve(int64(l-1)*int64(len(s)), "str.join"); err != nil {
						return nil, err
					}
				}
			}
		case "format":
			fields := int64(strings.Count(string(s), "{"))
			var most int64
			for _, a := range args {
				most = max(most, textSize(a, mem.budget))
			}
			for _, kv := range kwargs {
				most = max(most, textSize(kv[1], mem.budget))
			}
			if fields > 0 {
				if err := mem.reserve(int64(len(s))+fields*most, "str.format"); err != nil {
					return nil, err
				}
			}
		}
		return sl.Call(th, inner, args, kwargs)
	}), nil
}

var receiver = sl.NewBuiltin(guardPrefix+"recv", func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	if s, ok := args[0].(sl.String); ok {
		return guardedString{s}, nil
	}
	return args[0], nil
})

// guardedMethods are the string methods whose result can be far larger than
// their inputs.
var guardedMethods = map[string]bool{"replace": true, "join": true, "format": true}

// guardConstructor wraps a universe builtin that preallocates from its
// argument's length.
func guardConstructor(name string, perElem int64) *sl.Builtin {
	inner := sl.Universe[name].(*sl.Builtin)
	return sl.NewBuiltin(name, func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		var n int64
		for _, a := range args {
			if l := sl.Len(a); l > 0 {
				n = max(n, int64(l))
			}
		}
		if err := memOf(th).reserve(n*perElem, fmt.Sprintf("%s() of %d elements", name, n)); err != nil {
			return nil, err
		}
		return sl.Call(th, inner, args, kwargs)
	})
}

func guardText(name string) *sl.Builtin {
	inner := sl.Universe[name].(*sl.Builtin)
	return sl.NewBuiltin(name, func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		if mem := memOf(th); mem != nil && len(args) == 1 {
			if _, isStr := args[0].(sl.String); !isStr {
				if err := mem.reserve(textSize(args[0], mem.budget), name+"()"); err != nil {
					return nil, err
				}
			}
		}
		return sl.Call(th, inner, args, kwargs)
	})
}

// memoryBuiltins are added to every module's predeclared names.
var memoryBuiltins = sl.StringDict{
	guardPrefix + "mul":    guardBinary(syntax.STAR),
	guardPrefix + "add":    guardBinary(syntax.PLUS),
	guardPrefix + "mod":    guardBinary(syntax.PERCENT),
	guardPrefix + "augmul": guardAugmented(syntax.STAR),
	guardPrefix + "augadd": guardAugmented(syntax.PLUS),
	guardPrefix + "recv":   receiver,
	"list":                 guardConstructor("list", valueSize),
	"tuple":                guardConstructor("tuple", valueSize),
	"sorted":               guardConstructor("sorted", valueSize),
	"dict":                 guardConstructor("dict", 4*valueSize),
	"set":                  guardConstructor("set", 4*valueSize),
	"enumerate":            guardConstructor("enumerate", 5*valueSize),
	"zip":                  guardConstructor("zip", 4*valueSize),
	"str":                  guardText("str"),
	"repr":                 guardText("repr"),
}
