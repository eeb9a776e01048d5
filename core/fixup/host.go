package fixup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cudapkgs/cudapkgs/internal/pluginhost"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Spec says how to start one plugin.
type Spec struct {
	// Name is how the plugin is called in messages until it describes itself.
	Name string
	// Command is the program and its arguments.
	Command []string
	// SHA256 is the hex sha256 the program must have. Every third-party
	// plugin has one; the built-ins have none because they are this binary.
	SHA256 string
	// Builtin marks the plugins served by this binary.
	Builtin bool
	// Self says Command[0] is this very program (BuiltinSpecs): on Linux
	// the plugin runs from the image this process was started from
	// (/proc/self/exe, opened once per Start), never from Command[0] looked
	// up again, so that a file put at that path during the run is not what
	// runs; Command[0] stays the plugin's argv[0]. Elsewhere Command[0] is
	// executed by path (docs/plugin-protocol.md). A Builtin spec without
	// Self (a test's stand-in) runs Command[0] by path.
	Self bool
	// Describe, for a built-in only, is the plugin's answer to Describe
	// given in this process: a built-in is this program's own code, so its
	// products are known without starting it. Start checks that answer as
	// it checks a started plugin's and leaves the process unstarted; Apply
	// and Call start it (in parallel with the others they need) when they
	// have a batch of one of its products, and StartAll when asked. Once
	// started, the plugin must answer Describe the same. A run that selects
	// none of its products never pays for its start (issue 25). A third
	// party's plugin has none: its products are known only from its answer.
	Describe func() sdk.Description
	// Process, for built-ins described in process only, names a process
	// that the specs with the same Process share: the first batch for any
	// of them starts it, with Command (the same in each), and it must
	// describe itself as sdk.MergeDescriptions(Process, their descriptions
	// in spec order), as sdk.Merge serves them. Each spec keeps its name
	// in messages and `plugins list`. A process start costs more CPU than
	// most runs' answers (docs/benchmarks.md, issue 25), so the built-ins
	// start as one process, not one each.
	Process string
}

// Options tune the host. Zero values mean the defaults.
type Options struct {
	// StartTimeout bounds a plugin's start: process, handshake, Describe.
	// A start that runs out of it, or whose context is cancelled, ends with
	// the plugin killed.
	StartTimeout time.Duration
	// CallTimeout bounds every Fixup call.
	CallTimeout time.Duration
	// Parallel is how many calls run at once.
	Parallel int
	// Logger receives the plugins' hclog lines; nil discards them (their
	// stderr is still kept for error messages).
	Logger hclog.Logger
	// Unfixed are products that may have no plugin: the user's own products,
	// whose files come from the configuration's overrides. Any other product
	// without a plugin is an error.
	Unfixed []string
}

const (
	defaultStartTimeout = 20 * time.Second
	defaultCallTimeout  = 30 * time.Second
	defaultParallel     = 16
	stderrTailLines     = 12
)

// Host holds the running plugins of one run: each is started once and
// serves every package set.
type Host struct {
	opts      Options
	plugins   []*running
	byProduct map[string]*running
	// shared are the processes named by Spec.Process.
	shared map[string]*sharedProcess
	// mu guards closed and every declared plugin's live: a start on
	// demand that ends after Close stops its process again.
	mu     sync.Mutex
	closed bool
}

// Info describes a running plugin, for `cudapkgs plugins list`.
type Info struct {
	Name            string
	Products        []string
	ProtocolVersion int
	Command         []string
	Builtin         bool
	// Checksum is "builtin", or "verified sha256:<hex>" for a third party.
	Checksum string
	// Serves are the products this plugin is called for (a built-in's
	// product taken over by a declared plugin is not among them).
	Serves []string
}

