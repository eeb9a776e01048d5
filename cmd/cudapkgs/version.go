package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/snapshot"
)

// versionText is what `cudapkgs version` and `cudapkgs --version` print:
// one "key value" line each, the same for every run of one binary.
func versionText() (string, error) {
	module, goVersion, commit := "(unknown)", runtime.Version(), ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		module = bi.Main.Version
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		commit = vcsRevision(bi.Settings)
	}
	info, err := snapshot.Embedded()
	if err != nil {
		return "", fmt.Errorf("the snapshot built into cudapkgs: %w", err)
	}
	s := fmt.Sprintf("cudapkgs %s\n", module)
	if commit != "" {
		s += fmt.Sprintf("commit %s\n", commit)
	}
	return s + fmt.Sprintf("go %s\nsnapshot %s\n", goVersion, info.Date), nil
}

// vcsRevision is the commit a checkout build was made from ("" for a
// module build, which has its version instead), "-dirty" when it had
// uncommitted changes.
func vcsRevision(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print cudapkgs' version, the Go version it was built with and the date of its built-in snapshot",
		Long: `version prints, one per line: the module version of cudapkgs ("(devel)" for a build
from a checkout, which also gets the commit), the Go version it was built with, and
the day the snapshot of NVIDIA's manifests built into it was taken. cudapkgs
--version prints the same.`,
		Example: `  cudapkgs version
  cudapkgs --version`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := versionText()
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(a.stdout, s)
			return err
		},
	}
}
