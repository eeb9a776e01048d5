// Package doctor checks the machine cudapkgs and the builds it sets up run
// on: the host compilers against nvcc's accepted ranges (core/gpu's table),
// glibc against CUDA's crt/math_functions.h, the Bazel on PATH, and the
// manifests cache and lock (core/source). Each check returns findings with
// the fix for anything wrong. Every input comes through Env (the PATH to
// search, how to run a program, the folders), so tests give fake compilers
// and a fake Bazel.
package doctor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Status is how a finding reads.
type Status string

const (
	OK   Status = "ok"   // nothing to do
	Info Status = "info" // worth knowing; nothing is broken
	Warn Status = "warn" // something to fix (Fix says how)
)

// Finding is one line of the report.
type Finding struct {
	Check   string // "host compiler", "glibc", "bazel", "cache", "lock"
	Status  Status
	Summary string
	Fix     string // empty when there is nothing to do
}

// Env is what the checks read.
type Env struct {
	// Path is the PATH searched for compilers and Bazel.
	Path string
	// Getenv reads the environment (CC, USE_BAZEL_VERSION); nil reads none.
	Getenv func(string) string
	// Run runs a program and returns its standard output; nil runs it for
	// real with PATH set to Path and a 10 s deadline.
	Run func(ctx context.Context, prog string, args ...string) (string, error)
	// Workspace is the workspace root (.bazelversion, cudapkgs.lock).
	Workspace string
	// CacheDir is the manifests download cache.
	CacheDir string
	// LockFile is the lock of sha256s; relative to Workspace when not absolute.
	LockFile string
	// CUDA are the CUDA versions to judge against; none: the whole table.
	CUDA []version.Version
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e Env) run(ctx context.Context, prog string, args ...string) (string, error) {
	if e.Run != nil {
		return e.Run(ctx, prog, args...)
	}
	if !strings.Contains(prog, "/") {
		// Found on e.Path, not on this process's PATH.
		p := lookOne(e.Path, prog)
		if p == "" {
			return "", fmt.Errorf("%s: not found on PATH", prog)
		}
		prog = p
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(os.Environ(), "PATH="+e.Path)
	cmd.Stdin = nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return out.String(), fmt.Errorf("%w: %s", err, firstLine(msg))
		}
		return out.String(), err
	}
	return out.String(), nil
}

// All runs every check, in the report's order.
func All(ctx context.Context, env Env) []Finding {
	var out []Finding
	out = append(out, HostCompilers(ctx, env)...)
	out = append(out, Glibc(ctx, env)...)
	out = append(out, Bazel(ctx, env)...)
	out = append(out, Cache(env)...)
	return out
}

// look is every executable file on env.Path whose name matches re, first
// one of a name wins (as a shell would run it).
func look(path string, re *regexp.Regexp) []string {
	seen := map[string]bool{}
	var found []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !re.MatchString(e.Name()) || seen[e.Name()] {
				continue
			}
			p := filepath.Join(dir, e.Name())
			st, err := os.Stat(p)
			if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				continue
			}
			seen[e.Name()] = true
			found = append(found, p)
		}
	}
	return found
}

// lookOne is the first executable called name on path, or "".
func lookOne(path, name string) string {
	if p := look(path, regexp.MustCompile("^"+regexp.QuoteMeta(name)+"$")); len(p) > 0 {
		return p[0]
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// cudaRuns writes sorted CUDA versions as runs of the table's consecutive
// rows ("12.4 to 13.5", "11.0 to 12.6, 12.8").
func cudaRuns(rows []gpu.HostCompilers, ok func(gpu.HostCompilers) bool) string {
	var runs []string
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		if start == end {
			runs = append(runs, rows[start].CUDA.String())
		} else {
			runs = append(runs, rows[start].CUDA.String()+" to "+rows[end].CUDA.String())
		}
		start = -1
	}
	for i, r := range rows {
		if ok(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i - 1)
	}
	flush(len(rows) - 1)
	return strings.Join(runs, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
