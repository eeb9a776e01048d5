package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/core/stamp"
)

func (a *app) generateCmd() *cobra.Command {
	var out, name, format string
	var force bool
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write a Bazel repository (the @cuda hub) for the package sets",
		Long: `generate builds the package sets as query does and writes a self-contained Bazel
repository to --out: a hub with one target per package (@cuda//:libcublas) that
selects, by --@cuda//:version and the target platform, the http_archive that serves
it, the archives' BUILD files, platforms, and targets that fail at analysis with the
reasons a package cannot be used. The folder is also a Bazel module: bzlmod users
add bazel_dep(name = "cuda") with local_path_override and configure it with the
cuda module extension's tags; WORKSPACE users call cuda_repositories(). See
docs/bazel.md. --local-cuda PATH uses an installed CUDA instead of downloads for its
version and platform (docs/local-cuda.md); --format buck2 writes a Buck2 cell of the
same shape instead (docs/buck2.md).

The new tree is built in a folder next to --out (unchanged files and files you
added are hard links) and swapped with --out in one rename, under a lock on the
folder that holds --out: a run that fails or is killed leaves --out exactly as it
was, and a second generate into the same --out waits for the first. Files of an
earlier run that are no longer produced are left out: only files whose first line
is "` + bazel.Header + `"; everything else in --out is kept. When --out is the
working folder or holds it (--out .), its files are replaced one by one instead,
with a warning, so that the folder stays where the shell is. See docs/output.md.

After a successful run --out/` + outdir.StampFile + ` records a digest of every input (the
manifests, the configuration files, the flags, this binary) and of every file
written. While they all still match, generate prints "up to date" and does
nothing, without starting the plugins; --force regenerates regardless.

Without --manifests the manifests come from the download cache merged over the
snapshot built into cudapkgs; when that snapshot served and is over 180 days old,
generate says so once (cudapkgs manifests fetch gets newer ones).`,
		Example: `  cudapkgs generate --cuda 12.4.1 --out third_party/cuda
  cudapkgs generate --manifests DIR --out third_party/cuda --cuda 12.4.1,12.6.3 --platform linux-x86_64,linux-sbsa
  cudapkgs generate --cuda 12.4.1 --format buck2 --out third-party/cuda`,
		Args: cobra.NoArgs,
	}
	f := addConfigFlags(cmd)
	cmd.Flags().StringVar(&out, "out", "", "folder to write the repository to (created if missing)")
	cmd.Flags().StringVar(&name, "name", "cuda", "the repository's name in the workspace (local_repository(name = ...)); prefixes the archives' repositories")
	cmd.Flags().BoolVar(&force, "force", false, "regenerate even when --out is up to date with its inputs")
	// Hashed into the stamp with every other flag (flagInputs), so switching
	// formats regenerates.
	cmd.Flags().StringVar(&format, "format", string(cudapkgs.Bazel), "what to write: "+cudapkgs.FormatHelp())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if out == "" {
			return usagef("--out is required: the folder to write the Bazel repository to")
		}
		var unknown *cudapkgs.UnknownFormatError
		if _, err := cudapkgs.FormatNamed(format); errors.As(err, &unknown) {
			return usagef("--format %q: expected %s", format, unknown.Expected())
		}
		_, err := a.generate(cmd, f, out, name, cudapkgs.Format(format), force)
		return err
	}
	return cmd
}

// generate writes the repository (or cell) of the package sets to out,
// unless out is up to date with the run's inputs and force is false: the
// work of generate, shared with init, in one library call. upToDate says
// that nothing was done.
func (a *app) generate(cmd *cobra.Command, f *configFlags, out, name string, format cudapkgs.Format, force bool) (upToDate bool, err error) {
	in, err := f.inputs(a)
	if err != nil {
		return false, err
	}
	own, err := flagInputs(cmd)
	if err != nil {
		return false, err
	}
	res, err := cudapkgs.Generate(cmd.Context(), cudapkgs.Job{Inputs: in, Format: format, Name: name, Out: out, Force: force, Stamp: own,
		OnWait: func(lock string) {
			fmt.Fprintf(a.stderr, "generate: %s: waiting for another cudapkgs generate into it (lock on %s)\n", out, lock)
		}})
	var oe *cudapkgs.OutputError
	if errors.As(err, &oe) {
		// outdir's errors start with the folder as the user wrote it.
		return false, fmt.Errorf("--out %w", oe.Err)
	}
	if err != nil {
		return false, explain(err, f)
	}
	if res.UpToDate {
		fmt.Fprintf(a.stderr, "generate: %s: up to date\n", out)
		if res.Leftover != "" {
			fmt.Fprintf(a.stderr, "warning: %s: a temporary folder could not be removed (the next run tries again): %s\n", out, res.Leftover)
		}
		return true, nil
	}
	if l := res.Local; l != nil {
		fmt.Fprintf(a.stderr, "local CUDA %s (%s layout, CUDA %s, %s): using %s\n", l.Root, l.Layout, l.Release, l.Target.Name(), strings.Join(l.Used, ", "))
		if len(l.Skipped) > 0 {
			fmt.Fprintf(a.stderr, "local CUDA %s: not complete there, downloaded instead: %s\n", l.Root, strings.Join(l.Skipped, ", "))
		}
	}
	if res.StampErr != nil {
		// Only the fast path is lost: the next run regenerates.
		fmt.Fprintf(a.stderr, "warning: %s: %v\n", filepath.Join(out, outdir.StampFile), res.StampErr)
	}
	a.noteOldSnapshot(res.SnapshotTaken)
	fmt.Fprintf(a.stderr, "generate: %s: %d files written, %d unchanged, %d removed\n", out, res.Written, res.Unchanged, res.Removed)
	if res.InPlace != "" {
		fmt.Fprintf(a.stderr, "warning: %s: files replaced one by one, not all at once: %s (docs/output.md)\n", out, res.InPlace)
	}
	if res.Leftover != "" {
		fmt.Fprintf(a.stderr, "warning: %s: the new tree is in place, but a temporary folder could not be removed (the next run tries again): %s\n", out, res.Leftover)
	}
	return false, nil
}

// flagInputs are what the command line adds to the stamp: the working
// folder (relative paths in flags) and every flag but --out and --force.
// The library adds the rest (this binary, which serves the built-in
// plugins; the workspace, configuration file and manifest folders).
func flagInputs(cmd *cobra.Command) (stamp.Inputs, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	in := stamp.Inputs{{Kind: stamp.Value, Name: "wd", Value: wd}}
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name == "out" || fl.Name == "force" {
			return
		}
		in = append(in, stamp.Input{Kind: stamp.Value, Name: "flag " + fl.Name, Value: fmt.Sprintf("%t %q", fl.Changed, fl.Value.String())})
	})
	return in, nil
}

// snapshotMaxAge is the age past which generate says the snapshot is old.
const snapshotMaxAge = 180 * 24 * time.Hour

// noteOldSnapshot says, once, when the snapshot built into cudapkgs served
// a release (taken is its day; zero when it served none) and is more than
// snapshotMaxAge old: NVIDIA has likely published newer manifests, which
// manifests fetch would put in the cache.
func (a *app) noteOldSnapshot(taken time.Time) {
	if taken.IsZero() {
		return
	}
	if age := a.clock().Sub(taken); age > snapshotMaxAge {
		fmt.Fprintf(a.stderr, "note: the manifests built into cudapkgs are from %s (%d days ago); NVIDIA may have released newer ones: `cudapkgs manifests fetch` downloads them into the cache, which wins over the built-in copy\n", taken.Format(time.DateOnly), int(age.Hours()/24))
	}
}
