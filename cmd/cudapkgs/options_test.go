package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/core/warning"
	"github.com/cudapkgs/cudapkgs/core/workspace"
	"github.com/cudapkgs/cudapkgs/internal/golden"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// An error about an option names it as the user set it: the flag when the
// command line did, the file's line and builtin when cudapkgs.star did (a
// local_cuda() in the file is never blamed on --local-cuda), and the
// options its fix goes through the same way.
func TestOptionErrorsNameWhereTheOptionWasSet(t *testing.T) {
	m := shared.Manifests(t)
	full := cudaHome(t, m, "cuda_nvcc", "cuda_cudart")
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		star string   // cudapkgs.star, "" for none
		args []string // after generate --manifests --out
		want string   // in the error's line of stderr
	}{
		{"local_cuda not an install: flag", "", []string{"--cuda", "12.4.1", "--platform", "linux-x86_64", "--local-cuda", empty},
			"cudapkgs: --local-cuda: CUDA install " + empty + ": no known layout"},
		{"local_cuda not an install: file", "cuda_versions([\"12.4.1\"])\ntarget_platforms([\"linux-x86_64\"])\nlocal_cuda(\"" + empty + "\")\n", nil,
			"cudapkgs: cudapkgs.star:3:11: local_cuda: CUDA install " + empty + ": no known layout"},
		{"local_cuda other CUDA: flags", "", []string{"--cuda", "12.6.3", "--platform", "linux-x86_64", "--local-cuda", full},
			"cudapkgs: --local-cuda: " + full + ": the install is CUDA 12.4.1 (cuda-home layout, read from " + filepath.Join(full, "version.json") + "), which is not among the configured CUDA versions 12.6.3: add it to --cuda"},
		{"local_cuda other CUDA: file", "cuda_versions([\"12.6.3\"])\ntarget_platforms([\"linux-x86_64\"])\nlocal_cuda(\"" + full + "\")\n", nil,
			"cudapkgs: cudapkgs.star:3:11: local_cuda: " + full + ": the install is CUDA 12.4.1 (cuda-home layout, read from " + filepath.Join(full, "version.json") + "), which is not among the configured CUDA versions 12.6.3: add it to cuda_versions() in cudapkgs.star"},
		{"local_cuda in the file, CUDA versions from a flag", "local_cuda(\"" + full + "\")\n", []string{"--cuda", "12.6.3", "--platform", "linux-x86_64"},
			"cudapkgs: cudapkgs.star:1:11: local_cuda: " + full + ": the install is CUDA 12.4.1 (cuda-home layout, read from " + filepath.Join(full, "version.json") + "), which is not among the configured CUDA versions 12.6.3: add it to --cuda"},
		{"local_cuda not targeted: file", "cuda_versions([\"12.4.1\"])\n\ntarget_platforms([\"linux-sbsa\"])\nlocal_cuda(\"" + full + "\")\n", nil,
			"cudapkgs: cudapkgs.star:4:11: local_cuda: " + full + ": the install is for linux-x86_64, which is not among the target platforms: add it to target_platforms() in cudapkgs.star"},
		{"local_cuda with buck2: flag", "", []string{"--cuda", "12.4.1", "--platform", "linux-x86_64", "--format", "buck2", "--local-cuda", full},
			"cudapkgs: --local-cuda: not supported with the buck2 format yet (see docs/output-formats.md)"},
		{"local_cuda with buck2: file", "local_cuda(\"" + full + "\")\n", []string{"--cuda", "12.4.1", "--platform", "linux-x86_64", "--format", "buck2"},
			"cudapkgs: cudapkgs.star:1:11: local_cuda: not supported with the buck2 format yet (see docs/output-formats.md)"},
		{"local_components: flag", "", []string{"--cuda", "12.4.1", "--platform", "linux-x86_64", "--local-components", "cuda_nvcc"},
			"cudapkgs: --local-components: cuda_nvcc: set without the root of an installed CUDA: expected --local-cuda as well"},
		{"local_components unknown: file", "cuda_versions([\"12.4.1\"])\ntarget_platforms([\"linux-x86_64\"])\nlocal_cuda(\"" + full + "\", components = [\"nosuch\"])\n", nil,
			"cudapkgs: cudapkgs.star:3:11: local_cuda: nosuch is not a component of CUDA 12.4.1"},
		{"exec: flag", "", []string{"--cuda", "12.4.1", "--exec", "windows-x86_64"},
			"cudapkgs: --exec: windows-x86_64 cannot run builds"},
		{"exec: file", "exec_platform(\"windows-x86_64\")\n", []string{"--cuda", "12.4.1"},
			"cudapkgs: cudapkgs.star:1:14: exec_platform: windows-x86_64 cannot run builds"},
		{"pin: flag", "", []string{"--cuda", "12.4.1", "--pin", "cudnn=1.2"},
			"cudapkgs: --pin: \"cudnn=1.2\": no cudnn release 1.2"},
		{"pin: file", "cuda_versions([\"12.4.1\"])\npin(\"cudnn\", \"9\")\npin(\"cudnn\", \"1.2\")\n", nil,
			"cudapkgs: cudapkgs.star:3:4: pin: \"cudnn=1.2\": no cudnn release 1.2"},
		{"capabilities: flags", "", []string{"--cuda", "13.0.0", "--capabilities", "6.1"},
			"(choose CUDA versions in that range with --cuda, or drop the capability)"},
		{"capabilities: file", "cuda_versions([\"13.0.0\"])\ncapabilities([\"6.1\"])\n", nil,
			"cudapkgs: cudapkgs.star:2:13: capabilities: capability 6.1 (Pascal) is not supported by CUDA 13.0.0: supported from CUDA 10.0 to 12.9 (choose CUDA versions in that range with cuda_versions() in cudapkgs.star, or drop the capability)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if tc.star != "" {
				writeFileT(t, filepath.Join(ws, "cudapkgs.star"), tc.star)
			}
			out := filepath.Join(ws, "out")
			args := append([]string{"generate", "--workspace", ws, "--manifests", m, "--out", out}, tc.args...)
			code, _, errs := runCLI(t, args...)
			if code == 0 {
				t.Fatalf("exit 0, want an error %q", tc.want)
			}
			// The error's line, after the manifests' warnings.
			var first string
			for _, line := range strings.Split(errs, "\n") {
				if strings.HasPrefix(line, "cudapkgs: ") {
					first = line
					break
				}
			}
			if !strings.Contains(first, tc.want) {
				t.Errorf("error %q\nwant it to hold %q", first, tc.want)
			}
			if fromFile := strings.HasPrefix(first, "cudapkgs: cudapkgs.star:"); fromFile != (tc.star != "") {
				t.Errorf("blamed on the file: %v, want %v: %s", fromFile, tc.star != "", first)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s exists after a failed run (err %v)", out, err)
			}
		})
	}
}

