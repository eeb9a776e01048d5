package fixup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"
)

// drainGrace is how long the host still reads a plugin's stdout and stderr
// once the plugin process has exited. What the plugin wrote before it ended
// is in the pipe already; only a child it left behind with the pipes open
// could write more, and the run must not wait for such a child's lifetime.
const drainGrace = 200 * time.Millisecond

// process is the plugin process as go-plugin sees it (a runner.Runner). The
// host runs it itself rather than through go-plugin's command runner, which
// reads the pipes until every holder of their write ends has closed them:
// a plugin whose child inherited its stdout would then stall the run for
// the child's lifetime. Here the pipes end drainGrace after the plugin.
type process struct {
	cmd *exec.Cmd
	// name is the program as configured, for messages: cmd.Path may be
	// /proc/self/fd/3, the checked copy.
	name string

	stdout   *firstLine // go-plugin reads the handshake from it
	stderr   io.Reader  // go-plugin's copy of stderr, for its logger
	stderrW  *io.PipeWriter
	stderrTo io.Writer // the tail kept for messages

	mu     sync.Mutex
	begun  bool // Start ran the process
	killed bool // the host killed it (or refused to start it)
	// reaped: the process may be reaped, and its pid, which numbers its
	// process group, given to another: the group is not signalled again.
	reaped bool

	exited     chan struct{} // closed once the process is reaped
	state      *os.ProcessState
	waitErr    error
	stderrDone chan struct{} // closed once all of stderr is in stderrTo
}

var _ runner.Runner = (*process)(nil)

func newProcess(cmd *exec.Cmd, name string, stderr io.Writer) *process {
	pr, pw := io.Pipe()
	return &process{cmd: cmd, name: name, stderr: pr, stderrW: pw, stderrTo: stderr,
		exited: make(chan struct{}), stderrDone: make(chan struct{})}
}

// runnerFunc hands the process to go-plugin, with the environment go-plugin
// prepared (its handshake variables, the socket folder) added to the
// plugin's own.
func (p *process) runnerFunc(_ hclog.Logger, prepared *exec.Cmd, _ string) (runner.Runner, error) {
	p.cmd.Env = append(p.cmd.Env, prepared.Env...)
	// A plugin answers over gRPC: the user's terminal is not its to read.
	p.cmd.Stdin = nil
	return p, nil
}

func (p *process) Start(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killed {
		return errors.New("stopped before it started")
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return err
	}
	p.cmd.Stdout, p.cmd.Stderr = outW, errW
	err = p.cmd.Start()
	// The child holds its own copies of the write ends.
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // pe.Path is the checked copy's, not the plugin's
		}
		return fmt.Errorf("cannot execute %s: %w", p.name, err)
	}
	p.begun = true
	p.stdout = &firstLine{f: outR}
	go p.copyStderr(errR)
	go func() {
		pid := p.cmd.Process.Pid
		if waitLeader(pid) {
			// The plugin has ended and its zombie still holds its group's
			// number: what it started in its group ends with it (a
			// wrapper's children; the host never talks to them).
			p.mu.Lock()
			killGroup(pid)
			p.reaped = true
			p.mu.Unlock()
		}
		// Stdout and Stderr are *os.File: Wait returns when the process
		// ends, whoever else holds the pipes.
		err := p.cmd.Wait()
		p.mu.Lock()
		p.reaped = true
		p.mu.Unlock()
		p.state, p.waitErr = p.cmd.ProcessState, err
		end := time.Now().Add(drainGrace)
		outR.SetReadDeadline(end)
		errR.SetReadDeadline(end)
		close(p.exited)
	}()
	return nil
}

// copyStderr keeps the plugin's stderr for messages and passes it on to
// go-plugin's logger; stderrDone says the tail is complete.
func (p *process) copyStderr(f *os.File) {
	defer close(p.stderrDone)
	defer f.Close()
	buf := make([]byte, 32<<10)
	logging := true
	for {
		n, err := f.Read(buf)
		if n > 0 {
			p.stderrTo.Write(buf[:n])
			if logging {
				_, werr := p.stderrW.Write(buf[:n])
				logging = werr == nil
			}
		}
		if err != nil {
			p.stderrW.Close()
			return
		}
	}
}

// kill stops the process with its whole process group (a wrapper script
// and its children, a child of a plugin hung before its handshake); one
// that has not started yet never will.
func (p *process) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.killed = true
	if p.begun {
		if !p.reaped {
			killGroup(p.cmd.Process.Pid)
		}
		// The plugin itself, should it have left its group.
		p.cmd.Process.Kill()
	}
}

func (p *process) started() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.begun
}

// exitedByItself is the process's exit status when it ended on its own,
// not by the host's kill.
func (p *process) exitedByItself() (*os.ProcessState, bool) {
	p.mu.Lock()
	begun, killed := p.begun, p.killed
	p.mu.Unlock()
	if !begun {
		return nil, false
	}
	select {
	case <-p.exited:
	default:
		return nil, false
	}
	// A process that exited before the host's kill keeps its own status:
	// the kill of a zombie changes nothing.
	if p.state.Exited() || !killed {
		return p.state, true
	}
	return nil, false
}

func (p *process) Wait(context.Context) error {
	<-p.exited
	return p.waitErr
}

func (p *process) Kill(context.Context) error {
	p.kill()
	return nil
}

func (p *process) Diagnose(context.Context) string { return "" }
func (p *process) Stdout() io.ReadCloser           { return p.stdout }
func (p *process) Stderr() io.ReadCloser           { return io.NopCloser(p.stderr) }
func (p *process) Name() string                    { return p.name }

func (p *process) ID() string {
	if p.cmd.Process == nil {
		return ""
	}
	return fmt.Sprint(p.cmd.Process.Pid)
}

func (p *process) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (p *process) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// firstLine is the plugin's stdout for go-plugin: it ends (io.EOF) at the
// read deadline set when the plugin exits, and keeps the start of the first
// line, so that a message can quote what a plugin printed instead of its
// handshake.
type firstLine struct {
	f    *os.File
	mu   sync.Mutex
	line []byte
	done bool // line is complete
}

const quotedBytes = 200

func (r *firstLine) Read(b []byte) (int, error) {
	n, err := r.f.Read(b)
	r.mu.Lock()
	if !r.done && n > 0 {
		chunk := b[:n]
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			chunk, r.done = chunk[:i], true
		}
		r.line = append(r.line, chunk[:min(len(chunk), quotedBytes-len(r.line))]...)
		if len(r.line) >= quotedBytes {
			r.done = true
		}
	}
	r.mu.Unlock()
	if err != nil {
		// The end of the pipe, or the deadline after the plugin's exit:
		// either way nothing more is read from it.
		r.f.Close()
		err = io.EOF
	}
	return n, err
}

func (r *firstLine) Close() error { return r.f.Close() }

// First is the start of the first line the plugin wrote to stdout.
func (r *firstLine) First() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(bytes.TrimRight(r.line, "\r"))
}
