package starlark

import (
	"strings"

	sl "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// Printing a value (str, repr, print, fail, % and .format) is done here
// rather than by go.starlark.net, whose printer checks for cycles by
// scanning the path from the root at each list and dict: quadratic in the
// nesting depth (str() of a list nested a million levels deep ran for
// minutes), recursive in Go (a deep enough value overflows the goroutine's
// stack) and deaf to cancellation. This printer writes the same text,
// keeps the lists and dicts on the path in a map, walks with a stack of its
// own, charges its work to the step budget and the text to the memory
// budget as it goes, and stops when the run is cancelled.

// bytesPerStep is how many bytes of copying, hashing or comparing cost as
// much as one interpreter step, for charging builtins' work to the step
// budget.
const bytesPerStep = 32

// renderCheckEvery is how many values the printer writes between checks of
// the budgets and of cancellation.
const renderCheckEvery = 1 << 12

// renderer prints values of one run.
type renderer struct {
	th   *sl.Thread
	r    *run
	what string // the operation, for messages ("str()")
	b    strings.Builder
	// counting: the first pass, which only counts the text's size.
	counting bool
	size     int64
	// transient is the most a step of the writing pass allocates
	// besides the text.
	transient int64
	onPath    map[sl.Value]int // lists and dicts being printed, as in go.starlark.net's path
	nodes     int64
	charge    int64 // work already charged
}

type renderFrame struct {
	v      sl.Value   // the list or dict this frame prints
	inPath bool       // whether v is counted in onPath now
	elems  []sl.Value // what is left to print; nil entries are separators in sep
	list   *sl.List   // a list is printed by index, without a copy
	i      int
	names  []string // struct field names, parallel to elems
	dict   bool     // elems alternate key, value
	close  string
	single bool // a tuple of one: "(x,)"
}

// render returns what str(v) (quote false) or repr(v) (quote true) is. It
// prints twice: first counting (charging the work, refusing text past the
// memory budget before any of it is allocated, stopping on cancellation),
// then writing into a buffer of the size counted.
func render(th *sl.Thread, v sl.Value, quote bool, what string) (string, error) {
	if s, ok := v.(sl.String); ok && !quote {
		return string(s), nil
	}
	rd := &renderer{th: th, what: what, r: runOf(th), counting: true}
	if err := rd.write(v); err != nil {
		return "", err
	}
	if err := rd.check(); err != nil {
		return "", err
	}
	size := rd.size
	if rd.r != nil {
		if err := rd.r.mem.reserve(size+rd.transient, what); err != nil {
			return "", err
		}
	}
	rd = &renderer{th: th, what: what}
	rd.b.Grow(int(size))
	if err := rd.write(v); err != nil {
		return "", err
	}
	return rd.b.String(), nil
}

// check charges the work counted since the last check, refuses text past
// the memory budget and stops when the run is cancelled.
func (rd *renderer) check() error {
	if rd.r == nil || !rd.counting {
		return nil
	}
	if err := rd.r.stopped(); err != nil {
		return err
	}
	work := rd.nodes + rd.size/bytesPerStep
	if err := rd.r.chargeWork(rd.th, work-rd.charge, rd.what); err != nil {
		return err
	}
	rd.charge = work
	return rd.r.mem.reserve(rd.size, rd.what)
}

func (rd *renderer) text(s string) error {
	if rd.counting {
		rd.size += int64(len(s))
		return nil
	}
	rd.b.WriteString(s)
	return nil
}

// write prints v, as go.starlark.net's writeValue does.
func (rd *renderer) write(v sl.Value) error {
	var stack []*renderFrame
	for {
		rd.nodes++
		if rd.nodes%renderCheckEvery == 0 {
			if err := rd.check(); err != nil {
				return err
			}
		}
		f, err := rd.open(v)
		if err != nil {
			return err
		}
		if f != nil {
			stack = append(stack, f)
		}
		// Find the next value to print: close what is finished.
		for {
			if len(stack) == 0 {
				return nil
			}
			top := stack[len(stack)-1]
			next, ok, err := rd.next(top)
			if err != nil {
				return err
			}
			if ok {
				v = next
				break
			}
			if err := rd.text(top.close); err != nil {
				return err
			}
			rd.leave(top)
			stack = stack[:len(stack)-1]
		}
	}
}

// next writes the separator before a container's next element and returns
// it; false when the container is finished.
func (rd *renderer) next(f *renderFrame) (sl.Value, bool, error) {
	n := len(f.elems)
	if f.list != nil {
		n = f.list.Len()
	}
	if f.i >= n {
		if f.single {
			return nil, false, rd.text(",")
		}
		return nil, false, nil
	}
	i := f.i
	f.i++
	sep := ", "
	switch {
	case f.dict && i%2 == 1:
		sep = ": "
	case f.names != nil:
		sep = ", " + f.names[i] + " = "
		if i == 0 {
			sep = f.names[i] + " = "
		}
	case i == 0:
		sep = ""
	}
	if err := rd.text(sep); err != nil {
		return nil, false, err
	}
	if f.list != nil {
		return f.list.Index(i), true, nil
	}
	// A dict's keys are printed with the path as it was outside the
	// dict, its values inside it.
	if f.dict && i%2 == 0 {
		rd.leave(f)
	} else if f.dict {
		rd.enter(f)
	}
	return f.elems[i], true, nil
}

// open prints a leaf, or the opening of a container and returns its frame.
func (rd *renderer) open(v sl.Value) (*renderFrame, error) {
	switch x := v.(type) {
	case nil:
		return nil, rd.text("<nil>")
	case sl.String:
		n := quotedLen(string(x))
		switch {
		case rd.counting:
			rd.nodes += int64(len(x)) / bytesPerStep
			rd.size += int64(n)
			if n != len(x)+2 {
				// syntax.Quote's own buffer, doubling.
				rd.transient = max(rd.transient, 2*int64(n))
			}
		case n == len(x)+2:
			// Nothing to escape: no copy.
			rd.b.WriteByte('"')
			rd.b.WriteString(string(x))
			rd.b.WriteByte('"')
		default:
			rd.b.WriteString(syntax.Quote(string(x), false))
		}
		return nil, nil
	case sl.Int:
		if !rd.counting {
			return nil, rd.text(x.String())
		}
		if err := rd.intWork(x); err != nil {
			return nil, err
		}
		rd.size += intWords(x)*20 + 1 // decimal digits of 64 bits, and a sign
		return nil, nil
	case *sl.List:
		if rd.onPath[x] > 0 {
			return nil, rd.text("[...]")
		}
		f := &renderFrame{v: x, list: x, close: "]"}
		rd.enter(f)
		return f, rd.text("[")
	case sl.Tuple:
		return &renderFrame{elems: x, close: ")", single: len(x) == 1}, rd.text("(")
	case *sl.Dict:
		if rd.onPath[x] > 0 {
			return nil, rd.text("{...}")
		}
		// Keys print outside the path, values inside: next adjusts it
		// per element; the frame's end removes the last value's entry.
		elems := make([]sl.Value, 0, 2*x.Len())
		for k, v := range x.Entries() {
			elems = append(elems, k, v)
		}
		rd.nodes += int64(len(elems))
		return &renderFrame{v: x, elems: elems, dict: true, close: "}"}, rd.text("{")
	case *sl.Set:
		elems := make([]sl.Value, 0, x.Len())
		for e := range x.Elements() {
			elems = append(elems, e)
		}
		rd.nodes += int64(len(elems))
		return &renderFrame{elems: elems, close: "])"}, rd.text("set([")
	case *starlarkstruct.Struct:
		names := x.AttrNames()
		elems := make([]sl.Value, len(names))
		for i, n := range names {
			e, err := x.Attr(n)
			if err != nil {
				return nil, err
			}
			elems[i] = e
		}
		rd.nodes += int64(len(elems))
		ctor := x.Constructor().String()
		if c, ok := x.Constructor().(sl.String); ok {
			ctor = string(c)
		}
		if len(elems) == 0 {
			return nil, rd.text(ctor + "()")
		}
		return &renderFrame{elems: elems, names: names, close: ")"}, rd.text(ctor + "(")
	}
	// Every other value prints itself, shortly: functions, builtins,
	// ranges, modules, numbers, None, booleans.
	return nil, rd.text(v.String())
}

// enter puts a frame's list or dict on the path.
func (rd *renderer) enter(f *renderFrame) {
	if f.inPath {
		return
	}
	if rd.onPath == nil {
		rd.onPath = map[sl.Value]int{}
	}
	rd.onPath[f.v]++
	f.inPath = true
}

// leave takes a frame's list or dict off the path.
func (rd *renderer) leave(f *renderFrame) {
	if !f.inPath {
		return
	}
	if rd.onPath[f.v]--; rd.onPath[f.v] == 0 {
		delete(rd.onPath, f.v)
	}
	f.inPath = false
}

// intWork charges printing a big integer in decimal, which is worse than
// linear in its length.
func (rd *renderer) intWork(x sl.Int) error {
	if rd.r == nil {
		return nil
	}
	words := intWords(x)
	if words == 1 {
		return nil
	}
	return rd.r.chargeWork(rd.th, words*words/64, rd.what+" of an integer")
}

// quotedLen bounds the length of syntax.Quote(s, false): exact for
// printable ASCII, four bytes for every other byte (\xNN; a valid
// multibyte character takes no more).
func quotedLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			n += 2
		case c >= 0x20 && c < 0x7f:
			n++
		default:
			n += 4
		}
	}
	return n
}

