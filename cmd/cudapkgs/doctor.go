package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/core/doctor"
	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/core/version"
)

func (a *app) doctorCmd() *cobra.Command {
	var cuda []string
	var lock, ws string
	cmd := &cobra.Command{
		Use: "doctor",
		Example: `  cudapkgs doctor
  cudapkgs doctor --cuda 12.4.1,13.0 --workspace .`,
		Short: "Check this machine: host compilers, glibc, Bazel, the manifests cache and lock",
		Long: `doctor checks what the builds cudapkgs sets up need from this machine, and says
how to fix what is wrong:

  host compiler  every gcc, g++, clang and clang++ (also gcc-13 and the like) on
                 PATH, its version from its predefined macros, and the CUDA
                 versions whose nvcc accepts it (cudapkgs' host-compiler table);
                 with --cuda, a warning for each refusal of the compiler Bazel
                 uses by default ($CC, else gcc)
  glibc          its version against CUDA's crt/math_functions.h (glibc 2.41
                 and newer need the patch the generated repositories apply to
                 CUDA 11.7 to 12.9)
  bazel          bazel --version, or the version Bazelisk would use (not run:
                 it may download), and what the generated repository supports
  cache, lock    the manifests download cache, whether a fetch holds it now,
                 and whether it matches cudapkgs.lock

It reads nothing from the network, needs no manifests, and exits 0: the lines
starting "warn" are the ones to act on.

  cudapkgs doctor
  cudapkgs doctor --cuda 12.4,12.6.3`,
		Args: cobra.NoArgs,
	}
	cmd.Flags().StringSliceVar(&cuda, "cuda", nil, "CUDA versions to judge the host compilers and glibc against (default: the whole table)")
	cmd.Flags().StringVar(&lock, "lock", source.LockFileName, "lock file, relative to the workspace root")
	cmd.Flags().StringVar(&ws, "workspace", "", "workspace root (.bazelversion, cudapkgs.lock; default: as for the other commands)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		env := doctor.Env{Path: os.Getenv("PATH"), Getenv: os.Getenv, LockFile: lock}
		for _, c := range cuda {
			v, err := version.Parse(c)
			if err != nil {
				return usagef("--cuda %q: %v", c, err)
			}
			env.CUDA = append(env.CUDA, v)
		}
		root, err := (&configFlags{workspace: ws}).workspaceRoot()
		if err != nil {
			return err
		}
		env.Workspace = root
		if dir, err := source.DefaultCacheDir(); err == nil {
			env.CacheDir = dir
		}
		warns := 0
		for _, f := range doctor.All(cmd.Context(), env) {
			fmt.Fprintf(a.stdout, "%-4s  %s: %s\n", f.Status, f.Check, f.Summary)
			if f.Fix != "" {
				fmt.Fprintf(a.stdout, "      fix: %s\n", f.Fix)
			}
			if f.Status == doctor.Warn {
				warns++
			}
		}
		switch warns {
		case 0:
			fmt.Fprintln(a.stdout, "no problems found")
		case 1:
			fmt.Fprintln(a.stdout, "1 problem to fix (warn)")
		default:
			fmt.Fprintf(a.stdout, "%d problems to fix (warn)\n", warns)
		}
		return nil
	}
	return cmd
}
