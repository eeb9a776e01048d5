package rules

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bazelbuild/buildtools/build"
	"github.com/bazelbuild/buildtools/warn"
)

// bazel9Warnings are buildifier's checks for the symbols Bazel 9 no longer
// has built in (C++, Java, Python, shell, proto and Android rules and
// providers, the native repository rules): each must be loaded.
func bazel9Warnings() []string {
	var out []string
	for _, w := range warn.AllWarnings {
		if strings.HasPrefix(w, "native-") || w == "http-archive" || w == "git-repository" {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// shippedBazelFiles are the BUILD and .bzl files this repository ships or
// builds with: the rules generate copies, the example and the integration
// workspaces. WORKSPACE files are left out: Bazel 9 reads none.
func shippedBazelFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range []string{".", "../examples", "../integration"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), "bazel-")) {
					return filepath.SkipDir
				}
				return nil
			}
			if n := d.Name(); strings.HasSuffix(n, ".bzl") || n == "BUILD" || n == "BUILD.bazel" || strings.HasSuffix(n, ".BUILD") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatal("no BUILD or .bzl files found")
	}
	return out
}

// workspaceOnly are files only the WORKSPACE tier (Bazel 4.2.3) reads, with
// why they cannot load what they use.
var workspaceOnly = map[string]string{
	// Bazel 4.2.3's built-in coverage stand-in; sh_binary would come from
	// rules_shell, which Debian bookworm does not package.
	"../integration/workspace/third_party/bazel_offline/remote_coverage_tools/BUILD.bazel": "no rules_shell for Bazel 4.2.3",
}

// TestLoadsForBazel9: every shipped BUILD and .bzl file loads each rule and
// provider Bazel 9 removed from its built-ins (cc_library, CcInfo,
// cc_common, sh_binary, http_archive, ...), and none silences the check.
func TestLoadsForBazel9(t *testing.T) {
	checks := bazel9Warnings()
	if len(checks) < 10 {
		t.Fatalf("buildtools has only %d native-* checks: %v", len(checks), checks)
	}
	for _, p := range shippedBazelFiles(t) {
		if workspaceOnly[filepath.ToSlash(p)] != "" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("buildifier: disable=native-")) {
			t.Errorf("%s: silences a native-* check; load the symbol instead", p)
		}
		var f *build.File
		if strings.HasSuffix(p, ".bzl") {
			f, err = build.ParseBzl(p, b)
		} else {
			f, err = build.ParseBuild(p, b)
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, w := range warn.FileWarnings(f, checks, nil, warn.ModeWarn, nil) {
			t.Errorf("%s:%d: %s: %s", p, w.Start.Line, w.Category, w.Message)
		}
	}
}