// printed stands, in an argument of %, .format, print or fail, for a
// container that this package has already printed: go.starlark.net writes
// a value it does not know with its String method, and the type name stays
// the original's for error messages.
type printed struct {
	orig sl.Value
	text string
}

func (p printed) String() string        { return p.text }
func (p printed) Type() string          { return p.orig.Type() }
func (p printed) Freeze()               {}
func (p printed) Truth() sl.Bool        { return p.orig.Truth() }
func (p printed) Hash() (uint32, error) { return p.orig.Hash() }

// printable returns v for go.starlark.net's printing: containers printed
// by render (go.starlark.net would print them itself, see above), the rest
// as they are.
func printable(th *sl.Thread, v sl.Value, what string) (sl.Value, error) {
	switch v.(type) {
	case *sl.List, sl.Tuple, *sl.Dict, *sl.Set, *starlarkstruct.Struct:
	case sl.Int:
		if intWords(v.(sl.Int)) == 1 {
			return v, nil
		}
		// The conversion is charged, and then done again by
		// go.starlark.net: cheaper than a copy of its formatting.
		if r, ok := th.Local(localRun).(*run); ok {
			rd := &renderer{th: th, r: r, what: what}
			if err := rd.intWork(v.(sl.Int)); err != nil {
				return nil, err
			}
		}
		return v, nil
	default:
		return v, nil
	}
	text, err := render(th, v, true, what)
	if err != nil {
		return nil, err
	}
	return printed{v, text}, nil
}

// printableArgs applies printable to each argument.
func printableArgs(th *sl.Thread, args sl.Tuple, what string) (sl.Tuple, error) {
	out := args
	for i, a := range args {
		p, err := printable(th, a, what)
		if err != nil {
			return nil, err
		}
		if p != a {
			if &out[0] == &args[0] {
				out = append(sl.Tuple(nil), args...)
			}
			out[i] = p
		}
	}
	return out, nil
}

// printableKwargs applies printable to each keyword argument's value.
func printableKwargs(th *sl.Thread, kwargs []sl.Tuple, what string) ([]sl.Tuple, error) {
	out := make([]sl.Tuple, len(kwargs))
	for i, kv := range kwargs {
		p, err := printable(th, kv[1], what)
		if err != nil {
			return nil, err
		}
		out[i] = sl.Tuple{kv[0], p}
	}
	return out, nil
}

// printableMapping copies a dict for "%(name)s" % d with its values made
// printable.
func printableMapping(th *sl.Thread, d *sl.Dict, what string) (*sl.Dict, error) {
	out := sl.NewDict(d.Len())
	for k, v := range d.Entries() {
		p, err := printable(th, v, what)
		if err != nil {
			return nil, err
		}
		if err := out.SetKey(k, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}
