package main

import (
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bazelbuild/buildtools/build"

	"github.com/cudapkgs/cudapkgs/core/archives"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// TestMessagesShort generates, from NVIDIA's real manifests, every CUDA
// version at once for Bazel and Buck2, with the default capabilities and
// with Pascal (which most libraries no longer serve, so that many cells are
// unusable whatever the defaults become), and checks every failure message
// of the trees: none is over archives.MaxMessage bytes (issue 21: one
// reached 5,810), and each unusable cell's names the query that lists every
// reason.
func TestMessagesShort(t *testing.T) {
	m := shared.Manifests(t)
	// CUDA 13 no longer builds for Pascal: Turing provokes it there
	// (cuSPARSELt and cudnn_jit need NVIDIA Ampere).
	var before13, from13 []string
	files, err := filepath.Glob(filepath.Join(m, "cuda", "redistrib_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "redistrib_"), ".json")
		if strings.HasPrefix(v, "11.") || strings.HasPrefix(v, "12.") {
			before13 = append(before13, v)
		} else {
			from13 = append(from13, v)
		}
	}
	if len(before13) == 0 || len(from13) == 0 {
		t.Fatalf("CUDA versions in %s: %v and %v, want some before 13 and some from 13", m, before13, from13)
	}
	old, newer := strings.Join(before13, ","), strings.Join(from13, ",")
	for _, tt := range []struct {
		name  string
		extra []string
	}{
		{"bazel", nil},
		{"bazel-pascal", []string{"--cuda", old, "--capabilities", "6.0"}},
		{"bazel-turing", []string{"--cuda", newer, "--capabilities", "7.5"}},
		{"buck2", []string{"--format", "buck2"}},
		{"buck2-pascal", []string{"--format", "buck2", "--cuda", old, "--capabilities", "6.0"}},
		{"buck2-turing", []string{"--format", "buck2", "--cuda", newer, "--capabilities", "7.5"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			mustGenerate(t, append([]string{"generate", "--manifests", m, "--out", out,
				"--platform", "linux-x86_64,linux-sbsa,linux-jetson"}, tt.extra...)...)
			var n, cells, longest int
			for name, body := range readTree(t, out) {
				base := path.Base(name)
				if base != "BUILD.bazel" && base != "BUCK" && !strings.HasSuffix(base, ".bzl") && !strings.HasSuffix(base, ".BUILD") {
					continue
				}
				f, err := build.ParseDefault(name, body)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for _, msg := range messages(f) {
					n++
					longest = max(longest, len(msg))
					if len(msg) > archives.MaxMessage {
						t.Errorf("%s: a message of %d bytes, over %d: %s", name, len(msg), archives.MaxMessage, msg)
					}
					if strings.Contains(msg, " cannot be used with CUDA ") && !strings.Contains(msg, "there is no package") {
						cells++
						if !strings.Contains(msg, "cudapkgs query --cuda ") || !strings.HasSuffix(msg, "--format json)") {
							t.Errorf("%s: names no query: %s", name, msg)
						}
						if strings.Contains(tt.name, "-") && !strings.Contains(msg, "--capabilities "+tt.extra[len(tt.extra)-1]) {
							t.Errorf("%s: the query lacks the capabilities: %s", name, msg)
						}
					}
				}
			}
			// Pascal makes TensorRT, cuDNN, cuTENSOR and cuSPARSELt
			// unusable on every platform of every CUDA version that has
			// them: thousands of cells, not a test that checks nothing.
			if n < 300 || (strings.Contains(tt.name, "-") && cells < 100) {
				t.Errorf("%d messages, %d of unusable cells: fewer than generated", n, cells)
			}
			t.Logf("%d messages, %d of unusable cells, longest %d bytes", n, cells, longest)
		})
	}
}

// messages are a file's failure messages: the string given to fail(), and
// every message = "..." argument.
func messages(f *build.File) []string {
	var out []string
	build.Walk(f, func(x build.Expr, _ []build.Expr) {
		call, ok := x.(*build.CallExpr)
		if !ok {
			return
		}
		if id, ok := call.X.(*build.Ident); ok && id.Name == "fail" && len(call.List) > 0 {
			if s, ok := call.List[0].(*build.StringExpr); ok {
				out = append(out, s.Value)
			}
		}
		for _, a := range call.List {
			if as, ok := a.(*build.AssignExpr); ok {
				if id, ok := as.LHS.(*build.Ident); ok && id.Name == "message" {
					if s, ok := as.RHS.(*build.StringExpr); ok {
						out = append(out, s.Value)
					}
				}
			}
		}
	})
	return out
}