type running struct {
	spec    Spec
	client  *plugin.Client // nil in process
	fixer   caller
	desc    sdk.Description
	renames renames // desc.Renames, checked
	// products are desc.Facts, checked and converted.
	products []described
	stderr   *tail
	cmd      *exec.Cmd // the plugin process; nil in process
	proc     *process  // cmd as go-plugin runs it; nil in process
	bin      *checked  // a third party's checked binary
	host     *os.File  // the write end of the pipe the plugin watches
	// hostRead is the pipe's read end until the plugin has its copy.
	hostRead *os.File
	// ctty is the pseudo-terminal whose hangup ends the plugin's session
	// (isolate); tty is the plugin's end until the plugin has its copy.
	ctty, tty *os.File
	done      chan struct{}
	once      sync.Once
	// declared: the spec's Describe gave desc, and the process is started
	// on demand (Host.live); live is it once started, under Host.mu, and
	// starting serialises the starts of this plugin.
	declared bool
	live     *running
	starting sync.Mutex
	// of is the shared process (Spec.Process) this running speaks to as a
	// view: its own spec and description, the process's client.
	of *running
}

// sharedProcess is one process serving several declared built-ins.
type sharedProcess struct {
	starting sync.Mutex
	spec     Spec
	// want is the description the process must give.
	want sdk.Description
	// proc is the started process, under Host.mu.
	proc *running
}

// kill stops the plugin and releases what its start held.
func (r *running) kill() {
	if r.of != nil {
		r.of.kill()
		return
	}
	r.once.Do(func() {
		if r.live != nil {
			r.live.kill()
		}
		if r.proc != nil {
			// Not left to client.Kill alone: that waits for a start in
			// progress, which only the process's end cuts short.
			r.proc.kill()
		}
		if r.client != nil {
			r.client.Kill()
		}
		if r.host != nil {
			r.host.Close()
		}
		if r.tty != nil {
			r.tty.Close()
		}
		if r.ctty != nil {
			r.ctty.Close()
		}
		if r.bin != nil {
			r.bin.exe.Close()
			r.bin.cleanup()
		}
		if r.done != nil {
			close(r.done)
		}
	})
}

// caller is what the host needs of a plugin: the gRPC client, or (for
// comparisons in benchmarks) a fixer called in process.
type caller interface {
	Describe(ctx context.Context) (sdk.Description, error)
	Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error)
}

type inProcess struct{ f sdk.Fixer }

func (p inProcess) Describe(context.Context) (sdk.Description, error) {
	d := p.f.Describe()
	d.ProtocolVersion = sdk.ProtocolVersion
	return d, nil
}

func (p inProcess) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	return p.f.Fixup(ctx, b)
}

// InProcess is a host whose plugins are called in this process, without
// gRPC or validation shortcuts: the same Apply, the same checks. It exists
// to measure what the process boundary costs; runs use Start.
func InProcess(opts Options, fixers ...sdk.Fixer) *Host {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = defaultCallTimeout
	}
	if opts.Parallel <= 0 {
		opts.Parallel = defaultParallel
	}
	h := &Host{opts: opts, byProduct: map[string]*running{}}
	for _, f := range fixers {
		d, _ := inProcess{f}.Describe(context.Background())
		// The built-ins' renames are checked by their own tests.
		rs, _ := parseRenames(d)
		ps, _ := convertFacts(d)
		r := &running{spec: Spec{Name: d.Name, Builtin: true}, fixer: inProcess{f}, desc: d, renames: rs, products: ps, stderr: newTail(stderrTailLines)}
		h.plugins = append(h.plugins, r)
		for _, p := range d.Products {
			h.byProduct[p] = r
		}
	}
	return h
}

