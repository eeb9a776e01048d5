package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// property is one platform property the bot declares, e.g. OSFamily=linux.
type property struct{ name, value string }

// properties maps a property name to every value the bot declares for it:
// a bot may declare several values for one name.
type properties map[string][]string

func (p properties) has(name, value string) bool {
	for _, v := range p[name] {
		if v == value {
			return true
		}
	}
	return false
}

// checkPlatform verifies that the bot offers every property the action asks
// for. The scheduler should only send matching actions; this is the check
// that says clearly which property is at fault if it does not.
func checkPlatform(have properties, ignore map[string]bool, platforms ...*repb.Platform) error {
	for _, pl := range platforms {
		for _, p := range pl.GetProperties() {
			if ignore[p.Name] || have.has(p.Name, p.Value) {
				continue
			}
			offered := "does not declare it"
			if vs := have[p.Name]; len(vs) > 0 {
				offered = "declares " + p.Name + "=" + strings.Join(vs, ",")
			}
			return fmt.Errorf("action requires platform property %s=%s, but this bot %s", p.Name, p.Value, offered)
		}
	}
	return nil
}

// leaseError carries the status code a failed lease is reported with.
type leaseError struct {
	code codes.Code
	err  error
}

func (e *leaseError) Error() string { return e.err.Error() }
func (e *leaseError) Unwrap() error { return e.err }

func failf(code codes.Code, format string, args ...any) error {
	return &leaseError{code, fmt.Errorf(format, args...)}
}

// leaseStatus turns an error from running a lease into the lease status.
// Missing inputs become FAILED_PRECONDITION with the PreconditionFailure
// details REAPI clients use to re-upload; unexpected errors become INTERNAL,
// which BuildGrid retries on another attempt.
func leaseStatus(err error) *spb.Status {
	if err == nil {
		return &spb.Status{Code: int32(codes.OK)}
	}
	var missing *missingBlobsError
	if errors.As(err, &missing) {
		pf := &errdetails.PreconditionFailure{}
		for _, d := range missing.digests {
			pf.Violations = append(pf.Violations, &errdetails.PreconditionFailure_Violation{
				Type: "MISSING", Subject: fmt.Sprintf("blobs/%s/%d", d.Hash, d.SizeBytes),
			})
		}
		st := &spb.Status{Code: int32(codes.FailedPrecondition), Message: err.Error()}
		if a, aerr := anypb.New(pf); aerr == nil {
			st.Details = append(st.Details, a)
		}
		return st
	}
	var le *leaseError
	if errors.As(err, &le) {
		return &spb.Status{Code: int32(le.code), Message: err.Error()}
	}
	return &spb.Status{Code: int32(codes.Internal), Message: err.Error()}
}

// resolveInRoot maps p, a path as a process chrooted into root sees it, to
// the host path, following symlinks the way the kernel would inside the
// chroot: an absolute target restarts at root, never at the host's /.
func resolveInRoot(root, p string) (string, error) {
	if root == "" {
		return p, nil
	}
	queue := strings.Split(p, "/")
	cur := "/"
	for links := 0; len(queue) > 0; {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		host := filepath.Join(root, next)
		fi, err := os.Lstat(host)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > 40 {
			return "", &fs.PathError{Op: "resolve", Path: p, Err: syscall.ELOOP}
		}
		target, err := os.Readlink(host)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
		}
		queue = append(strings.Split(target, "/"), queue...)
	}
	return filepath.Join(root, cur), nil
}

// defaultPath is what execvp searches when the environment has no PATH.
const defaultPath = "/bin:/usr/bin"

// lookPath finds name the way execvp would for a process chrooted into root
// (root "" means no chroot) whose working directory is cwd (as that process
// sees it). exec.LookPath cannot do this: it looks on the host. A name with
// a slash is returned as is. The result is the path to exec as the process
// sees it.
func lookPath(root, cwd, name, pathEnv string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	if name == "" {
		return "", errors.New("empty argv[0]")
	}
	for _, dir := range strings.Split(pathEnv, ":") {
		if dir == "" {
			dir = "." // an empty PATH entry means the working directory
		}
		cand := path.Join(dir, name)
		if !path.IsAbs(cand) {
			cand = "./" + cand
		}
		inside := cand
		if !path.IsAbs(inside) {
			inside = path.Join(cwd, inside)
		}
		host, err := resolveInRoot(root, inside)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(host); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return cand, nil
		}
	}
	return "", fmt.Errorf("%s: not found in PATH %q", name, pathEnv)
}

// procSpec is one process to run.
type procSpec struct {
	root    string // chroot directory, "" for none
	dir     string // working directory as the process sees it
	path    string // executable, as the process sees it
	args    []string
	env     []string
	stdout  *os.File
	stderr  *os.File
	timeout time.Duration // 0: none
}

