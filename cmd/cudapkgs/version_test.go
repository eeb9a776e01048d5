package main

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/snapshot"
)

// version and --version print the same lines: the module version, the Go
// version and the snapshot's date, identically from run to run.
func TestVersion(t *testing.T) {
	info, err := snapshot.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^cudapkgs \S+\n(commit [0-9a-f]+(-dirty)?\n)?go ` + regexp.QuoteMeta(runtime.Version()) + `\nsnapshot ` + regexp.QuoteMeta(info.Date) + `\n$`)
	var first string
	for _, args := range [][]string{{"version"}, {"--version"}, {"version"}} {
		code, stdout, stderr := runAt(t, time.Time{}, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if !want.MatchString(stdout) {
			t.Errorf("%v: %q does not match %s", args, stdout, want)
		}
		if first == "" {
			first = stdout
		} else if stdout != first {
			t.Errorf("%v: %q, the first run printed %q", args, stdout, first)
		}
	}
	if code, _, stderr := runAt(t, time.Time{}, "version", "extra"); code != exitUsage {
		t.Errorf("version extra: exit %d, want %d: %s", code, exitUsage, stderr)
	}
}

func TestVCSRevision(t *testing.T) {
	for _, tc := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, ""},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}, "abc123"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "abc123"}}, "abc123-dirty"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, ""},
	} {
		if got := vcsRevision(tc.settings); got != tc.want {
			t.Errorf("vcsRevision(%v) = %q, want %q", tc.settings, got, tc.want)
		}
	}
}