// Start starts every plugin, in parallel, and asks each who it is. A
// declared plugin that claims a built-in's product takes it over. Two
// declared plugins that claim one product, a checksum that does not match, or a
// plugin that fails to start end the run; every started plugin is stopped
// again.
func Start(ctx context.Context, specs []Spec, opts Options) (*Host, error) {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = defaultCallTimeout
	}
	if opts.Parallel <= 0 {
		opts.Parallel = defaultParallel
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	h := &Host{opts: opts, byProduct: map[string]*running{}, shared: map[string]*sharedProcess{}}
	h.plugins = make([]*running, len(specs))
	// The built-ins described in process: checked now, started on demand.
	for i, s := range specs {
		if s.Describe == nil {
			if s.Process != "" {
				return nil, fmt.Errorf("plugin %s: shares process %s but is not described in process: only built-ins described in process share one", s.Name, s.Process)
			}
			continue
		}
		r, err := declared(s)
		if err != nil {
			return nil, err
		}
		h.plugins[i] = r
		if err := h.share(r); err != nil {
			return nil, err
		}
	}
	// This program's own image, opened once for every Self plugin started
	// now: the bytes the host runs are the bytes its built-ins run.
	var self *selfImage
	for _, s := range specs {
		if s.Self && s.Describe == nil && self == nil {
			var err error
			if self, err = openSelf(); err != nil {
				return nil, fmt.Errorf("plugin %s: opening this program's own image to start it: %w", s.Name, err)
			}
			// Each started plugin holds its own copy of the descriptor.
			defer self.close()
		}
	}
	// One plugin that fails to start ends the others' starts too: the run
	// ends with the first error, not after the slowest start.
	g, gctx := errgroup.WithContext(ctx)
	for i, s := range specs {
		if h.plugins[i] != nil {
			continue
		}
		g.Go(func() error {
			r, err := h.start(gctx, s, self)
			h.plugins[i] = r
			return err
		})
	}
	if err := g.Wait(); err != nil {
		h.Close()
		return nil, err
	}
	// Declared plugins first: one that claims a built-in product replaces
	// the built-in for it (a site's policy wrapping the built-in knowledge).
	for _, builtin := range []bool{false, true} {
		for _, r := range h.plugins {
			if r.spec.Builtin != builtin {
				continue
			}
			for _, p := range r.desc.Products {
				prev, dup := h.byProduct[p]
				switch {
				case dup && builtin && !prev.spec.Builtin:
					continue
				case dup:
					h.Close()
					return nil, fmt.Errorf("plugins %s and %s both fix product %s: declare only one", prev.desc.Name, r.desc.Name, p)
				}
				h.byProduct[p] = r
			}
		}
	}
	return h, nil
}

// declared is a built-in from its Describe in this process, checked as a
// started plugin's answer is, its process not started.
func declared(s Spec) (*running, error) {
	r := &running{spec: s, stderr: newTail(stderrTailLines), declared: true}
	if !s.Builtin {
		return nil, fmt.Errorf("plugin %s: only a built-in is described in process; a third party's plugin is started and asked", s.Name)
	}
	d := s.Describe()
	d.ProtocolVersion = sdk.ProtocolVersion
	err := checkDescription(d)
	if err == nil {
		r.products, err = convertFacts(d)
	}
	if err == nil {
		r.renames, err = parseRenames(d)
	}
	if err != nil {
		return nil, r.wrap("Describe (in process)", err)
	}
	r.desc = d
	return r, nil
}

// share adds a declared built-in to the process its spec names, if any.
func (h *Host) share(r *running) error {
	name := r.spec.Process
	if name == "" {
		return nil
	}
	sp := h.shared[name]
	if sp == nil {
		sp = &sharedProcess{spec: Spec{Name: name, Command: r.spec.Command, Builtin: true, Self: r.spec.Self}}
		h.shared[name] = sp
	} else if !slices.Equal(sp.spec.Command, r.spec.Command) || sp.spec.Self != r.spec.Self {
		return fmt.Errorf("plugin %s: shares process %s, but with another command (%q, not %q)", r.spec.Name, name, r.spec.Command, sp.spec.Command)
	}
	sp.want = sdk.MergeDescriptions(name, sp.want, r.desc)
	sp.want.ProtocolVersion = sdk.ProtocolVersion
	return nil
}

// ensureShared is ensure for a built-in that shares a process: the
// process, started by the first of its built-ins to need it, seen as r.
func (h *Host) ensureShared(ctx context.Context, r *running) (*running, error) {
	sp := h.shared[r.spec.Process]
	sp.starting.Lock()
	defer sp.starting.Unlock()
	h.mu.Lock()
	live, proc, closed := r.live, sp.proc, h.closed
	h.mu.Unlock()
	switch {
	case live != nil:
		return live, nil
	case closed:
		return nil, r.wrap("start", errClosed)
	}
	if proc == nil {
		p, err := h.startChecked(ctx, sp.spec, sp.want)
		if err != nil {
			return nil, err
		}
		proc = p
	}
	view := &running{spec: r.spec, client: proc.client, fixer: proc.fixer, desc: r.desc, renames: r.renames, products: r.products,
		stderr: proc.stderr, cmd: proc.cmd, proc: proc.proc, of: proc}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		proc.kill()
		return nil, r.wrap("start", errClosed)
	}
	sp.proc, r.live = proc, view
	return view, nil
}

