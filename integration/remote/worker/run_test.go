package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

func platform(kv ...string) *repb.Platform {
	p := &repb.Platform{}
	for i := 0; i < len(kv); i += 2 {
		p.Properties = append(p.Properties, &repb.Platform_Property{Name: kv[i], Value: kv[i+1]})
	}
	return p
}

func TestCheckPlatform(t *testing.T) {
	have := properties{"OSFamily": {"linux"}, "gpu": {"nvidia"}, "ISA": {"x86-64", "x86-64-v3"}}
	tests := []struct {
		name      string
		platforms []*repb.Platform
		ignore    map[string]bool
		wantErr   string // substring; "" for a match
	}{
		{"no requirements", nil, nil, ""},
		{"exact match", []*repb.Platform{platform("OSFamily", "linux", "gpu", "nvidia")}, nil, ""},
		{"one of several values", []*repb.Platform{platform("ISA", "x86-64-v3")}, nil, ""},
		{"unknown property", []*repb.Platform{platform("container-image", "docker://x")}, nil, "container-image=docker://x, but this bot does not declare it"},
		{"wrong value", []*repb.Platform{platform("gpu", "amd")}, nil, "gpu=amd, but this bot declares gpu=nvidia"},
		{"checked in both Action and Command platforms", []*repb.Platform{platform("OSFamily", "linux"), platform("gpu", "none")}, nil, "gpu=none"},
		{"ignored property", []*repb.Platform{platform("container-image", "x")}, map[string]bool{"container-image": true}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkPlatform(have, tc.ignore, tc.platforms...)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestLookPath(t *testing.T) {
	// A fake action root. Its absolute symlinks point at paths that exist
	// only inside it (or only on the host), to prove resolution stays inside.
	root := t.TempDir()
	mk := func(p string, mode os.FileMode) {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, p string) {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	mk("usr/bin/gcc", 0o755)
	mk("usr/bin/notexec", 0o644)
	mk("opt/only-in-root-4f1c/cc-real", 0o755)
	ln("/opt/only-in-root-4f1c/cc-real", "usr/bin/cc")     // absolute, resolvable only in the root
	ln("/bin/sh", "usr/bin/hostsh")                        // absolute, exists on the host only
	ln("usr/bin", "bin")                                   // merged /usr, relative
	ln("../../../../../../../usr/bin/gcc", "usr/bin/dots") // ".." cannot climb above the root
	mk("build/x1/wd/tools/local", 0o755)
	mk("build/x1/wd/here", 0o755)

	tests := []struct {
		name, cmd, path string
		want            string // "" means not found
	}{
		{"plain", "gcc", "/usr/bin", "/usr/bin/gcc"},
		{"first match in PATH order", "gcc", "/nonexistent:/bin:/usr/bin", "/bin/gcc"},
		{"absolute symlink resolves inside the root", "cc", "/usr/bin", "/usr/bin/cc"},
		{"absolute symlink to a host-only file", "hostsh", "/usr/bin", ""},
		{"dotdot clamps at the root", "dots", "/usr/bin", "/usr/bin/dots"},
		{"not executable", "notexec", "/usr/bin", ""},
		{"relative PATH entry is relative to cwd", "local", "tools:/usr/bin", "./tools/local"},
		{"empty PATH entry is cwd", "here", ":/usr/bin", "./here"},
		{"name with slash is used as is", "./tools/local", "", "./tools/local"},
		{"missing", "nvcc", "/usr/bin:/bin", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lookPath(root, "/build/x1/wd", tc.cmd, tc.path)
			if tc.want == "" {
				if err == nil {
					t.Errorf("found %q, want not found", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("lookPath = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestRunProcess(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	tests := []struct {
		name       string
		script     string
		argv       []string // instead of sh -c script
		env        []string
		timeout    time.Duration
		wantExit   int
		wantTimout bool
		wantStdout string
		after      func(t *testing.T)
	}{
		{name: "exit code", script: "exit 3", wantExit: 3},
		{name: "exactly the given environment", argv: []string{"/usr/bin/env"}, env: []string{"B=2", "A=1"}, wantStdout: "B=2\nA=1\n"},
		{name: "killed by signal", script: "kill -TERM $$", wantExit: 128 + 15},
		{
			// The background child would create the marker after the timeout;
			// killing the process group must take it down with the shell.
			name:    "timeout kills the process group",
			script:  "(sleep 1; touch " + dir + "/marker) & sleep 30",
			timeout: 300 * time.Millisecond, wantExit: 137, wantTimout: true,
			after: func(t *testing.T) {
				time.Sleep(1500 * time.Millisecond)
				if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
					t.Error("background child survived the timeout")
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, err := os.CreateTemp(t.TempDir(), "out")
			if err != nil {
				t.Fatal(err)
			}
			defer stdout.Close()
			argv := tc.argv
			if argv == nil {
				argv = []string{sh, "-c", tc.script}
			}
			exit, timedOut, err := runProcess(context.Background(), procSpec{
				dir: dir, path: argv[0], args: argv, env: tc.env,
				stdout: stdout, stderr: os.Stderr, timeout: tc.timeout,
			})
			if err != nil {
				t.Fatal(err)
			}
			if exit != tc.wantExit || timedOut != tc.wantTimout {
				t.Errorf("exit %d timedOut %v, want %d %v", exit, timedOut, tc.wantExit, tc.wantTimout)
			}
			if tc.wantStdout != "" {
				got, _ := os.ReadFile(stdout.Name())
				if string(got) != tc.wantStdout {
					t.Errorf("stdout %q, want %q", got, tc.wantStdout)
				}
			}
			if tc.after != nil {
				tc.after(t)
			}
		})
	}
}

func TestRunProcessCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	// The child writes its pid, then sleeps; cancelled once the pid is
	// there, it must be gone when runProcess returns.
	dir := t.TempDir()
	go func() {
		defer cancel()
		for range 1000 {
			if _, err := os.Stat(filepath.Join(dir, "pid")); err == nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, _, err := runProcess(ctx, procSpec{dir: dir, path: "/bin/sh", args: []string{"sh", "-c", "echo $$ > pid.tmp && mv pid.tmp pid; exec sleep 30"}})
	if err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	b, rerr := os.ReadFile(filepath.Join(dir, "pid"))
	if rerr != nil {
		t.Fatalf("the child wrote no pid: %v", rerr)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 || syscall.Kill(pid, 0) == nil {
		t.Errorf("the child (pid %q) survived the cancel", b)
	}
}

// action uploads a Command and an Action for it and returns the lease payload.
func action(t *testing.T, e *testEnv, cmd *repb.Command, root *repb.Digest, timeout time.Duration, plat *repb.Platform) *anypb.Any {
	t.Helper()
	a := &repb.Action{CommandDigest: e.cas.putProto(t, cmd), InputRootDigest: root, Platform: plat}
	if timeout > 0 {
		a.Timeout = durationpb.New(timeout)
	}
	payload, err := anypb.New(e.cas.putProto(t, a))
	if err != nil {
		t.Fatal(err)
	}
	return payload
}

func TestRunnerRun(t *testing.T) {
	env := []*repb.Command_EnvironmentVariable{{Name: "PATH", Value: "/usr/bin:/bin"}}
	tests := []struct {
		name     string
		cmd      *repb.Command
		timeout  time.Duration
		platform *repb.Platform
		inputs   func(t *testing.T, e *testEnv) *repb.Digest // nil: a tree with in/a.txt
		wantCode codes.Code
		check    func(t *testing.T, e *testEnv, res *repb.ActionResult)
	}{
		{
			name: "outputs, stdout and stderr",
			cmd: &repb.Command{
				Arguments:            []string{"sh", "-c", "cat ../in/a.txt > out/copy.txt && mkdir out/d && echo f > out/d/f && echo to-stdout && echo to-stderr >&2 && pwd"},
				EnvironmentVariables: env, WorkingDirectory: "wd",
				OutputPaths: []string{"out/copy.txt", "out/d"},
			},
			platform: platform("OSFamily", "linux"),
			wantCode: codes.OK,
			check: func(t *testing.T, e *testEnv, res *repb.ActionResult) {
				if res.ExitCode != 0 || len(res.OutputFiles) != 1 || len(res.OutputDirectories) != 1 {
					t.Fatalf("result %v", res)
				}
				if data, _ := e.cas.get(res.OutputFiles[0].Digest); string(data) != "input a\n" {
					t.Errorf("out/copy.txt = %q", data)
				}
				stdout, _ := e.cas.get(res.StdoutDigest)
				if !strings.HasPrefix(string(stdout), "to-stdout\n") || !strings.HasSuffix(string(stdout), "/wd\n") {
					t.Errorf("stdout %q", stdout)
				}
				if stderr, _ := e.cas.get(res.StderrDigest); string(stderr) != "to-stderr\n" {
					t.Errorf("stderr %q", stderr)
				}
				if m := res.ExecutionMetadata; m.Worker != "test-bot" || m.ExecutionCompletedTimestamp == nil {
					t.Errorf("metadata %v", m)
				}
			},
		},
		{
			name:     "failing command is an OK lease with its exit code",
			cmd:      &repb.Command{Arguments: []string{"sh", "-c", "exit 7"}, EnvironmentVariables: env},
			wantCode: codes.OK,
			check: func(t *testing.T, e *testEnv, res *repb.ActionResult) {
				if res.ExitCode != 7 {
					t.Errorf("exit %d", res.ExitCode)
				}
			},
		},
		{
			name:     "command not found: 127 and a message on stderr",
			cmd:      &repb.Command{Arguments: []string{"no-such-tool"}, EnvironmentVariables: env},
			wantCode: codes.OK,
			check: func(t *testing.T, e *testEnv, res *repb.ActionResult) {
				stderr, _ := e.cas.get(res.StderrDigest)
				if res.ExitCode != 127 || !strings.Contains(string(stderr), "no-such-tool") {
					t.Errorf("exit %d stderr %q", res.ExitCode, stderr)
				}
			},
		},
		{
			name:     "timeout",
			cmd:      &repb.Command{Arguments: []string{"sh", "-c", "echo started; sleep 30"}, EnvironmentVariables: env},
			timeout:  300 * time.Millisecond,
			wantCode: codes.DeadlineExceeded,
			check: func(t *testing.T, e *testEnv, res *repb.ActionResult) {
				if stdout, _ := e.cas.get(res.StdoutDigest); string(stdout) != "started\n" {
					t.Errorf("stdout %q", stdout)
				}
			},
		},
		{
			name:     "platform property the bot lacks",
			cmd:      &repb.Command{Arguments: []string{"true"}, EnvironmentVariables: env},
			platform: platform("gpu", "nvidia"),
			wantCode: codes.FailedPrecondition,
		},
		{
			name: "missing input blob",
			cmd:  &repb.Command{Arguments: []string{"true"}, EnvironmentVariables: env},
			inputs: func(t *testing.T, e *testEnv) *repb.Digest {
				return e.cas.putProto(t, &repb.Directory{Files: []*repb.FileNode{file("x", digestOf([]byte("not there")), false)}})
			},
			wantCode: codes.FailedPrecondition,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			r := e.runner(t, property{"OSFamily", "linux"})
			var root *repb.Digest
			if tc.inputs != nil {
				root = tc.inputs(t, e)
			} else {
				in := e.cas.putProto(t, &repb.Directory{Files: []*repb.FileNode{file("a.txt", e.cas.put([]byte("input a\n")), false)}})
				root = e.cas.putProto(t, &repb.Directory{Directories: []*repb.DirectoryNode{dirNode("in", in)}})
			}
			res, st := r.run(context.Background(), "lease-x", action(t, e, tc.cmd, root, tc.timeout, tc.platform))
			if codes.Code(st.Code) != tc.wantCode {
				t.Fatalf("status %v %q, want %v", codes.Code(st.Code), st.Message, tc.wantCode)
			}
			if tc.check != nil {
				tc.check(t, e, res)
			}
			// Exec dirs are removed after each action.
			if entries, _ := os.ReadDir(r.execBase); len(entries) != 0 {
				t.Errorf("exec dir left behind: %v", entries)
			}
		})
	}
}

func TestMissingInputDetails(t *testing.T) {
	d := digestOf([]byte("x"))
	st := leaseStatus(&missingBlobsError{[]*repb.Digest{d}})
	if codes.Code(st.Code) != codes.FailedPrecondition || len(st.Details) != 1 {
		t.Fatalf("status %v", st)
	}
	pf := &errdetails.PreconditionFailure{}
	if err := st.Details[0].UnmarshalTo(pf); err != nil {
		t.Fatal(err)
	}
	if v := pf.Violations[0]; v.Type != "MISSING" || v.Subject != "blobs/"+d.Hash+"/1" {
		t.Errorf("violation %v", v)
	}
}

// TestChroot runs a static helper inside a minimal action root. It needs
// root privileges and a Go toolchain to build the helper.
func TestChroot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chroot needs root")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain to build the helper")
	}
	actionRoot := t.TempDir()
	helper := filepath.Join(actionRoot, "tools/bin/helper")
	build := exec.Command(goBin, "build", "-o", helper, "./testdata/helper")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build helper: %v\n%s", err, out)
	}
	// The same filesystem as the cache, as main requires.
	e := newTestEnv(t)
	if err := os.Rename(actionRoot, filepath.Join(e.cache.dir, "root")); err != nil {
		t.Fatal(err)
	}
	actionRoot = filepath.Join(e.cache.dir, "root")
	r := e.runner(t)
	r.root, r.execBase = actionRoot, filepath.Join(actionRoot, "build")
	if err := os.MkdirAll(r.execBase, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := &repb.Command{
		Arguments:            []string{"helper", "x", "y"},
		EnvironmentVariables: []*repb.Command_EnvironmentVariable{{Name: "PATH", Value: "/tools/bin"}, {Name: "ONLY", Value: "this"}},
		WorkingDirectory:     "pkg",
		OutputPaths:          []string{"out/args"},
	}
	res, st := r.run(context.Background(), "lease-x", action(t, e, cmd, e.cas.putProto(t, &repb.Directory{}), 0, nil))
	if st.Code != 0 || res.ExitCode != 0 {
		stderr, _ := e.cas.get(res.GetStderrDigest())
		t.Fatalf("status %v, exit %d, stderr %s", st, res.GetExitCode(), stderr)
	}
	stdout, _ := e.cas.get(res.StdoutDigest)
	lines := strings.Split(string(stdout), "\n")
	if !strings.HasPrefix(lines[0], "/build/") || !strings.HasSuffix(lines[0], "/pkg") {
		t.Errorf("cwd inside the chroot = %q", lines[0])
	}
	if lines[1] != "PATH=/tools/bin ONLY=this" {
		t.Errorf("environment %q", lines[1])
	}
	if len(res.OutputFiles) != 1 {
		t.Fatalf("outputs %v", res.OutputFiles)
	}
	if args, _ := e.cas.get(res.OutputFiles[0].Digest); string(args) != "x y" {
		t.Errorf("out/args = %q", args)
	}
}