// The options table of docs/configuration.md is made from config.Table's
// rows, between its two markers. Refresh it with
// go test ./cmd/cudapkgs -run TestOptionsTableUpToDate -update.
func TestOptionsTableUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "configuration.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- options: generated from config.Table by TestOptionsTableUpToDate; do not edit -->\n", "<!-- end of options -->\n"
	head, rest, ok := strings.Cut(string(doc), begin)
	_, tail, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("%s: no %q ... %q", path, strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	golden.File(t, path, []byte(head+begin+optionsTable()+end+tail))
}

// optionsTable is the markdown table of the options: name, flag, call in
// cudapkgs.star and doc.
func optionsTable() string {
	cell := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`) }
	var b strings.Builder
	b.WriteString("| option | flag | in cudapkgs.star | what it sets |\n|---|---|---|---|\n")
	for _, opt := range config.Table() {
		var calls []string
		for _, c := range strings.Split(opt.Example, "\n") {
			calls = append(calls, "`"+cell(c)+"`")
		}
		doc := opt.Doc
		if opt.Accumulate {
			doc += " A later layer adds to the earlier layers' list instead of replacing it."
		}
		fmt.Fprintf(&b, "| `%s` | `--%s` | %s | %s |\n", opt.Name, opt.Flag, strings.Join(calls, "<br>"), cell(doc))
	}
	return b.String()
}

// The library's errors name its own settings (strict, the lock's update,
// the repository's path and name); the command line renders its flags in
// their place, wrapped or not.
func TestRenderNamesFlags(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&warning.Strict{Warnings: []string{"w"}}, "--strict: 1 warning, and --strict makes them errors:\n  w"},
		{fmt.Errorf("generate: %w", &warning.Strict{Warnings: []string{"a", "b"}}), "generate: --strict: 2 warnings, and --strict makes them errors:\n  a\n  b"},
		{&workspace.ConflictError{File: "MODULE.bazel", Line: 2, What: "x()", Want: "y()"}, "MODULE.bazel:2: x() is already there, and it is not y(): change or remove it, or run again with --out and --name matching it; the file was not changed"},
		{fmt.Errorf("reading: %w", &source.LockMismatchError{File: "f.json", Key: "p/f.json", LockFile: "cudapkgs.lock"}), "fetch it again, or accept the new bytes with `cudapkgs manifests fetch --update-lock`)"},
		{&source.MergeError{LockFile: "cudapkgs.lock", Key: "p/f.json"}, "run again, or with --update-lock to replace it"},
		{fmt.Errorf("reading: %w", &source.OverrideError{File: "f.json", Key: "cuda/redistrib_12.4.1.json", Source: "snapshot"}), "or download the release again and pin what arrives with `cudapkgs manifests fetch --release cuda=12.4.1` in the workspace"},
	} {
		if strings.Contains(tc.err.Error(), "--") {
			t.Errorf("the library names a flag: %s", tc.err)
		}
		if got := render(tc.err); !strings.Contains(got, tc.want) {
			t.Errorf("render(%q)\n= %q\nwant it to hold %q", tc.err, got, tc.want)
		}
	}
}
