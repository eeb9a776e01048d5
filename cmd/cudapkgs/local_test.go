package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// cudaHome writes a /usr/local/cuda-shaped install of CUDA 12.4.1 for
// linux-x86_64 under a new folder: version.json, and a file (or folder) for
// every path the plugins list for the given components, where NVIDIA's
// installers put it (libraries and headers under targets/x86_64-linux, with
// lib64 linking to its lib).
func cudaHome(t *testing.T, manifests string, components ...string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "cuda-12.4")
	versions := map[string]any{"cuda": map[string]string{"version": "12.4.1"}}
	for _, c := range components {
		code, out, errs := runCLI(t, "query", "--manifests", manifests, "--cuda", "12.4.1", "--platform", "linux-x86_64", "--package", c, "--format", "json")
		if code != 0 {
			t.Fatalf("query %s: exit %d: %s", c, code, errs)
		}
		var q map[string]struct {
			Packages map[string]struct {
				Version string                                        `json:"version"`
				Files   map[string]map[string][]struct{ Path string } `json:"files"`
			} `json:"packages"`
		}
		if err := json.Unmarshal([]byte(out), &q); err != nil {
			t.Fatalf("query %s: %v", c, err)
		}
		pkg := q["12.4.1"].Packages[c]
		versions[c] = map[string]string{"version": pkg.Version}
		for kind, files := range pkg.Files["linux-x86_64"] {
			for _, f := range files {
				p := f.Path
				if strings.HasPrefix(p, "lib/") || p == "include" || strings.HasPrefix(p, "include/") {
					p = "targets/x86_64-linux/" + p
				}
				full := filepath.Join(root, filepath.FromSlash(p))
				if kind == "headers" || (kind == "data" && filepath.Ext(p) == "") {
					mkdirAll(t, full)
					writeFileT(t, filepath.Join(full, "placeholder.h"), "")
					continue
				}
				mkdirAll(t, filepath.Dir(full))
				writeFileT(t, full, "")
			}
		}
	}
	mkdirAll(t, filepath.Join(root, "targets", "x86_64-linux", "lib"))
	if err := os.Symlink("targets/x86_64-linux/lib", filepath.Join(root, "lib64")); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(versions)
	if err != nil {
		t.Fatal(err)
	}
	writeFileT(t, filepath.Join(root, "version.json"), string(b))
	return root
}

func mkdirAll(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFileT(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGenerateLocalCUDA(t *testing.T) {
	m := shared.Manifests(t)
	root := cudaHome(t, m, "cuda_nvcc", "cuda_cudart")
	out := filepath.Join(t.TempDir(), "cuda")
	args := []string{"generate", "--manifests", m, "--out", out, "--cuda", "12.4.1", "--platform", "linux-x86_64,linux-sbsa", "--local-cuda", root}

	errs := mustGenerate(t, args...)
	// cuda_cccl has nothing of its own here (its headers would be in the
	// shared include folder), but cuda_cudart depends on it: it comes along.
	wantOutput(t, "stderr", errs, "local CUDA "+root+" (cuda-home layout, CUDA 12.4.1, linux-x86_64): using cuda_cccl 12.4.127, cuda_cudart 12.4.127, cuda_nvcc 12.4.131\n")
	gen := string(readTree(t, out)["generated.bzl"])
	wantOutput(t, "generated.bzl", gen,
		`"path": "`+root+`"`,
		`"cuda_cuda_nvcc_12_4_131_linux_x86_64": {`,
		`"bin/nvcc": "`+filepath.Join(root, "bin", "nvcc")+`"`,
		`"lib/libcudart.so.12": "`+filepath.Join(root, "lib64", "libcudart.so.12")+`"`)
	// Only the install's platform: the sbsa archives stay downloads.
	if strings.Contains(gen[strings.Index(gen, "LOCAL = "):strings.Index(gen, "HOST_COMPILERS")], "linux_sbsa") {
		t.Error("LOCAL replaces an sbsa archive")
	}
	if _, err := os.Stat(filepath.Join(out, outdir.StampFile)); !os.IsNotExist(err) {
		t.Errorf("a stamp was written with --local-cuda (err %v): an upgraded install would not be read again", err)
	}

	t.Run("components", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "cuda")
		errs := mustGenerate(t, "generate", "--manifests", m, "--out", out, "--cuda", "12.4.1", "--platform", "linux-x86_64",
			"--local-cuda", root, "--local-components", "cuda_cudart")
		wantOutput(t, "stderr", errs, "using cuda_cudart 12.4.127\n")
	})
}

