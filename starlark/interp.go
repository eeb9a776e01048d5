// Package starlark is stage 5 of the pipeline: the user's Starlark code. It
// evaluates the configuration file (cudapkgs.star), whose builtins set the
// options of the evaluated configuration and declare overrides; applies the
// overrides to the package sets; and answers read-only queries and scripts
// over the sets.
//
// Every evaluation is a run: one step budget and one cancellation shared by
// every thread of the run (the file's, those of the modules it loads, and the
// thread that calls override functions), so that a runaway loop anywhere is
// stopped. The sandbox offers nothing beyond the Starlark language, load()
// of .star files inside the workspace and this package's builtins: no file,
// network, clock or random access.
package starlark

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"go.starlark.net/resolve"
	sl "go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/cudapkgs/cudapkgs/core/inputfile"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/internal/quietstarlark"
)

// go.starlark.net/starlark has been initialized, and its start-up log line
// dropped (see quietstarlark): the standard logger writes as before.
func init() { quietstarlark.Restore() }

// DefaultConfigFile is the configuration file's name at the workspace root.
const DefaultConfigFile = "cudapkgs.star"

// DefaultMaxSteps is the step budget of one run when Interp.MaxSteps is zero:
// far more than any configuration or query needs (evaluating a realistic
// configuration takes a few thousand steps), far less than a runaway loop
// would use before anyone notices.
const DefaultMaxSteps = 50_000_000

// Interp evaluates Starlark files of one workspace. It holds no state between
// runs, so one Interp may serve concurrent runs.
type Interp struct {
	root string // absolute, symlinks resolved

	// MaxSteps is the step budget shared by every thread of one run
	// (DefaultMaxSteps when zero).
	MaxSteps uint64
	// MaxMemory is the memory budget of one run, in bytes
	// (DefaultMaxMemory when zero); see memory.go.
	MaxMemory int64
	// MaxMemoryName is how the caller's users set MaxMemory
	// (--starlark-memory), named in the message of an exhausted budget;
	// "" names none.
	MaxMemoryName string
	// limits reads what the process can get (processLimits when nil;
	// tests set it).
	limits func() memoryLimit
	// Print receives print() calls with the caller's position; nil discards
	// them (results stay deterministic whatever the code prints).
	Print func(pos, msg string)
}

// NewInterp returns an interpreter for the workspace at root: load() only
// reads .star files under it.
func NewInterp(root string) (*Interp, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	return &Interp{root: real}, nil
}

// Root is the workspace root, absolute.
func (in *Interp) Root() string { return in.root }

// fileOptions is the dialect: sets allowed, if/for at top level allowed (so a
// configuration can loop over versions), no while, no reassignment of
// globals, no recursion.
var fileOptions = &syntax.FileOptions{
	Set:             true,
	TopLevelControl: true,
}

const budgetReason = "step budget exhausted"

// run is one evaluation: its budget, its cancellation, its module cache.
type run struct {
	in       *Interp
	file     *File         // what configuration builtins record into
	sets     []*pkgset.Set // what the cuda module reads; nil while configuring
	budget   uint64
	modules  map[string]*module
	chain    []string // modules being loaded, outermost first
	mu       sync.Mutex
	used     uint64
	threads  map[*sl.Thread]uint64 // live threads and the steps already charged
	canceled string
	stop     func() bool
	ctx      context.Context
	mem      *memory
}

type module struct {
	globals sl.StringDict
	err     error
}

const (
	localRun    = "cudapkgs.run"
	localModule = "cudapkgs.module"
)

func (in *Interp) newRun(ctx context.Context, f *File, sets []*pkgset.Set) *run {
	r := &run{in: in, file: f, sets: sets, budget: in.MaxSteps, modules: map[string]*module{},
		threads: map[*sl.Thread]uint64{}, ctx: ctx}
	if r.budget == 0 {
		r.budget = DefaultMaxSteps
	}
	if err := ctx.Err(); err != nil {
		r.canceled = context.Cause(ctx).Error()
	}
	r.stop = context.AfterFunc(ctx, func() { r.cancel(context.Cause(ctx).Error()) })
	budget := in.MaxMemory
	if budget <= 0 {
		budget = DefaultMaxMemory
	}
	setting := in.MaxMemoryName
	limits := processLimits
	if in.limits != nil {
		limits = in.limits
	}
	if l := limits(); l.budgetWithin(budget) < budget {
		configured := byteSize(budget)
		if setting != "" {
			configured += " " + setting
		}
		budget = l.budgetWithin(budget)
		setting = fmt.Sprintf("lowered from %s: %s leaves %s to this process", configured, l.what, byteSize(l.avail))
	}
	r.watchMemory(budget, setting)
	return r
}

