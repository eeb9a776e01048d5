package starlark

import (
	"context"
	"fmt"
	"iter"
	"math/bits"
	"strings"

	sl "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// The step budget counts interpreter steps, and go.starlark.net counts
// nothing inside a builtin: one step may sort a million elements, search a
// gigabyte, or print a value nested a million levels deep, and neither the
// budget nor a cancellation stops it before it returns. So the operations
// whose work grows with their operands charge that work to the step budget
// before they run (one step per element touched, per bytesPerStep bytes
// copied, hashed or compared; n·log n comparisons for a sort), and are
// refused when the budget has not that much left. Their operands are
// reached the way the memory budget reaches them (memory.go): the universe
// builtins are wrapped, the operators and the methods named in
// workMethods are rewritten into calls of this package's builtins. One
// operation therefore runs at most as long as the steps the run has left
// (the default budget is about a second of such work), and a cancellation
// takes effect after it; printing, the one walk that can be quadratic,
// also stops on a cancellation (render.go).

// cancelledError is what an operation stopped by the run's cancellation
// returns: the message of a thread cancelled between steps.
func cancelledError(reason string) error {
	//lint:ignore ST1005 go.starlark.net's own message, capital included
	return fmt.Errorf("Starlark computation cancelled: %s", reason)
}

// stopped is the run's cancellation, if it has been cancelled (by its
// context, the memory watcher or a spent budget).
func (r *run) stopped() error {
	if err := r.ctx.Err(); err != nil {
		return cancelledError(context.Cause(r.ctx).Error())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.canceled != "" {
		return cancelledError(r.canceled)
	}
	return nil
}

// chargeWork charges the work of one operation, units steps, to the run's
// step budget; an error, naming the operation, when the budget has not
// that much left.
func (r *run) chargeWork(th *sl.Thread, units int64, what string) error {
	if units <= 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.charge(th)
	left := r.budget - r.used
	if uint64(units) > left {
		return &budgetError{fmt.Sprintf("%s (%d steps): %s would take %d steps, and the run has %d left", budgetReason, r.budget, what, units, left)}
	}
	r.used += uint64(units)
	r.threads[th] = th.ExecutionSteps()
	r.limit(th)
	return nil
}

// stepsLeft is what the run's step budget has left for th.
func (r *run) stepsLeft(th *sl.Thread) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.charge(th)
	return int64(min(r.budget-r.used, 1<<62))
}

// budgetError is a spent budget (steps, or the integer cap) met by an
// operation before it ran.
type budgetError struct{ msg string }

func (e *budgetError) Error() string { return e.msg }

func runOf(th *sl.Thread) *run {
	r, _ := th.Local(localRun).(*run)
	return r
}

// maxIntDigits is how many decimal digits make maxIntBits, about (a sign,
// a prefix and leading zeros aside).
const maxIntDigits = maxIntBits*30103/100000 + 2

// smallWork is the work below which an operation is not charged (it is
// part of the step that does it), and the bound of the first, cheap,
// estimate of an operation's work.
const smallWork = 256

// chargeBuiltin charges the work of a builtin or method call: a first
// estimate bounded by smallWork, and, past it, one bounded by what the
// budget has left.
func chargeBuiltin(th *sl.Thread, recv sl.Value, name string, args sl.Tuple, kwargs []sl.Tuple) error {
	r := runOf(th)
	if r == nil {
		return nil
	}
	units, err := builtinWork(recv, name, args, kwargs, smallWork)
	if err != nil || units <= smallWork {
		return err
	}
	if units, err = builtinWork(recv, name, args, kwargs, r.stepsLeft(th)); err != nil {
		return err
	}
	what := name + "()"
	if recv != nil {
		what = methodName(recv, name)
	}
	return r.chargeWork(th, units, what)
}

// weight estimates the work of traversing v (hashing it, comparing it with
// an equal value): one step per value plus its bytes, down to maxDepth
// levels (go.starlark.net compares down to sl.CompareLimit levels and
// hashes tuples all the way down). It stops once past limit.
func weight(v sl.Value, maxDepth int, limit int64) int64 {
	// A frame walks a list or tuple by index, other containers through
	// an iterator (iter.Pull: dear, so not for the common ones).
	type frame struct {
		seq   sl.Indexable
		i     int
		next  func() (sl.Value, bool)
		stop  func()
		depth int
	}
	var n int64
	var stack []frame
	defer func() {
		for _, f := range stack {
			if f.stop != nil {
				f.stop()
			}
		}
	}()
	pull := func(seq iter.Seq[sl.Value], depth int) {
		next, stop := iter.Pull(seq)
		stack = append(stack, frame{next: next, stop: stop, depth: depth})
	}
	depth := 0
	for {
		n++
		switch x := v.(type) {
		case sl.String:
			n += int64(len(x)) / bytesPerStep
		case sl.Bytes:
			n += int64(len(x)) / bytesPerStep
		case sl.Int:
			n += intWords(x) * 8 / bytesPerStep
		case *sl.List:
			if depth < maxDepth && x.Len() > 0 {
				stack = append(stack, frame{seq: x, depth: depth + 1})
			}
		case sl.Tuple:
			if depth < maxDepth && len(x) > 0 {
				stack = append(stack, frame{seq: x, depth: depth + 1})
			}
		case *sl.Dict:
			if depth < maxDepth && x.Len() > 0 {
				pull(func(yield func(sl.Value) bool) {
					for k, e := range x.Entries() {
						if !yield(k) || !yield(e) {
							return
						}
					}
				}, depth+1)
			}
		case *sl.Set:
			if depth < maxDepth && x.Len() > 0 {
				pull(x.Elements(), depth+1)
			}
		case *starlarkstruct.Struct:
			if depth < maxDepth {
				names := x.AttrNames()
				pull(func(yield func(sl.Value) bool) {
					for _, name := range names {
						if e, err := x.Attr(name); err == nil && !yield(e) {
							return
						}
					}
				}, depth+1)
			}
		}
		if n > limit {
			return n
		}
		for {
			if len(stack) == 0 {
				return n
			}
			top := &stack[len(stack)-1]
			if top.seq != nil {
				if top.i < top.seq.Len() {
					v, depth = top.seq.Index(top.i), top.depth
					top.i++
					break
				}
			} else if e, ok := top.next(); ok {
				v, depth = e, top.depth
				break
			} else {
				top.stop()
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// lenOf is the length of v, 0 when it has none.
func lenOf(v sl.Value) int64 {
	if s, ok := v.(sl.String); ok {
		return int64(len(s))
	}
	return int64(max(sl.Len(v), 0))
}

// elementsWeight is the weight of an iterable's elements, stopping past
// limit; lazy iterables (range) have elements of weight one.
func elementsWeight(v sl.Value, maxDepth int, limit int64) int64 {
	switch v.(type) {
	case *sl.List, sl.Tuple, *sl.Dict, *sl.Set:
		return weight(v, maxDepth+1, limit)
	}
	return lenOf(v)
}

// compareWork is the work of comparing x and y: at most the lighter one,
// walked as deep as a comparison goes.
func compareWork(x, y sl.Value, limit int64) int64 {
	if a, ok := x.(sl.String); ok {
		if b, ok := y.(sl.String); ok {
			if len(a) != len(b) {
				return 1
			}
			return 1 + int64(len(a))/bytesPerStep
		}
		return 1
	}
	wx := weight(x, sl.CompareLimit, limit)
	return min(wx, weight(y, sl.CompareLimit, wx))
}

// containsWork is the work of x in y.
func containsWork(x, y sl.Value, limit int64) int64 {
	switch c := y.(type) {
	case sl.String:
		return 1 + (int64(len(c))+lenOf(x))/bytesPerStep
	case sl.Bytes:
		return 1 + (int64(len(c))+lenOf(x))/bytesPerStep
	case *sl.Dict, *sl.Set:
		return 2 * weight(x, 1<<30, limit) // hash, and compare on a match
	case *sl.List, sl.Tuple:
		return scanWork(x, c.(sl.Indexable), limit)
	}
	return 1
}

// scanWork is the work of comparing x with each element of seq, as in, index
// and remove do.
func scanWork(x sl.Value, seq sl.Indexable, limit int64) int64 {
	n := int64(seq.Len())
	if s, ok := x.(sl.String); ok {
		// Strings of another length compare in one step.
		for i := range seq.Len() {
			if e, ok := seq.Index(i).(sl.String); ok && len(e) == len(s) {
				n += int64(len(s)) / bytesPerStep
				if n > limit {
					break
				}
			}
		}
		return n
	}
	wx := weight(x, sl.CompareLimit, limit)
	if wx <= 2 {
		return n * wx
	}
	for i := range seq.Len() {
		n += min(wx, weight(seq.Index(i), sl.CompareLimit, wx))
		if n > limit {
			break
		}
	}
	return n
}

// log2 is ⌈log₂ n⌉, at least 1.
func log2(n int64) int64 {
	if n < 2 {
		return 1
	}
	return int64(bits.Len64(uint64(n - 1)))
}

// satMul multiplies non-negative a and b, saturating.
func satMul(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > 1<<62 {
		return 1 << 62
	}
	return int64(lo)
}

// binaryWork is the work of x op y, for the operators the rewrite routes
// through this package (rewrite.go).
func binaryWork(op syntax.Token, x, y sl.Value, limit int64) int64 {
	switch op {
	case syntax.IN, syntax.NOT_IN:
		return containsWork(x, y, limit)
	case syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE:
		return compareWork(x, y, limit)
	case syntax.PLUS, syntax.PIPE, syntax.MINUS, syntax.AMP, syntax.CIRCUMFLEX:
		if a, ok := x.(sl.Int); ok {
			if b, ok := y.(sl.Int); ok {
				return (intWords(a) + intWords(b)) / 8
			}
			return 1
		}
		// A copy of both, or a hash of each element of the right.
		return (lenOf(x) + lenOf(y)) / elemsPerStep(x)
	case syntax.STAR:
		a, aok := x.(sl.Int)
		b, bok := y.(sl.Int)
		if aok && bok {
			// Schoolbook bound: Go's Karatsuba does better.
			return satMul(intWords(a), intWords(b)) / 64
		}
		return 0 // a repetition's copy is its allocation, bounded by the memory budget
	case syntax.SLASHSLASH, syntax.PERCENT:
		a, aok := x.(sl.Int)
		b, bok := y.(sl.Int)
		if aok && bok {
			return satMul(intWords(a), intWords(b)) / 64
		}
	}
	return 0
}

// elemsPerStep is how many of v's units (bytes of a string, elements of a
// list) cost one step to copy.
func elemsPerStep(v sl.Value) int64 {
	switch v.(type) {
	case sl.String, sl.Bytes:
		return bytesPerStep
	}
	return 1
}

// intWords is the length of an integer in 64-bit words.
func intWords(x sl.Int) int64 {
	if _, ok := x.Int64(); ok {
		return 1
	}
	return int64(x.BigInt().BitLen()/64 + 1)
}

// builtinWork is the work and the memory of a call of a universe builtin
// or a method (recv is the receiver, nil for a function), before it runs.
func builtinWork(recv sl.Value, name string, args sl.Tuple, kwargs []sl.Tuple, limit int64) (units int64, err error) {
	arg := func(i int) sl.Value {
		if i < len(args) {
			return args[i]
		}
		return sl.None
	}
	switch recv := recv.(type) {
	case nil:
		switch name {
		case "sorted":
			n := lenOf(arg(0))
			return satMul(n+elementsWeight(arg(0), sl.CompareLimit, limit), log2(n)), nil
		case "min", "max":
			if len(args) == 1 {
				return lenOf(arg(0)) + elementsWeight(arg(0), sl.CompareLimit, limit), nil
			}
			var n int64
			for _, a := range args {
				n += weight(a, sl.CompareLimit, limit)
			}
			return n, nil
		case "dict", "set":
			// Hashing each key.
			var n int64
			for _, a := range args {
				n += lenOf(a) + elementsWeight(a, 1<<30, limit)
			}
			for _, kv := range kwargs {
				n += weight(kv[1], 1, limit)
			}
			return n, nil
		case "list", "tuple", "any", "all", "enumerate", "zip", "reversed":
			var n int64
			for _, a := range args {
				n += lenOf(a)
			}
			return n, nil
		case "hash", "bytes", "ord", "float":
			return lenOf(arg(0)) / bytesPerStep, nil
		case "int":
			// Decimal digits to binary: quadratic in Go's math/big.
			if s, ok := arg(0).(sl.String); ok {
				if digits := int64(len(s)); digits > maxIntDigits {
					return 0, &budgetError{fmt.Sprintf("integer too large: int() of a string of %d characters, over the limit of %d digits (%d bits)", digits, maxIntDigits, maxIntBits)}
				}
				words := int64(len(s))/19 + 1
				return words * words / 64, nil
			}
		}
		return 0, nil
	case sl.String:
		n := int64(len(recv))
		for _, a := range args {
			if s, ok := a.(sl.String); ok {
				n += int64(len(s))
			}
		}
		switch name {
		case "elems", "codepoints", "elem_ords", "codepoint_ords":
			return 0, nil // lazy: each element is a step of the loop that reads it
		case "join":
			return lenOf(arg(0)) + joinSize(recv, arg(0), satMul(limit, bytesPerStep))/bytesPerStep, nil
		}
		return n / bytesPerStep, nil
	case *sl.List:
		switch name {
		case "index", "remove":
			return scanWork(arg(0), recv, limit), nil
		case "extend":
			return lenOf(arg(0)), nil
		case "insert", "pop", "clear":
			return int64(recv.Len()), nil
		}
	case *sl.Dict:
		switch name {
		case "items", "keys", "values", "clear", "popitem":
			return int64(recv.Len()), nil
		case "update":
			var n int64
			for _, a := range args {
				n += lenOf(a) + elementsWeight(a, 1<<30, limit)
			}
			return n + int64(len(kwargs)), nil
		case "get", "pop", "setdefault":
			return weight(arg(0), 1<<30, limit), nil
		}
	case *sl.Set:
		n := int64(recv.Len())
		for _, a := range args {
			n += lenOf(a) + elementsWeight(a, 1<<30, limit)
		}
		return n, nil
	}
	return 0, nil
}

// joinSize is what sep.join(it) allocates: every element and the
// separators, the elements counted only while under limit.
func joinSize(sep sl.String, it sl.Value, limit int64) int64 {
	n := lenOf(it)
	total := max(n-1, 0) * int64(len(sep))
	if seq, ok := it.(sl.Indexable); ok {
		for i := range seq.Len() {
			if s, ok := seq.Index(i).(sl.String); ok {
				total += int64(len(s))
			}
			if total > limit {
				break
			}
		}
	} else if it, ok := it.(sl.Iterable); ok {
		iter := it.Iterate()
		defer iter.Done()
		var e sl.Value
		for iter.Next(&e) {
			if s, ok := e.(sl.String); ok {
				total += int64(len(s))
			}
			if total > limit {
				break
			}
		}
	}
	return total
}

// splitSize is what s.split/rsplit/splitlines allocates: each piece is a
// string header and a list slot.
func splitSize(s sl.String, name string, args sl.Tuple) int64 {
	pieces := int64(len(s))/2 + 1 // whitespace fields: at most one per two bytes
	switch {
	case name == "splitlines":
		pieces = int64(strings.Count(string(s), "\n")+strings.Count(string(s), "\r")) + 1
	case len(args) > 0:
		if sep, ok := args[0].(sl.String); ok && len(sep) > 0 {
			pieces = int64(strings.Count(string(s), string(sep))) + 1
		}
	}
	if len(args) > 1 {
		if m, ok := args[1].(sl.Int); ok {
			if k, ok := m.Int64(); ok && k >= 0 {
				pieces = min(pieces, k+1)
			}
		}
	}
	return pieces * 2 * valueSize
}
