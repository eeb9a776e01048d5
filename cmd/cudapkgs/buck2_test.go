package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// TestGenerateBuck2 writes a Buck2 cell from the real manifests, checks that
// it lints clean, that the stamp's fast path holds for it, and that
// switching --format regenerates (the flag is part of the stamp).
func TestGenerateBuck2(t *testing.T) {
	m := shared.Manifests(t)
	out := filepath.Join(t.TempDir(), "third_party", "cuda")
	args := generateArgs(m, out, "--cuda", "12.6.3", "--format", "buck2")

	errs := mustGenerate(t, args...)
	wantOutput(t, "stderr", errs, "files written, 0 unchanged, 0 removed")
	tree := readTree(t, out)
	delete(tree, outdir.StampFile)
	for _, p := range []string{"BUCK", "platforms/BUCK", "unusable/BUCK", "rules/cuda.bzl", "toolchain/BUCK"} {
		if _, ok := tree[p]; !ok {
			t.Errorf("no %s in the generated cell", p)
		}
	}
	if _, ok := tree["WORKSPACE"]; ok {
		t.Error("a Bazel WORKSPACE in the Buck2 cell")
	}
	for _, p := range buck2.Lint(tree) {
		t.Error(p)
	}
	wantOutput(t, "BUCK", string(tree["BUCK"]), `name = "libcublas"`, `"//repos/cudnn_9_12_0_46_linux_x86_64_cuda12:cudnn"`)

	wantOutput(t, "stderr", mustGenerate(t, args...), "up to date")

	// The same flags but the other format: the stamp does not match, the
	// Bazel tree replaces the cell (every Buck2 file is generated, so each
	// one the Bazel tree lacks is removed).
	bazelArgs := generateArgs(m, out, "--cuda", "12.6.3", "--format", "bazel")
	errs = mustGenerate(t, bazelArgs...)
	if strings.Contains(errs, "up to date") {
		t.Fatalf("--format bazel over a Buck2 cell: %s", errs)
	}
	wantOutput(t, "stderr", errs, "removed")
	after := readTree(t, out)
	if _, ok := after["WORKSPACE"]; !ok {
		t.Error("no WORKSPACE after --format bazel")
	}
	if _, ok := after["platforms/BUCK"]; ok {
		t.Error("platforms/BUCK survived --format bazel")
	}
}

// TestGenerateFormatUsage: an unknown --format is a usage error (exit 2)
// that names the allowed values, and it is caught before anything is read.
func TestGenerateFormatUsage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cell")
	code, _, errs := runCLI(t, "generate", "--manifests", filepath.Join(t.TempDir(), "nowhere"), "--out", out, "--format", "cmake")
	if code != 2 {
		t.Errorf("exit %d, want 2:\n%s", code, errs)
	}
	wantOutput(t, "stderr", errs, `--format "cmake"`, "bazel or buck2")
}