func (r *run) close() {
	r.stop()
	if r.mem != nil {
		r.mem.stop()
	}
}

func (r *run) cancel(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.canceled == "" {
		r.canceled = reason
	}
	for th := range r.threads {
		th.Cancel(reason)
	}
}

// thread starts a thread of the run, in module (a workspace-relative name).
func (r *run) thread(module string) *sl.Thread {
	th := &sl.Thread{Name: module, Load: r.load}
	th.Print = func(th *sl.Thread, msg string) {
		if r.in.Print != nil {
			r.in.Print(th.CallFrame(1).Pos.String(), msg)
		}
	}
	th.OnMaxSteps = func(th *sl.Thread) {
		th.Cancel(fmt.Sprintf("%s (%d steps)", budgetReason, r.budget))
	}
	th.SetLocal(localRun, r)
	th.SetLocal(localModule, module)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.threads[th] = 0
	r.limit(th)
	if r.canceled != "" {
		th.Cancel(r.canceled)
	}
	return th
}

// limit gives a thread what is left of the budget. Called with mu held.
func (r *run) limit(th *sl.Thread) {
	left := r.budget - r.used
	if left == 0 {
		th.Cancel(fmt.Sprintf("%s (%d steps)", budgetReason, r.budget))
		left = 1
	}
	th.SetMaxExecutionSteps(th.ExecutionSteps() + left)
}

// charge counts a thread's steps since it was last charged. Called with mu held.
func (r *run) charge(th *sl.Thread) {
	steps := th.ExecutionSteps()
	r.used += steps - r.threads[th]
	if r.used > r.budget {
		r.used = r.budget
	}
	r.threads[th] = steps
}

// done charges a thread's steps and forgets it.
func (r *run) done(th *sl.Thread) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.charge(th)
	delete(r.threads, th)
}

// load is every thread's load(): it resolves the module, evaluates it once
// per run (in a thread of its own, on the run's budget) and caches it.
func (r *run) load(th *sl.Thread, name string) (sl.StringDict, error) {
	from, _ := th.Local(localModule).(string)
	mod, abs, err := r.resolve(from, name)
	if err != nil {
		return nil, err
	}
	if m, ok := r.modules[mod]; ok {
		if m == nil {
			return nil, fmt.Errorf("cycle: %s -> %s", strings.Join(r.chain, " -> "), mod)
		}
		return m.globals, m.err
	}
	// The loading thread is paused while the module runs: charge it now and
	// give it what the module leaves afterwards.
	r.mu.Lock()
	r.charge(th)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.charge(th)
		r.limit(th)
		r.mu.Unlock()
	}()
	src, err := inputfile.Read(r.ctx, abs, inputfile.Starlark)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", mod, err)
	}
	r.modules[mod] = nil // loading: seeing it again is a cycle
	globals, err := r.exec(mod, src)
	r.modules[mod] = &module{globals, err}
	return globals, err
}

// exec runs a module's source in a new thread of the run.
func (r *run) exec(mod string, src []byte) (sl.StringDict, error) {
	r.chain = append(r.chain, mod)
	defer func() { r.chain = r.chain[:len(r.chain)-1] }()
	if r.file != nil {
		r.file.Modules = append(r.file.Modules, mod)
	}
	th := r.thread(mod)
	defer r.done(th)
	if err := checkDigits(mod, src); err != nil {
		return nil, err
	}
	f, err := fileOptions.Parse(mod, src, 0)
	if err != nil {
		return nil, err
	}
	g := &guardSyntax{}
	g.stmts(f.Stmts)
	if g.err != nil {
		return nil, g.err
	}
	env := predeclared()
	prog, err := sl.FileProgram(f, env.Has)
	if err != nil {
		return nil, err
	}
	globals, err := prog.Init(th, env)
	globals.Freeze()
	return globals, err
}

