// Command cudapkgs turns NVIDIA's redistributable manifests into package sets
// for Bazel and Buck2.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/spf13/cobra"
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
}

func main() {
	setGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, stderrIsTerminal())
	stop()
	os.Exit(code)
}

// setGC: one run, then exit, so trade memory for less garbage collection,
// unless the user set GOGC.
func setGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, terminal bool) int {
	a := &app{stdout: stdout, stderr: stderr, isTerminal: terminal}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "cudapkgs: %s\n", escapeText(err.Error(), true))
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
		Long: `cudapkgs reads NVIDIA's redistributable manifests (CUDA toolkit, cuDNN, cuTENSOR,
TensorRT) and answers, for every CUDA version and platform, which packages exist,
in which version, from which archive, and why something is not available.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(a.queryCmd(), a.runCmd(), a.evalCmd(), a.manifestsCmd(), a.pluginsCmd(), a.pluginCmd(),
		a.generateCmd())
	return root
}
