package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var bazelVersion = regexp.MustCompile(`\b([0-9]+)\.([0-9]+)\.([0-9]+)\S*`)

// Bazel reports the Bazel on PATH: its version (bazel --version, which
// starts no server) and what the generated repository supports with it. A
// bazel that is Bazelisk, or a bazelisk, is not run (it may download a
// Bazel); the version it would use is read from $USE_BAZEL_VERSION or the
// workspace's .bazelversion.
func Bazel(ctx context.Context, env Env) []Finding {
	const check = "bazel"
	bazel, bazelisk := lookOne(env.Path, "bazel"), lookOne(env.Path, "bazelisk")
	if bazel != "" {
		if real, err := filepath.EvalSymlinks(bazel); err == nil && strings.Contains(filepath.Base(real), "bazelisk") {
			bazelisk, bazel = bazel, ""
		}
	}
	switch {
	case bazel != "":
		out, err := env.run(ctx, bazel, "--version")
		line := firstLine(out)
		if err != nil {
			return []Finding{{Check: check, Status: Warn, Summary: fmt.Sprintf("%s --version failed: %v", bazel, err),
				Fix: "check the installation (Debian: apt-get install bazel-bootstrap)"}}
		}
		if strings.Contains(line, "no_version") {
			// Debian's bazel-bootstrap 4.2.3 strips its version.
			return []Finding{{Check: check, Status: Info, Summary: fmt.Sprintf("%s: %q, a build without a version (Debian's bazel-bootstrap): WORKSPACE with cuda_repositories() works from 4.2.3, bzlmod needs Bazel 7", bazel, line)}}
		}
		return []Finding{judgeBazel(check, fmt.Sprintf("%s: %s", bazel, line), line)}
	case bazelisk != "":
		v, from := env.getenv("USE_BAZEL_VERSION"), "$USE_BAZEL_VERSION"
		if v == "" {
			if data, err := os.ReadFile(filepath.Join(env.Workspace, ".bazelversion")); err == nil {
				v, from = strings.TrimSpace(string(data)), filepath.Join(env.Workspace, ".bazelversion")
			}
		}
		if v == "" {
			return []Finding{{Check: check, Status: Info, Summary: fmt.Sprintf("%s is Bazelisk, and neither $USE_BAZEL_VERSION nor .bazelversion chooses a version: it downloads the newest Bazel when it runs (not run here)", bazelisk),
				Fix: "pin one: echo 7.7.1 > .bazelversion"}}
		}
		return []Finding{judgeBazel(check, fmt.Sprintf("%s is Bazelisk: Bazel %s from %s (not run here)", bazelisk, v, from), v)}
	}
	return []Finding{{Check: check, Status: Warn, Summary: "no bazel or bazelisk on PATH (cudapkgs itself does not need one; the repository it generates does)",
		Fix: "install Bazel 7 or newer (Bazelisk, or Debian's bazel-bootstrap) and put it on PATH"}}
}

// judgeBazel says what the generated repository supports with a version.
func judgeBazel(check, summary, text string) Finding {
	m := bazelVersion.FindStringSubmatch(text)
	if m == nil {
		return Finding{Check: check, Status: Info, Summary: summary + ": no version number in it"}
	}
	major, minor := atoi(m[1]), atoi(m[2])
	switch {
	case major >= 7:
		return Finding{Check: check, Status: OK, Summary: summary + ": bzlmod (MODULE.bazel, the cuda extension) and WORKSPACE both work"}
	case major > 4 || major == 4 && minor >= 2:
		return Finding{Check: check, Status: Warn, Summary: summary + ": WORKSPACE only (local_repository and cuda_repositories()); the generated module needs Bazel 7",
			Fix: "use the WORKSPACE lines (cudapkgs init does in a workspace without MODULE.bazel), or upgrade to Bazel 7"}
	}
	return Finding{Check: check, Status: Warn, Summary: summary + ": older than the oldest Bazel the generated repository is tested with (4.2.3)",
		Fix: "upgrade to Bazel 7 or newer"}
}