// startChecked starts spec's process (a built-in's, or a shared one) and
// requires it to describe itself as want.
func (h *Host) startChecked(ctx context.Context, spec Spec, want sdk.Description) (*running, error) {
	var self *selfImage
	if spec.Self {
		var err error
		if self, err = openSelf(); err != nil {
			return nil, fmt.Errorf("plugin %s: opening this program's own image to start it: %w", spec.Name, err)
		}
		// The started plugin holds its own copy of the descriptor.
		defer self.close()
	}
	spec.Describe = nil
	p, err := h.start(ctx, spec, self)
	if err != nil {
		return nil, err
	}
	if !sameDescription(want, p.desc) {
		err := p.wrap("Describe", errors.New("answered other than the same plugin described in this process (is the program started as the plugin this very cudapkgs?)"))
		p.kill()
		return nil, err
	}
	return p, nil
}

// errClosed is a start on demand after the host was closed.
var errClosed = errors.New("the plugin host is closed")

// ensure is r's process, started now if r is declared and not started
// yet. A declared plugin's answer to Describe must be the one it gave in
// process, which the run has used since Start.
func (h *Host) ensure(ctx context.Context, r *running) (*running, error) {
	if !r.declared {
		return r, nil
	}
	if r.spec.Process != "" {
		return h.ensureShared(ctx, r)
	}
	r.starting.Lock()
	defer r.starting.Unlock()
	h.mu.Lock()
	live, closed := r.live, h.closed
	h.mu.Unlock()
	switch {
	case live != nil:
		return live, nil
	case closed:
		return nil, r.wrap("start", errClosed)
	}
	p, err := h.startChecked(ctx, r.spec, r.desc)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		p.kill()
		return nil, r.wrap("start", errClosed)
	}
	r.live = p
	return p, nil
}

// startAll starts the declared plugins among rs that are not started yet,
// in parallel: the first failure ends the others' starts.
func (h *Host) startAll(ctx context.Context, rs []*running) (map[*running]*running, error) {
	live := make([]*running, len(rs))
	g, gctx := errgroup.WithContext(ctx)
	for i, r := range rs {
		g.Go(func() error {
			p, err := h.ensure(gctx, r)
			live[i] = p
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[*running]*running, len(rs))
	for i, r := range rs {
		out[r] = live[i]
	}
	return out, nil
}

// StartAll starts every plugin Start left to be started on demand, in
// parallel: `plugins list` shows that each starts and answers.
func (h *Host) StartAll(ctx context.Context) error {
	_, err := h.startAll(ctx, h.plugins)
	return err
}

// sameDescription: a and b say the same, whatever empty lists the wire
// turned into nil.
func sameDescription(a, b sdk.Description) bool {
	ca, errA := canonical(a)
	cb, errB := canonical(b)
	return errA == nil && errB == nil && ca == cb
}

// canonical is d as JSON without its empty values.
func canonical(d sdk.Description) (string, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return "", err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return "", err
	}
	data, err = json.Marshal(pruneEmpty(v))
	return string(data), err
}

func pruneEmpty(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e = pruneEmpty(e); e == nil {
				delete(v, k)
			} else {
				v[k] = e
			}
		}
		if len(v) == 0 {
			return nil
		}
	case []any:
		for i := range v {
			v[i] = pruneEmpty(v[i])
		}
		if len(v) == 0 {
			return nil
		}
	case string:
		if v == "" {
			return nil
		}
	case bool:
		if !v {
			return nil
		}
	case float64:
		if v == 0 {
			return nil
		}
	}
	return v
}

