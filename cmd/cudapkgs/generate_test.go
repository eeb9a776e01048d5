package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// readTree reads every regular file under dir, by slash path.
func readTree(t *testing.T, dir string) bazel.Tree {
	t.Helper()
	tree := bazel.Tree{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		tree[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func generateArgs(manifests, out string, extra ...string) []string {
	return append([]string{"generate", "--manifests", manifests, "--out", out,
		"--platform", "linux-x86_64,linux-sbsa,linux-jetson"}, extra...)
}

func mustGenerate(t *testing.T, args ...string) string {
	t.Helper()
	code, _, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("cudapkgs %s: exit %d:\n%s", strings.Join(args, " "), code, errs)
	}
	return errs
}

func TestGenerateRealManifests(t *testing.T) {
	m := shared.Manifests(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "third_party", "cuda")
	two := generateArgs(m, out, "--cuda", "12.4.1,12.6.3")

	errs := mustGenerate(t, two...)
	wantOutput(t, "stderr", errs, "files written, 0 unchanged, 0 removed")
	first := readTree(t, out)
	if !strings.HasPrefix(string(first[outdir.StampFile]), bazel.Header+"\n") {
		t.Errorf("%s does not start with the header", outdir.StampFile)
	}
	delete(first, outdir.StampFile) // not a Bazel file
	for _, p := range []string{"WORKSPACE", "BUILD.bazel", "repositories.bzl", "platforms/BUILD.bazel", "version/BUILD.bazel", "generated.bzl", "MODULE.bazel", "extensions.bzl", "rules/setup.bzl", "unusable/defs.bzl", "unusable/BUILD.bazel", "repos/BUILD.bazel"} {
		if _, ok := first[p]; !ok {
			t.Errorf("no %s in the generated tree", p)
		}
	}
	for _, p := range bazel.Lint(first) {
		t.Error(p)
	}
	hub := string(first["BUILD.bazel"])
	wantOutput(t, "generated.bzl", string(first["generated.bzl"]), `DEFAULT_VERSION = "12.6.3"`)
	wantOutput(t, "BUILD.bazel", hub, `build_setting_default = DEFAULT_VERSION`, `name = "libcublas"`, `name = "cuda_12.4.1_linux_jetson"`,
		`"@cuda_cudnn_9_12_0_46_linux_x86_64_cuda12//:cudnn"`)
	repos := string(first["generated.bzl"])
	// One repository per archive: cuDNN 9.12's cuda12 archive serves both CUDA versions.
	if n := strings.Count(repos, `"cuda_cudnn_9_12_0_46_linux_x86_64_cuda12": {`); n != 1 {
		t.Errorf("cudnn 9.12 x86_64 archive declared %d times, want 1", n)
	}
	if _, ok := first["repos/cuda_cudnn_9_12_0_46_linux_x86_64_cuda12.BUILD"]; !ok {
		t.Error("no BUILD file for the cuDNN 9.12 archive")
	}

	// Files that are not generated stay, whatever happens.
	user := map[string]string{"README.user": "mine\n", "repos/extra.BUILD": "# my own\n"}
	for p, c := range user {
		if err := os.WriteFile(filepath.Join(out, filepath.FromSlash(p)), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Age every file, so a rewrite shows in the modification times.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for p := range first {
		if err := os.Chtimes(filepath.Join(out, filepath.FromSlash(p)), old, old); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("again rewrites nothing", func(t *testing.T) {
		errs := mustGenerate(t, append(two, "--force")...)
		wantOutput(t, "stderr", errs, "0 files written, "+itoa(len(first))+" unchanged, 0 removed")
		for p := range first {
			fi, err := os.Stat(filepath.Join(out, filepath.FromSlash(p)))
			if err != nil {
				t.Fatal(err)
			}
			if !fi.ModTime().Equal(old) {
				t.Errorf("%s was rewritten", p)
			}
		}
	})

	t.Run("a failing run leaves the tree as it was", func(t *testing.T) {
		before := readTree(t, out)
		bad := filepath.Join(dir, "bad.star")
		if err := os.WriteFile(bad, []byte("cuda(versions = [\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			generateArgs(m, out, "--cuda", "12.4.1", "--config", bad),                                     // Starlark error
			generateArgs(filepath.Join(dir, "nowhere"), out, "--cuda", "12.4.1"),                          // no manifests
			generateArgs(m, out, "--cuda", "12.4.1", "--plugin", "/nonexistent="+strings.Repeat("0", 64)), // plugin that cannot start
		} {
			code, _, errs := runCLI(t, args...)
			if code == 0 {
				t.Errorf("%v: succeeded, want a failure", args)
			}
			if d := cmp.Diff(before, readTree(t, out)); d != "" {
				t.Errorf("%v (%s) changed the tree:\n%s", args, strings.TrimSpace(errs), d)
			}
		}
		assertNoTemp(t, filepath.Dir(out))
	})

	t.Run("files no longer produced are removed", func(t *testing.T) {
		stale := filepath.Join(out, "repos", "cuda_gone_1_0_linux_x86_64.BUILD")
		if err := os.WriteFile(stale, []byte(bazel.Header+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		errs := mustGenerate(t, generateArgs(m, out, "--cuda", "12.4.1")...)
		got := readTree(t, out)
		fresh := filepath.Join(dir, "fresh")
		mustGenerate(t, generateArgs(m, fresh, "--cuda", "12.4.1")...)
		want := readTree(t, fresh)
		for p, c := range user {
			want[p] = []byte(c)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("after regenerating for 12.4.1 only, the tree differs from a fresh one plus the user's files:\n%s", d)
		}
		if !strings.Contains(errs, " removed") || strings.Contains(errs, " 0 removed") {
			t.Errorf("summary does not report removals: %s", errs)
		}
		assertNoTemp(t, filepath.Dir(out))
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

func assertNoTemp(t *testing.T, parent string) {
	t.Helper()
	ents, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".cudapkgs-") {
			t.Errorf("temporary folder %s left behind", e.Name())
		}
	}
}

func TestGenerateUsage(t *testing.T) {
	code, _, errs := runCLI(t, "generate", "--manifests", t.TempDir())
	if code != exitUsage {
		t.Errorf("exit %d, want %d: %s", code, exitUsage, errs)
	}
	wantOutput(t, "stderr", errs, "--out is required")
}

func TestGenerateOutIsAFile(t *testing.T) {
	m := shared.Manifests(t)
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, generateArgs(m, f, "--cuda", "12.4.1")...)
	if code == 0 {
		t.Fatal("succeeded writing into a file")
	}
	wantOutput(t, "stderr", errs, "not a folder")
	if b, _ := os.ReadFile(f); string(b) != "x" {
		t.Error("the file was changed")
	}
}

// TestGenerateNoOp checks the stamp: a second run with the same inputs does
// nothing, and any change of an input or an output makes it regenerate.
func TestGenerateNoOp(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "manifests")
	if err := os.CopyFS(m, os.DirFS(shared.Manifests(t))); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile := func(p, c string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(filepath.Join(ws, "WORKSPACE"), "")
	writeFile(filepath.Join(ws, "lib", "policy.star"), "VERSIONS = [\"12.4.1\"]\n")
	conf := filepath.Join(ws, "cudapkgs.star")
	writeFile(conf, "load(\"//lib:policy.star\", \"VERSIONS\")\ncuda_versions(VERSIONS)\n")
	out := filepath.Join(dir, "out")
	args := []string{"generate", "--manifests", m, "--out", out, "--platform", "linux-x86_64", "--workspace", ws, "--config", conf}
	user := filepath.Join(out, "mine.txt")

	errs := mustGenerate(t, args...)
	wantOutput(t, "stderr", errs, "files written, 0 unchanged, 0 removed")
	stamp, err := os.ReadFile(filepath.Join(out, outdir.StampFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(stamp), bazel.Header+"\n") {
		t.Errorf("%s does not start with the header:\n%s", outdir.StampFile, stamp)
	}
	for _, w := range []string{"file " + strconv.Quote(conf), "file " + strconv.Quote(filepath.Join(ws, "lib", "policy.star")), `out `, `"BUILD.bazel"`} {
		wantOutput(t, outdir.StampFile, string(stamp), w)
	}
	writeFile(user, "mine\n")
	n := len(readTree(t, out)) - 2 // less the stamp and the user's file

	upToDate := func(t *testing.T) {
		t.Helper()
		errs := mustGenerate(t, args...)
		if want := "generate: " + out + ": up to date\n"; errs != want {
			t.Errorf("stderr = %q, want %q", errs, want)
		}
	}
	regenerates := func(t *testing.T, want string) {
		t.Helper()
		errs := mustGenerate(t, args...)
		wantOutput(t, "stderr", errs, want)
		upToDate(t) // and the new stamp holds
	}

	t.Run("second run is a no-op", upToDate)
	t.Run("an edited generated file", func(t *testing.T) {
		writeFile(filepath.Join(out, "BUILD.bazel"), bazel.Header+"\n# edited\n")
		regenerates(t, "1 files written, "+itoa(n-1)+" unchanged, 0 removed")
	})
	t.Run("a removed generated file", func(t *testing.T) {
		if err := os.Remove(filepath.Join(out, "WORKSPACE")); err != nil {
			t.Fatal(err)
		}
		regenerates(t, "1 files written, "+itoa(n-1)+" unchanged, 0 removed")
	})
	t.Run("an edited configuration", func(t *testing.T) {
		writeFile(conf, "load(\"//lib:policy.star\", \"VERSIONS\")\ncuda_versions(VERSIONS)  # same\n")
		regenerates(t, "0 files written, "+itoa(n)+" unchanged, 0 removed")
	})
	t.Run("an edited loaded module", func(t *testing.T) {
		writeFile(filepath.Join(ws, "lib", "policy.star"), "VERSIONS = [\"12.4.1\"]  # same\n")
		regenerates(t, "0 files written, "+itoa(n)+" unchanged, 0 removed")
	})
	t.Run("an edited manifest", func(t *testing.T) {
		p := filepath.Join(m, "cuda", "redistrib_12.4.1.json")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(p, string(b)+"\n")
		regenerates(t, "0 files written, "+itoa(n)+" unchanged, 0 removed")
	})
	t.Run("a new manifest", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(m, "cuda", "redistrib_12.4.1.json"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(filepath.Join(m, "cuda", "redistrib_12.4.99.json"), strings.Replace(string(b), "12.4.1", "12.4.99", 1))
		defer os.Remove(filepath.Join(m, "cuda", "redistrib_12.4.99.json"))
		regenerates(t, "0 files written, "+itoa(n)+" unchanged, 0 removed")
	})
	t.Run("a different flag", func(t *testing.T) {
		errs := mustGenerate(t, append(args, "--name", "gpu")...)
		wantOutput(t, "stderr", errs, "files written")
		errs = mustGenerate(t, args...)
		wantOutput(t, "stderr", errs, "files written")
		upToDate(t)
	})
	t.Run("--force regenerates", func(t *testing.T) {
		errs := mustGenerate(t, append(args, "--force")...)
		wantOutput(t, "stderr", errs, "0 files written, "+itoa(n)+" unchanged, 0 removed")
		upToDate(t)
	})
	t.Run("a corrupt stamp", func(t *testing.T) {
		writeFile(filepath.Join(out, outdir.StampFile), bazel.Header+"\ngarbage\n")
		regenerates(t, "0 files written, "+itoa(n)+" unchanged, 0 removed")
	})
	if b, err := os.ReadFile(user); err != nil || string(b) != "mine\n" {
		t.Errorf("the user's file changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(out, outdir.StampFile)); err != nil {
		t.Errorf("the stamp is gone: %v", err)
	}
}

// TestGenerateMergeAndPatches checks, on NVIDIA's manifests, what lets NVIDIA's
// nvcc compile from the generated repositories: from CUDA 13.0 the nvcc
// repository has libnvvm's archive unpacked into it (nvcc.profile's
// $(TOP)/nvvm), with cicc and libdevice among its files; through 12.x nvcc's
// crt/math_functions.h gets the glibc patch, and 13.x's cuda_crt does not.
func TestGenerateMergeAndPatches(t *testing.T) {
	m := shared.Manifests(t)
	out := filepath.Join(t.TempDir(), "cuda")
	mustGenerate(t, generateArgs(m, out, "--cuda", "12.4.1,13.3.0")...)
	tree := readTree(t, out)
	gen := string(tree["generated.bzl"])
	entry := func(name string) string {
		i := strings.Index(gen, `    "`+name+`": {`)
		if i < 0 {
			t.Fatalf("generated.bzl has no archive %s", name)
		}
		rest := gen[i:]
		if j := strings.Index(rest, "\n    },\n"); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	nvcc13 := entry("cuda_cuda_nvcc_13_3_33_linux_x86_64")
	wantOutput(t, "nvcc 13.3 archive", nvcc13, `"merge": ["cuda_libnvvm_13_3_33_linux_x86_64"]`)
	if strings.Contains(nvcc13, `"patches"`) {
		t.Errorf("nvcc 13.3 is patched; its crt headers are cuda_crt's:\n%s", nvcc13)
	}
	nvcc12 := entry("cuda_cuda_nvcc_12_4_131_linux_x86_64")
	wantOutput(t, "nvcc 12.4 archive", nvcc12, `"name": "glibc-2.41-math-functions"`, `"include/crt/math_functions.h"`,
		`double                 sinpi(double x) __CUDAPKGS_GLIBC_C23_THROW;`)
	sbsa12 := entry("cuda_cuda_nvcc_12_4_131_linux_sbsa")
	wantOutput(t, "nvcc 12.4 sbsa archive", sbsa12, `"name": "aarch64-vector-types"`, `"name": "glibc-2.41-math-functions"`,
		`#define __Float32x4_t __attribute__((__vector_size__(16))) float`)
	if strings.Contains(nvcc12, `"merge"`) {
		t.Errorf("nvcc 12.4 merges another archive; it holds nvvm itself:\n%s", nvcc12)
	}
	build := string(tree["repos/cuda_cuda_nvcc_13_3_33_linux_x86_64.BUILD"])
	wantOutput(t, "nvcc 13.3 BUILD", build, `"nvvm/bin/cicc"`, `"nvvm/libdevice"`)
	if strings.Contains(string(tree["repos/cuda_libnvvm_13_3_33_linux_x86_64.BUILD"]), "merge") {
		t.Error("libnvvm's own repository changed")
	}
	wantOutput(t, "toolchain", string(tree["toolchain/BUILD.bazel"]), `"@cuda_cuda_nvcc_13_3_33_linux_x86_64//:bin"`)
}

// TestGenerateFullMatrixLint: every file of the full matrix (every CUDA
// version and product in ../shared, every platform), in both formats, is
// exactly what buildifier makes of it with all its rewrites. Formatting
// runs two of them only (buildfile.Format), which holds only while the
// generators build everything else in buildifier's order already.
func TestGenerateFullMatrixLint(t *testing.T) {
	m := shared.Manifests(t)
	for _, format := range []string{"bazel", "buck2"} {
		t.Run(format, func(t *testing.T) {
			out := t.TempDir()
			mustGenerate(t, "generate", "--manifests", m, "--out", out, "--format", format,
				"--platform", "linux-x86_64,linux-sbsa,linux-jetson,linux-ppc64le,windows-x86_64")
			tree := readTree(t, out)
			delete(tree, outdir.StampFile)
			if len(tree) < 2000 {
				t.Fatalf("the full matrix gave %d files", len(tree))
			}
			for _, p := range bazel.Lint(tree) {
				t.Error(p)
			}
		})
	}
}