// runProcess runs spec in its own process group and waits for it. On timeout
// or cancellation it kills the whole group, so that children the command
// left behind die too; it does the same after a normal exit. ctx
// cancellation is returned as ctx's error.
func runProcess(ctx context.Context, spec procSpec) (exitCode int, timedOut bool, err error) {
	cmd := &exec.Cmd{
		Path:   spec.path,
		Args:   spec.args,
		Env:    append([]string{}, spec.env...), // non-nil: never inherit the worker's environment
		Dir:    spec.dir,
		Stdout: spec.stdout,
		Stderr: spec.stderr,
		// Pdeathsig: if the worker dies (kill -9), its action dies too
		// rather than running on unseen while the server requeues it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Chroot: spec.root, Pdeathsig: syscall.SIGKILL},
	}
	if err := cmd.Start(); err != nil {
		return 0, false, err
	}
	pgid := cmd.Process.Pid
	kill := func() { syscall.Kill(-pgid, syscall.SIGKILL) }
	defer kill()

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timer <-chan time.Time
	if spec.timeout > 0 {
		t := time.NewTimer(spec.timeout)
		defer t.Stop()
		timer = t.C
	}
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timer:
		timedOut = true
		kill()
		waitErr = <-done
	case <-ctx.Done():
		kill()
		<-done
		return 0, false, ctx.Err()
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		return 0, timedOut, waitErr
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal()), timedOut, nil // as a shell reports it
	}
	return ws.ExitStatus(), timedOut, nil
}

// runner executes leases.
type runner struct {
	botName        string
	root           string // chroot, "" for none
	execBase       string // host directory in which exec dirs are created
	cas            *casClient
	cache          *fileCache
	props          properties
	ignoreProps    map[string]bool
	defaultTimeout time.Duration
	keep           bool
	logf           func(format string, args ...any)
}

// stats are what the lease log records.
type stats struct {
	actionDigest string
	argv0        string
	exitCode     int
	fetched      int64
	uploaded     int64
}

// run executes the action a lease payload names. It returns the result (nil
// when there is none to report) and the lease status. When ctx is cancelled
// the process is killed and the return values do not matter.
func (r *runner) run(ctx context.Context, leaseID string, payload *anypb.Any) (*repb.ActionResult, *spb.Status) {
	start := time.Now()
	st := &stats{exitCode: -1}
	res, err := r.execute(ctx, payload, st)
	s := leaseStatus(err)
	if ctx.Err() != nil {
		s = &spb.Status{Code: int32(codes.Canceled), Message: "lease cancelled"}
	}
	r.logf("lease=%s action=%s argv0=%q exit=%d status=%s duration=%s fetched=%d uploaded=%d%s",
		leaseID, st.actionDigest, st.argv0, st.exitCode, codes.Code(s.Code), time.Since(start).Round(time.Millisecond),
		st.fetched, st.uploaded, errSuffix(s))
	return res, s
}

func errSuffix(s *spb.Status) string {
	if s.Code == int32(codes.OK) {
		return ""
	}
	return fmt.Sprintf(" error=%q", s.Message)
}

// decodeAction accepts either payload BuildGrid sends: Any(Action), or
// Any(Digest) of the Action.
func (r *runner) decodeAction(ctx context.Context, payload *anypb.Any) (*repb.Action, *repb.Digest, error) {
	switch {
	case payload.MessageIs(&repb.Digest{}):
		d := &repb.Digest{}
		if err := payload.UnmarshalTo(d); err != nil {
			return nil, nil, failf(codes.InvalidArgument, "lease payload: %v", err)
		}
		if err := checkDigest(d); err != nil {
			return nil, nil, failf(codes.InvalidArgument, "lease payload: %v", err)
		}
		a := &repb.Action{}
		if err := r.cas.readProto(ctx, d, a); err != nil {
			return nil, nil, fmt.Errorf("read Action: %w", err)
		}
		return a, d, nil
	case payload.MessageIs(&repb.Action{}):
		a := &repb.Action{}
		if err := payload.UnmarshalTo(a); err != nil {
			return nil, nil, failf(codes.InvalidArgument, "lease payload: %v", err)
		}
		_, d, err := digestMessage(a) // for the log only
		return a, d, err
	default:
		return nil, nil, failf(codes.InvalidArgument, "lease payload has unsupported type %q", payload.GetTypeUrl())
	}
}