func (h *Host) start(ctx context.Context, s Spec, self *selfImage) (*running, error) {
	if len(s.Command) == 0 {
		return nil, fmt.Errorf("plugin %s: no command", s.Name)
	}
	r := &running{spec: s, stderr: newTail(stderrTailLines), done: make(chan struct{})}
	switch {
	case s.Self:
		path, extra := self.command(s.Command)
		r.cmd = &exec.Cmd{Path: path, Args: s.Command, ExtraFiles: extra}
	case s.Builtin:
		r.cmd = exec.Command(s.Command[0], s.Command[1:]...)
	default:
		// The bytes hashed are the bytes run: a private copy, executed
		// through its descriptor, never the declared path again.
		bin, err := checkBinary(ctx, s)
		if err != nil {
			return nil, err
		}
		r.bin = bin
		path, extra := bin.command(s.Command)
		r.cmd = &exec.Cmd{Path: path, Args: s.Command, ExtraFiles: extra}
	}
	if err := r.watchHost(); err != nil {
		r.kill()
		return nil, fmt.Errorf("plugin %s: %w", s.Name, err)
	}
	r.proc = newProcess(r.cmd, s.Command[0], r.stderr)
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake(),
		Plugins:          pluginhost.PluginSet(),
		RunnerFunc:       r.proc.runnerFunc,
		SkipHostEnv:      true, // watchHost set the environment
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           h.opts.Logger.Named(s.Name),
		// A backstop: sctx below ends the start first, and kills the
		// plugin, which go-plugin's own timer does not.
		StartTimeout:    h.opts.StartTimeout + time.Second,
		GRPCDialOptions: nil,
	}
	// The process keeps its stderr in r.stderr itself (logs, panics), so
	// that a message has all of it; SyncStderr is what the plugin writes
	// to os.Stderr once serving, forwarded over gRPC.
	cfg.Stderr = io.Discard
	cfg.SyncStderr = r.stderr
	r.client = plugin.NewClient(cfg)
	// One deadline for the whole start: process, handshake and Describe.
	sctx, cancel := context.WithTimeout(ctx, h.opts.StartTimeout)
	defer cancel()
	fail := func(call string, err error) (*running, error) {
		if call == "start" {
			err = r.startFailure(sctx, err, h.opts.StartTimeout)
		}
		err = r.wrap(call, err)
		r.kill()
		return r, err
	}
	proto, err := r.startProcess(sctx)
	if err != nil {
		return fail("start", err)
	}
	raw, err := proto.Dispense(sdk.PluginName)
	if err != nil {
		return fail("start", err)
	}
	fixer, ok := raw.(*pluginhost.Client)
	if !ok {
		return fail("start", fmt.Errorf("unexpected client type %T", raw))
	}
	r.fixer = fixer
	d, err := fixer.Describe(sctx)
	if err != nil {
		return fail("Describe", r.explain(sctx, err, h.opts.StartTimeout))
	}
	if d.ProtocolVersion != sdk.ProtocolVersion {
		return fail("Describe", fmt.Errorf("speaks protocol version %d, this host speaks %d", d.ProtocolVersion, sdk.ProtocolVersion))
	}
	// Nothing of the answer is printed or used before it is checked.
	if err := checkDescription(d); err != nil {
		return fail("Describe", err)
	}
	if r.products, err = convertFacts(d); err != nil {
		return fail("Describe", err)
	}
	if r.renames, err = parseRenames(d); err != nil {
		return fail("Describe", err)
	}
	r.desc = d
	return r, nil
}

// Close stops every plugin.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	for _, r := range h.plugins {
		if r != nil {
			r.kill()
		}
	}
	// A shared process none of its built-ins took yet (a failed start).
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, sp := range h.shared {
		if sp.proc != nil {
			sp.proc.kill()
		}
	}
}