// resolve turns a load() argument into a workspace-relative module name and
// a path on disk. Labels: "//pkg/path:file.star" from the workspace root,
// ":file.star" and plain relative paths ("policy.star", "../x/y.star") from
// the loading file's folder.
func (r *run) resolve(from, name string) (mod, abs string, err error) {
	var rel string
	switch {
	case strings.HasPrefix(name, "@"):
		return "", "", fmt.Errorf("%q: external repositories cannot be loaded: expected //path/to/package:file.star or a path relative to %s", name, from)
	case strings.HasPrefix(name, "//"):
		pkg, file, ok := strings.Cut(name[2:], ":")
		if !ok {
			return "", "", fmt.Errorf("%q: expected a label //path/to/package:file.star", name)
		}
		rel = path.Join(pkg, file)
	case strings.HasPrefix(name, "/") || filepath.IsAbs(name):
		return "", "", fmt.Errorf("%q: absolute paths cannot be loaded: expected //path/to/package:file.star or a path relative to %s", name, from)
	default:
		base := path.Dir(from)
		if outside(from) {
			base = "."
		}
		rel = path.Join(base, strings.TrimPrefix(name, ":"))
	}
	if !strings.HasSuffix(rel, ".star") {
		return "", "", fmt.Errorf("%q: only .star files can be loaded", name)
	}
	rel = path.Clean(rel)
	if outside(rel) {
		return "", "", fmt.Errorf("%q: %s is outside the workspace %s: load() reads only files inside it", name, rel, r.in.root)
	}
	abs = filepath.Join(r.in.root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", fmt.Errorf("%q: no file %s in the workspace", name, rel)
	}
	if inside, _ := filepath.Rel(r.in.root, real); outside(filepath.ToSlash(inside)) {
		return "", "", fmt.Errorf("%q: %s leads outside the workspace %s (a symbolic link): load() reads only files inside it", name, rel, r.in.root)
	}
	return rel, real, nil
}

func outside(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel)
}

// moduleName is how a top-level file is named in positions: relative to the
// workspace when inside it (as modules it loads are), else as given.
func (in *Interp) moduleName(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if rel, err := filepath.Rel(in.root, abs); err == nil && !outside(filepath.ToSlash(rel)) {
		return filepath.ToSlash(rel), nil
	}
	return file, nil
}

// evalTop runs a top-level file: it is a module of the run like any other.
func (r *run) evalTop(file string) (sl.StringDict, error) {
	mod, err := r.in.moduleName(file)
	if err != nil {
		return nil, err
	}
	src, err := inputfile.Read(r.ctx, file, inputfile.Starlark)
	if err != nil {
		return nil, err
	}
	r.modules[mod] = nil
	globals, err := r.exec(mod, src)
	r.modules[mod] = &module{globals, err}
	return globals, err
}

// FormatError renders an error of this package for a person: the position
// and message first ("file:line:col: message"), then, for evaluation errors,
// the backtrace across loads, then the context the error was met in.
func FormatError(err error) string {
	if err == nil {
		return ""
	}
	var evals []*sl.EvalError
	var notes []string
	var last error
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch x := e.(type) {
		case *sl.EvalError:
			evals = append(evals, x)
		case *contextError:
			notes = append(notes, x.context)
		}
		last = e
	}
	var b strings.Builder
	switch x := last.(type) {
	case syntax.Error:
		b.WriteString(x.Error())
	case *syntax.Error:
		b.WriteString(x.Error())
	default:
		var list resolve.ErrorList
		if errors.As(last, &list) {
			for i, e := range list {
				if i > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "%s: %s", e.Pos, e.Msg)
			}
			break
		}
		if len(evals) == 0 {
			b.WriteString(err.Error())
			return b.String()
		}
		deep := evals[len(evals)-1]
		fmt.Fprintf(&b, "%s: %s", errorPos(deep), deep.Msg)
	}
	if len(evals) > 0 {
		b.WriteString("\nTraceback (most recent call last):")
		for _, e := range evals {
			for _, fr := range e.CallStack {
				fmt.Fprintf(&b, "\n  %s: in %s", fr.Pos, fr.Name)
			}
		}
	}
	for i := len(notes) - 1; i >= 0; i-- {
		b.WriteString("\nnote: " + notes[i])
	}
	return b.String()
}

// errorPos is where an evaluation error happened in the user's code: the
// innermost frame that is not a builtin.
func errorPos(e *sl.EvalError) string {
	for i := len(e.CallStack) - 1; i >= 0; i-- {
		if p := e.CallStack[i].Pos; p.Filename() != "<builtin>" {
			return p.String()
		}
	}
	return "<unknown>"
}

// contextError adds where an error was met (an override, a package) without
// hiding the evaluation error it wraps from FormatError.
type contextError struct {
	context string
	err     error
}

func (e *contextError) Error() string { return e.context + ": " + e.err.Error() }
func (e *contextError) Unwrap() error { return e.err }