func (r *runner) execute(ctx context.Context, payload *anypb.Any, st *stats) (*repb.ActionResult, error) {
	meta := &repb.ExecutedActionMetadata{Worker: r.botName, WorkerStartTimestamp: timestamppb.Now()}
	action, actionDigest, err := r.decodeAction(ctx, payload)
	if err != nil {
		return nil, err
	}
	st.actionDigest = key(actionDigest)
	if err := checkDigest(action.CommandDigest); err != nil {
		return nil, failf(codes.InvalidArgument, "command digest: %v", err)
	}
	if err := checkDigest(action.InputRootDigest); err != nil {
		return nil, failf(codes.InvalidArgument, "input root digest: %v", err)
	}
	cmd := &repb.Command{}
	if err := r.cas.readProto(ctx, action.CommandDigest, cmd); err != nil {
		return nil, fmt.Errorf("read Command: %w", err)
	}
	if len(cmd.Arguments) == 0 {
		return nil, failf(codes.InvalidArgument, "command has no arguments")
	}
	st.argv0 = cmd.Arguments[0]
	if err := checkPlatform(r.props, r.ignoreProps, action.Platform, cmd.Platform); err != nil {
		return nil, &leaseError{codes.FailedPrecondition, err}
	}
	if wd := cmd.WorkingDirectory; wd != "" && !filepath.IsLocal(wd) {
		return nil, failf(codes.InvalidArgument, "working directory %q leaves the input root", wd)
	}

	execDir, err := os.MkdirTemp(r.execBase, "x")
	if err != nil {
		return nil, fmt.Errorf("create exec dir: %w", err)
	}
	if !r.keep {
		defer func() {
			if err := removeAll(execDir); err != nil {
				r.logf("remove exec dir: %v", err)
			}
		}()
	}
	if err := os.Chmod(execDir, 0o755); err != nil {
		return nil, err
	}

	// Inputs.
	meta.InputFetchStartTimestamp = timestamppb.Now()
	dirs, err := fetchDirectories(ctx, r.cas, action.InputRootDigest)
	if err != nil {
		return nil, fmt.Errorf("read input tree: %w", err)
	}
	st.fetched, err = materialize(ctx, r.cache, dirs, action.InputRootDigest, execDir)
	if err != nil {
		return nil, fmt.Errorf("materialize inputs: %w", err)
	}
	meta.InputFetchCompletedTimestamp = timestamppb.Now()
	hostWorkDir := filepath.Join(execDir, cmd.WorkingDirectory)
	if err := os.MkdirAll(hostWorkDir, 0o755); err != nil {
		return nil, fmt.Errorf("create working directory: %w", err)
	}
	if err := prepareOutputs(execDir, cmd); err != nil {
		return nil, failf(codes.InvalidArgument, "%v", err)
	}

	// The command, with exactly the environment it asks for.
	var env []string
	pathEnv, hasPath := "", false
	for _, e := range cmd.EnvironmentVariables {
		env = append(env, e.Name+"="+e.Value)
		if e.Name == "PATH" {
			pathEnv, hasPath = e.Value, true
		}
	}
	if !hasPath {
		pathEnv = defaultPath
	}
	// The working directory as the process sees it: inside the chroot the
	// exec dir is /build/<name>.
	procDir := hostWorkDir
	if r.root != "" {
		procDir = path.Join("/build", filepath.Base(execDir), filepath.ToSlash(cmd.WorkingDirectory))
	}
	stdout, err := os.CreateTemp(r.cache.tmp, "stdout-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(stdout.Name())
	defer stdout.Close()
	stderr, err := os.CreateTemp(r.cache.tmp, "stderr-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(stderr.Name())
	defer stderr.Close()

	timeout := r.defaultTimeout
	if t := action.Timeout.AsDuration(); action.Timeout != nil && t > 0 {
		timeout = t
	}
	res := &repb.ActionResult{ExecutionMetadata: meta}
	meta.ExecutionStartTimestamp = timestamppb.Now()
	var timedOut bool
	argv0, lerr := lookPath(r.root, procDir, cmd.Arguments[0], pathEnv)
	if lerr != nil {
		// What a shell does: report 127 with the reason on stderr, so the
		// client shows it like any failing command.
		fmt.Fprintf(stderr, "remote worker: %v\n", lerr)
		res.ExitCode = 127
	} else {
		exit, to, err := runProcess(ctx, procSpec{
			root: r.root, dir: procDir, path: argv0, args: cmd.Arguments, env: env,
			stdout: stdout, stderr: stderr, timeout: timeout,
		})
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, syscall.ENOENT):
			fmt.Fprintf(stderr, "remote worker: %s: %v\n", argv0, err)
			exit = 127
		case errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOEXEC):
			fmt.Fprintf(stderr, "remote worker: %s: %v\n", argv0, err)
			exit = 126
		case err != nil:
			return nil, fmt.Errorf("run %s: %w", argv0, err)
		}
		res.ExitCode, timedOut = int32(exit), to
	}
	st.exitCode = int(res.ExitCode)
	meta.ExecutionCompletedTimestamp = timestamppb.Now()

	// Outputs, stdout and stderr, also after a timeout: they help to see
	// where the action got stuck.
	meta.OutputUploadStartTimestamp = timestamppb.Now()
	items, err := collectOutputs(execDir, cmd, res)
	if err != nil {
		return nil, fmt.Errorf("collect outputs: %w", err)
	}
	for _, f := range []struct {
		file *os.File
		dst  **repb.Digest
	}{{stdout, &res.StdoutDigest}, {stderr, &res.StderrDigest}} {
		d, err := digestFile(f.file.Name())
		if err != nil {
			return nil, err
		}
		*f.dst = d
		items = append(items, uploadItem{digest: d, path: f.file.Name()})
	}
	st.uploaded, err = r.cas.upload(ctx, items)
	if err != nil {
		return nil, fmt.Errorf("upload outputs: %w", err)
	}
	meta.OutputUploadCompletedTimestamp = timestamppb.Now()
	meta.WorkerCompletedTimestamp = timestamppb.Now()
	if timedOut {
		return res, failf(codes.DeadlineExceeded, "action timed out after %s", timeout)
	}
	return res, nil
}