// Plugins describes the running plugins, in the order they were declared.
func (h *Host) Plugins() []Info {
	var out []Info
	for _, r := range h.plugins {
		i := Info{Name: r.desc.Name, Products: r.desc.Products, ProtocolVersion: r.desc.ProtocolVersion,
			Command: r.spec.Command, Builtin: r.spec.Builtin, Checksum: "builtin"}
		if !r.spec.Builtin {
			i.Checksum = "verified sha256:" + strings.ToLower(r.spec.SHA256)
		}
		for _, p := range r.desc.Products {
			if h.byProduct[p] == r {
				i.Serves = append(i.Serves, p)
			}
		}
		out = append(out, i)
	}
	return out
}

// Call sends one batch to the plugin that fixes its product and validates
// the answer, without folding it into a set.
func (h *Host) Call(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	r, ok := h.byProduct[b.Product]
	if !ok {
		return nil, fmt.Errorf("no plugin fixes product %s (plugins: %s)", b.Product, h.names())
	}
	r, err := h.ensure(ctx, r)
	if err != nil {
		return nil, err
	}
	res, err := h.call(ctx, r, b)
	if err != nil {
		return nil, err
	}
	return res, validate(r.desc.Name, b, res, h.renames())
}

// call runs one Fixup with the call deadline.
func (h *Host) call(ctx context.Context, r *running, b *sdk.Batch) (*sdk.Result, error) {
	cctx, cancel := context.WithTimeout(ctx, h.opts.CallTimeout)
	defer cancel()
	res, err := r.fixer.Fixup(cctx, b)
	call := fmt.Sprintf("Fixup(CUDA %s, product %s)", b.CUDA, b.Product)
	if err != nil {
		return nil, r.wrap(call, r.explain(cctx, err, h.opts.CallTimeout))
	}
	return res, nil
}

// TimeoutError is a plugin that did not start, or did not answer a call,
// within its deadline. It is context.DeadlineExceeded to errors.Is.
type TimeoutError struct {
	Limit time.Duration
	// Start is true for a start (process, handshake, Describe).
	Start bool
}

func (e *TimeoutError) Error() string {
	if e.Start {
		return fmt.Sprintf("did not start within %s (it hangs at start or is too slow)", e.Limit)
	}
	return fmt.Sprintf("did not answer within %s (it hangs or is too slow)", e.Limit)
}

func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// explain turns a transport error into what happened to the plugin.
func (r *running) explain(ctx context.Context, err error, timeout time.Duration) error {
	// gRPC's own deadline timer can fire a moment before the context
	// reports it: either means the call ran out of time.
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded {
		return &TimeoutError{Limit: timeout}
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("cancelled before it answered: %w", ctx.Err())
	}
	// A crashing plugin drops the connection a moment before its process is
	// reaped: wait briefly so the message says what happened.
	if r.proc == nil {
		return err
	}
	select {
	case <-r.proc.exited:
	case <-time.After(500 * time.Millisecond):
		return err
	}
	if ps := r.proc.state; ps.Success() {
		return fmt.Errorf("exited during the call with status 0, without answering (it stopped serving): %w", err)
	} else {
		return fmt.Errorf("exited during the call (crashed): %s: %w", ps, err)
	}
}

// startFailure says why a start failed, in one line: go-plugin's own
// messages run to a dozen lines and name the checked copy's path.
func (r *running) startFailure(ctx context.Context, err error, timeout time.Duration) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &TimeoutError{Limit: timeout, Start: true}
	case ctx.Err() != nil:
		return fmt.Errorf("cancelled before it started: %w", ctx.Err())
	}
	if line := r.proc.stdout.First(); line != "" && strings.Count(line, "|") < 3 {
		return fmt.Errorf("printed %q on stdout instead of the go-plugin handshake (is it a cudapkgs plugin? it must not print before sdk.Serve)", line)
	}
	// go-plugin kills the process when the start fails: wait for its end
	// to tell whether it ended by itself.
	if r.proc.started() {
		<-r.proc.exited
	}
	if ps, ok := r.proc.exitedByItself(); ok {
		if ps.Success() {
			return errors.New("exited at once with status 0, before the go-plugin handshake (is it a cudapkgs plugin? it must call sdk.Serve)")
		}
		return fmt.Errorf("exited at once (%s), before the go-plugin handshake", ps)
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return errors.New(msg)
}

