// Command cudapkgs turns NVIDIA's redistributable manifests into package sets
// for Bazel and Buck2.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/core/warning"
	"github.com/cudapkgs/cudapkgs/core/workspace"
)

// Exit codes: 0 success, 1 bad input (a manifest, a lock file, a download),
// 2 usage (an unknown flag or command, an option value that is not allowed).
const (
	exitOK    = 0
	exitInput = 1
	exitUsage = 2
)

// usageError marks errors that are the caller's command line, not the data.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// app is what every command shares: where output goes. There is no
// package-level state; tests build their own app.
type app struct {
	stdout, stderr io.Writer
	// isTerminal reports whether stderr is a terminal (progress bars).
	isTerminal bool
	// now, when set, is the clock (tests); else time.Now.
	now func() time.Time
}

func (a *app) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}

func main() {
	setGC()
	ctx, stop := signalContext()
	endProfiles := startProfiles(os.Args[1:])
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, stderrIsTerminal())
	endProfiles()
	stop()
	os.Exit(code)
}

// signalContext is cancelled by Ctrl-C (SIGINT) or SIGTERM: the run ends
// the way a failed one does, its plugins stopped with all they started
// (each is in a process group of its own, which the terminal's Ctrl-C does
// not reach). A second signal ends the program at once, the default way.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// setGC: one run, then exit, so trade memory for less garbage collection,
// unless the user set GOGC; but collect harder once the heap nears
// defaultMemoryLimit, unless the user set GOMEMLIMIT. With GOGC=400 alone the
// heap grew to five times what is live, 330 MB of RSS for the full matrix;
// with the limit it stays near 180 MB for about the same CPU
// (docs/benchmarks.md, issue 25). The limit is soft: a run whose live data
// is larger still completes, collecting more often.
func setGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}

// defaultMemoryLimit is the Go runtime's soft memory limit for a run.
const defaultMemoryLimit = 160 << 20

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, terminal bool) int {
	// net/http's transport writes what a misbehaving server does (a response
	// nobody asked for on an idle connection) through the standard logger,
	// straight to the process's stderr, between cudapkgs' own lines. Every
	// failure that matters reaches the user as an error or a warning of its
	// own, so the standard logger says nothing.
	log.SetOutput(io.Discard)
	a := &app{stdout: stdout, stderr: stderr, isTerminal: terminal}
	return a.execute(ctx, args)
}

// execute runs one command line with a's output and returns the exit code.
func (a *app) execute(ctx context.Context, args []string) int {
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(a.stderr, "cudapkgs: %s\n", escapeText(render(err), true))
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return exitUsage
	}
	return exitInput
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "cudapkgs",
		Short: "Package sets for Bazel and Buck2 from NVIDIA's CUDA redistributable manifests",
		Long: `cudapkgs reads NVIDIA's redistributable manifests (CUDA toolkit, cuDNN, cuTENSOR, cuSPARSELt, cuDSS,
TensorRT) and answers, for every CUDA version and platform, which packages exist,
in which version, from which archive, and why something is not available.

A snapshot of NVIDIA's manifests is built in: with no --manifests and no download
cache, every command works offline from it.`,
		Example: `  cudapkgs generate --cuda 12.4.1 --out third_party/cuda
  cudapkgs query --cuda 12.4.1 --platform linux-sbsa
  cudapkgs completion bash > /etc/bash_completion.d/cudapkgs`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(a.queryCmd(), a.runCmd(), a.evalCmd(), a.manifestsCmd(), a.pluginsCmd(), a.pluginCmd(),
		a.generateCmd(), a.reportCmd(), a.initCmd(), a.doctorCmd(), a.versionCmd())
	// --version prints what the version command does. Without a readable
	// snapshot the flag is left out and the version command says why.
	if v, err := versionText(); err == nil {
		root.Version = v
		root.SetVersionTemplate("{{.Version}}")
	}
	if a.stdout != nil {
		// Before completion's command is made: it keeps the writer it sees.
		root.SetOut(a.stdout)
		root.SetErr(a.stderr)
	}
	completionExamples(root)
	return root
}

// completionExamples adds cobra's completion and help commands now (cobra
// would add them at Execute) and gives each an example, as every command has.
func completionExamples(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	examples := map[string]string{
		"help": "  cudapkgs help generate",
		"completion": `  source <(cudapkgs completion bash)
  cudapkgs completion zsh > "${fpath[1]}/_cudapkgs"`,
		"completion bash":       `  cudapkgs completion bash > /etc/bash_completion.d/cudapkgs`,
		"completion zsh":        `  cudapkgs completion zsh > "${fpath[1]}/_cudapkgs"`,
		"completion fish":       `  cudapkgs completion fish > ~/.config/fish/completions/cudapkgs.fish`,
		"completion powershell": `  cudapkgs completion powershell | Out-String | Invoke-Expression`,
	}
	for _, c := range root.Commands() {
		if ex, ok := examples[c.Name()]; ok && c.Example == "" {
			c.Example = ex
		}
		if c.Name() != "completion" {
			continue
		}
		for _, sub := range c.Commands() {
			if ex, ok := examples["completion "+sub.Name()]; ok && sub.Example == "" {
				sub.Example = ex
			}
		}
	}
}

// render is an error's text with the settings the library names its own way
// written as the command line's flags: a strict run's warnings are
// --strict's; a workspace file that points the repository elsewhere is
// matched with --out and --name; a lock is updated with --update-lock.
func render(err error) string {
	msg := err.Error()
	var mismatch *source.LockMismatchError
	if errors.As(err, &mismatch) {
		msg = strings.Replace(msg, mismatch.Error(), mismatch.Message("`cudapkgs manifests fetch --update-lock`"), 1)
	}
	var override *source.OverrideError
	if errors.As(err, &override) {
		pin := "`cudapkgs manifests fetch` of that release in the workspace"
		if product, release, err := source.SplitKey(override.Key); err == nil {
			pin = "`cudapkgs manifests fetch --release " + product + "=" + release + "` in the workspace"
		}
		msg = strings.Replace(msg, override.Error(), override.Message(pin), 1)
	}
	var merge *source.MergeError
	if errors.As(err, &merge) {
		msg = strings.Replace(msg, merge.Error(), merge.Message("with --update-lock"), 1)
	}
	var strict *warning.Strict
	if errors.As(err, &strict) {
		msg = strings.Replace(msg, strict.Error(), strict.Message("--strict"), 1)
	}
	var conflict *workspace.ConflictError
	if errors.As(err, &conflict) {
		msg = strings.Replace(msg, conflict.Error(), conflict.Message("run again with --out and --name matching it"), 1)
	}
	return msg
}