func TestGenerateLocalCUDAErrors(t *testing.T) {
	m := shared.Manifests(t)
	full := cudaHome(t, m, "cuda_nvcc", "cuda_cudart")
	noNvcc := cudaHome(t, m, "cuda_nvcc", "cuda_cudart")
	if err := os.Remove(filepath.Join(noNvcc, "bin", "nvcc")); err != nil {
		t.Fatal(err)
	}
	onlyCudart := cudaHome(t, m, "cuda_cudart")
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
		code int
	}{
		{"not an install", []string{"--local-cuda", empty}, "--local-cuda: CUDA install " + empty + ": no known layout: looked for targets/{triple}/include or version.json (cuda-home)", 1},
		{"missing compiler", []string{"--local-cuda", noNvcc}, "component cuda_nvcc 12.4.131 is missing: bin/nvcc not found", 1},
		{"no compiler at all", []string{"--local-cuda", onlyCudart}, "component cuda_nvcc 12.4.131 is missing", 1},
		{"not configured", []string{"--local-cuda", full, "--cuda", "12.6.3", "--platform", "linux-x86_64"}, "the install is CUDA 12.4.1 (cuda-home layout, read from " + filepath.Join(full, "version.json") + "), which is not among the configured CUDA versions 12.6.3: add it to --cuda", 1},
		{"platform not targeted", []string{"--local-cuda", full, "--cuda", "12.4.1", "--platform", "linux-sbsa"}, "the install is for linux-x86_64, which is not among the target platforms: add it to --platform", 1},
		{"unknown component", []string{"--local-cuda", full, "--local-components", "cuda_nvcc,nosuch"}, "--local-components: nosuch is not a component of CUDA 12.4.1", 1},
		{"components without install", []string{"--local-components", "cuda_nvcc"}, "--local-components: cuda_nvcc: set without the root of an installed CUDA", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "cuda")
			args := append([]string{"generate", "--manifests", m, "--out", out}, tc.args...)
			if !slices.Contains(tc.args, "--cuda") {
				args = append(args, "--cuda", "12.4.1", "--platform", "linux-x86_64")
			}
			code, _, errs := runCLI(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, errs)
			}
			wantOutput(t, "stderr", errs, tc.want)
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s exists after a failed run (err %v)", out, err)
			}
		})
	}
}

// local_cuda() in cudapkgs.star does what --local-cuda does; a relative
// path is relative to the workspace root.
func TestGenerateLocalCUDAStarlark(t *testing.T) {
	m := shared.Manifests(t)
	ws := t.TempDir()
	root := cudaHome(t, m, "cuda_nvcc", "cuda_cudart")
	if err := os.Symlink(root, filepath.Join(ws, "toolkit")); err != nil {
		t.Fatal(err)
	}
	writeFileT(t, filepath.Join(ws, "cudapkgs.star"), `cuda_versions(["12.4.1"])
target_platforms(["linux-x86_64"])
local_cuda("toolkit", components = ["cuda_nvcc", "cuda_cudart"])
`)
	out := filepath.Join(ws, "third_party", "cuda")
	errs := mustGenerate(t, "generate", "--workspace", ws, "--manifests", m, "--out", out)
	wantOutput(t, "stderr", errs, "local CUDA "+filepath.Join(ws, "toolkit")+" (cuda-home layout, CUDA 12.4.1, linux-x86_64): using cuda_cudart 12.4.127, cuda_nvcc 12.4.131\n")
	wantOutput(t, "generated.bzl", string(readTree(t, out)["generated.bzl"]), `"path": "`+filepath.Join(ws, "toolkit")+`"`)

	writeFileT(t, filepath.Join(ws, "cudapkgs.star"), `local_cuda("")`+"\n")
	code, _, errs := runCLI(t, "generate", "--workspace", ws, "--manifests", m, "--out", out)
	if code != 1 {
		t.Fatalf("local_cuda(\"\"): exit %d, want 1: %s", code, errs)
	}
	wantOutput(t, "stderr", errs, "cudapkgs.star:1:11: local_cuda: path: expected the root of an installed CUDA")
}