// PluginError is a plugin that failed: it names the plugin, the call and the
// tail of the plugin's stderr.
type PluginError struct {
	Plugin string
	// Program is a third-party plugin's path as declared, in an error at
	// its start, before it has named itself.
	Program string
	Call    string
	Err     error
	Stderr  []string
}

func (e *PluginError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s", e.Plugin)
	if e.Program != "" {
		fmt.Fprintf(&b, " (%s)", e.Program)
	}
	fmt.Fprintf(&b, ": %s: %v", e.Call, e.Err)
	if len(e.Stderr) > 0 {
		fmt.Fprintf(&b, "\nplugin %s stderr (last %d lines):", e.Plugin, len(e.Stderr))
		for _, l := range e.Stderr {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	return b.String()
}

func (e *PluginError) Unwrap() error { return e.Err }

func (r *running) wrap(call string, err error) error {
	name := r.desc.Name
	if name == "" {
		name = r.spec.Name
	}
	pe := &PluginError{Plugin: name, Call: call, Err: err}
	if r.proc != nil {
		exited := r.proc.exited
		if call == "start" {
			if !r.spec.Builtin {
				pe.Program = r.spec.Command[0]
			}
			// The start failed: the process is stopped, so that its
			// stderr ends and the message has all of it.
			r.proc.kill()
			if r.proc.started() {
				<-exited
			}
		}
		// A plugin that has exited has written all it will: its stderr
		// ends at most drainGrace later.
		select {
		case <-exited:
			<-r.proc.stderrDone
		default:
		}
	}
	pe.Stderr = r.stderr.Lines()
	return pe
}

// tail keeps the last lines written to it. When a Go plugin panics, the
// panic line and the few lines after it are what matter, not the end of a
// long stack trace: after a "panic:" or "fatal error:" line only a few more
// lines are kept.
type tail struct {
	mu       sync.Mutex
	n        int
	lines    []string
	part     []byte // the start of the line being written
	partLen  int    // its length so far, counting what was not kept
	panicked int    // lines kept since a panic line; -1 before one
}

const linesAfterPanic = 4

func newTail(n int) *tail { return &tail{n: n, panicked: -1} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		// Keep what a message shows of a line; count the rest.
		if room := maxLineBytes + utf8.UTFMax - len(t.part); room > 0 {
			t.part = append(t.part, chunk[:min(room, len(chunk))]...)
		}
		t.partLen += len(chunk)
		if i < 0 {
			break
		}
		t.add(cutLine(t.part, t.partLen))
		t.part, t.partLen = t.part[:0], 0
		p = p[i+1:]
	}
	return n, nil
}

// maxLineBytes is how much of one stderr line a message shows.
const maxLineBytes = 500

// cutLine is the start of a line that was n bytes long, saying where and
// how much was cut.
func cutLine(kept []byte, n int) string {
	line := strings.TrimRight(string(kept), "\r")
	if n <= maxLineBytes {
		return line
	}
	line = strings.ToValidUTF8(line[:min(len(line), maxLineBytes)], "")
	return fmt.Sprintf("%s… [line cut: %d bytes in all]", line, n)
}

func (t *tail) add(line string) {
	switch {
	case t.panicked >= linesAfterPanic:
		return
	case t.panicked >= 0:
		t.panicked++
	case strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: "):
		t.panicked = 0
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > t.n {
		t.lines = t.lines[len(t.lines)-t.n:]
	}
}

func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.lines...)
	if t.partLen > 0 {
		out = append(out, cutLine(t.part, t.partLen))
	}
	return out
}

// platformsOf are the platforms product is described on, as Products
// chooses its facts: by the plugin that fixes it, or, where that one gives
// no facts for it (a plugin that wraps a built-in), by the plugin that does;
// nil when none declares platforms.
func (h *Host) platformsOf(product string) []string {
	var out []string
	for _, r := range h.plugins {
		for _, d := range r.products {
			if d.product.Name != product {
				continue
			}
			if h.byProduct[product] == r {
				return d.platforms
			}
			if out == nil {
				out = d.platforms
			}
		}
	}
	return out
}
