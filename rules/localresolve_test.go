package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
)

// searchData is a generated.bzl whose toolkit archives (CUDA 12.4.1 and
// 12.6.3 on linux-x86_64) carry their file lists and edges, as core/bazel
// writes them for the extension's search.
const searchData = `
NAME = "cuda"
VERSIONS = ["12.4.1", "12.6.3"]
DEFAULT_VERSION = "12.6.3"
PLATFORMS = ["linux-x86_64"]
CAPABILITIES = []
LOCAL = {}
HOST_COMPILERS = {}
PINNABLE = {}
def _a(component, version, cuda, files, deps = []):
    return {
        "component": component, "cuda": cuda, "deps": deps, "files": files, "key": "linux-x86_64",
        "mirror_path": "", "platforms": ["linux-x86_64"], "sha256": component + version, "strip_prefix": "",
        "targets": [component], "urls": ["https://example.com/" + component], "version": version,
    }
ARCHIVES = {
    "cuda_cccl_12_6_77_linux_x86_64": _a("cuda_cccl", "12.6.77", ["12.6.3"], {"include": "headers"}),
    "cuda_cudart_12_4_127_linux_x86_64": _a("cuda_cudart", "12.4.127", ["12.4.1"],
        {"include": "headers", "lib/libcudart.so.12": "shared_lib"}),
    "cuda_cudart_12_6_77_linux_x86_64": _a("cuda_cudart", "12.6.77", ["12.6.3"],
        {"include": "headers", "lib/libcudart.so.12": "shared_lib", "lib/libcudart_static.a": "static_lib"}, ["cuda_cccl"]),
    "cuda_nvcc_12_4_131_linux_x86_64": _a("cuda_nvcc", "12.4.131", ["12.4.1"], {"bin/nvcc": "binary"}),
    "cuda_nvcc_12_6_85_linux_x86_64": _a("cuda_nvcc", "12.6.85", ["12.6.3"], {"bin/nvcc": "binary", "nvvm/bin/cicc": "binary"}),
    "libcublas_12_6_4_1_linux_x86_64": _a("libcublas", "12.6.4.1", ["12.6.3"], {"include": "headers", "lib/libcublas.so.12": "shared_lib"}),
    "cudnn_9_1_0_linux_x86_64": {
        "component": "cudnn", "cuda": ["12.4.1", "12.6.3"], "key": "linux-x86_64", "mirror_path": "",
        "platforms": ["linux-x86_64"], "sha256": "dnn", "strip_prefix": "", "targets": ["cudnn"],
        "urls": ["https://example.com/cudnn"], "version": "9.1.0",
    },
}
`

// writeTree makes files (path -> content; content "->target" is a
// symbolic link) under a fresh folder and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(c, "->"); ok {
			err = os.Symlink(target, full)
		} else if strings.HasSuffix(p, "/") {
			err = os.MkdirAll(full, 0o755)
		} else {
			err = os.WriteFile(full, []byte(c), 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func cudaHomeTree(t *testing.T, cuda, nvcc, cudart string) string {
	return writeTree(t, map[string]string{
		"version.json": fmt.Sprintf(`{"cuda": {"name": "CUDA SDK", "version": %q}, "cuda_nvcc": {"version": %q},
			"cuda_cudart": {"version": %q}, "cuda_cccl": {"version": "12.6.77"}}`, cuda, nvcc, cudart),
		"targets/x86_64-linux/include/cuda.h":         "#define CUDA_VERSION 12060\n",
		"targets/x86_64-linux/lib/libcudart.so.12":    "",
		"targets/x86_64-linux/lib/libcudart_static.a": "",
		"lib64":         "->targets/x86_64-linux/lib",
		"include":       "->targets/x86_64-linux/include",
		"bin/nvcc":      "#!/bin/sh\n",
		"nvvm/bin/cicc": "",
	})
}

func redistTree(t *testing.T, withNvcc bool) string {
	files := map[string]string{
		"cuda_cudart-linux-x86_64-12.6.77-archive/include/cuda.h":      "#define CUDA_VERSION 12060\n",
		"cuda_cudart-linux-x86_64-12.6.77-archive/lib/libcudart.so.12": "",
	}
	if withNvcc {
		files["cuda_nvcc-linux-x86_64-12.6.85-archive/bin/nvcc"] = "#!/bin/sh\n"
		files["cuda_nvcc-linux-x86_64-12.6.85-archive/nvvm/bin/cicc"] = ""
	}
	return writeTree(t, files)
}

func debianTree(t *testing.T) string {
	return writeTree(t, map[string]string{
		"lib/nvidia-cuda-toolkit/bin/nvcc":          "\x00\x01Cuda compilation tools, release 12.6, V12.6.85\x00",
		"lib/nvidia-cuda-toolkit/bin/cicc":          "",
		"lib/x86_64-linux-gnu/libcudart.so.12.6.77": "",
		"lib/x86_64-linux-gnu/libcudart.so.12":      "->libcudart.so.12.6.77",
		"include/cuda.h":                            "#define CUDA_VERSION 12060\n",
		"include/stdio.h":                           "",
		"bin/ls":                                    "",
	})
}

// resolve runs local_resolve through the extension: the root module's
// local tag names root.
func resolve(t *testing.T, root, extra string) (map[string]any, error) {
	t.Helper()
	e := newBzlEnv(t, searchData)
	v, err := e.eval("//:extensions.bzl", fmt.Sprintf(`cuda.implementation(struct(modules = [module(name = "app", is_root = True, local = [{"path": %q}]%s)], path = fs_path, read = fs_read))`, root, extra))
	if err != nil {
		return nil, err
	}
	_ = v
	out := map[string]any{}
	for name, r := range e.repos() {
		m := r.(map[string]any)
		if m["rule"] == "cuda_local_repository" {
			out[name] = m["files"]
		}
	}
	return out, nil
}

func TestLocalResolve(t *testing.T) {
	home := cudaHomeTree(t, "12.6.3", "12.6.85", "12.6.77")
	redist := redistTree(t, true)
	deb := debianTree(t)
	for _, tc := range []struct {
		name, root, extra string
		want              map[string]any
	}{
		{
			name: "cuda-home: version.json states cuda_cccl, so it is used too", root: home,
			want: map[string]any{
				"cuda_cccl_12_6_77_linux_x86_64": map[string]any{"include": home + "/include"},
				"cuda_cudart_12_6_77_linux_x86_64": map[string]any{"include": home + "/include",
					"lib/libcudart.so.12": home + "/lib64/libcudart.so.12", "lib/libcudart_static.a": home + "/lib64/libcudart_static.a"},
				"cuda_nvcc_12_6_85_linux_x86_64": map[string]any{"bin/nvcc": home + "/bin/nvcc", "nvvm/bin/cicc": home + "/nvvm/bin/cicc"},
			},
		},
		{
			name: "redist: the archive folders; no cuda_cccl there", root: redist,
			want: map[string]any{
				"cuda_cudart_12_6_77_linux_x86_64": map[string]any{
					"include":             redist + "/cuda_cudart-linux-x86_64-12.6.77-archive/include",
					"lib/libcudart.so.12": redist + "/cuda_cudart-linux-x86_64-12.6.77-archive/lib/libcudart.so.12"},
				"cuda_nvcc_12_6_85_linux_x86_64": map[string]any{
					"bin/nvcc":      redist + "/cuda_nvcc-linux-x86_64-12.6.85-archive/bin/nvcc",
					"nvvm/bin/cicc": redist + "/cuda_nvcc-linux-x86_64-12.6.85-archive/nvvm/bin/cicc"},
			},
		},
		{
			name: "debian: hints state the versions; cuda_cccl only by the closure", root: deb,
			want: map[string]any{
				"cuda_cccl_12_6_77_linux_x86_64": map[string]any{"include": deb + "/include|system"},
				"cuda_cudart_12_6_77_linux_x86_64": map[string]any{"include": deb + "/include|system",
					"lib/libcudart.so.12": deb + "/lib/x86_64-linux-gnu/libcudart.so.12"},
				"cuda_nvcc_12_6_85_linux_x86_64": map[string]any{"bin/nvcc": deb + "/lib/nvidia-cuda-toolkit/bin/nvcc",
					"nvvm/bin/cicc": deb + "/lib/nvidia-cuda-toolkit/bin/cicc"},
			},
		},
		{
			name: "components: only the runtime", root: redist, extra: `, toolkit = [{"versions": ["12.6.3"]}]`,
			want: map[string]any{
				"cuda_cudart_12_6_77_linux_x86_64": map[string]any{
					"include":             redist + "/cuda_cudart-linux-x86_64-12.6.77-archive/include",
					"lib/libcudart.so.12": redist + "/cuda_cudart-linux-x86_64-12.6.77-archive/lib/libcudart.so.12"},
				"cuda_nvcc_12_6_85_linux_x86_64": map[string]any{
					"bin/nvcc":      redist + "/cuda_nvcc-linux-x86_64-12.6.85-archive/bin/nvcc",
					"nvvm/bin/cicc": redist + "/cuda_nvcc-linux-x86_64-12.6.85-archive/nvvm/bin/cicc"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolve(t, tc.root, tc.extra)
			if err != nil {
				t.Fatal(errorText(err))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("local repositories (-want +got):\n%s", d)
			}
		})
	}

	t.Run("explicit components", func(t *testing.T) {
		e := newBzlEnv(t, searchData)
		_, err := e.eval("//:extensions.bzl", fmt.Sprintf(`cuda.implementation(struct(modules = [module(name = "app", is_root = True, local = [{"path": %q, "components": ["cuda_cudart"]}])], path = fs_path, read = fs_read))`, home))
		if err != nil {
			t.Fatal(errorText(err))
		}
		var local []string
		for name, r := range e.repos() {
			if r.(map[string]any)["rule"] == "cuda_local_repository" {
				local = append(local, name)
			}
		}
		if d := cmp.Diff([]string{"cuda_cudart_12_6_77_linux_x86_64"}, local); d != "" {
			t.Errorf("local repositories (-want +got):\n%s", d)
		}
	})

	const where = "cuda extension (module app): local CUDA "
	for _, tc := range []struct{ name, root, extra, fail string }{
		{name: "no install", root: "/nonexistent/cuda", fail: "cuda extension (module app): CUDA install /nonexistent/cuda: no such folder"},
		{name: "no layout", root: writeTree(t, map[string]string{"README": ""}),
			fail: "cuda extension (module app): CUDA install %s: no known layout: looked for targets/{triple}/include or version.json (cuda-home); lib/nvidia-cuda-toolkit/bin or lib/{triple}/libcudart.so* (debian); *-archive (redist)"},
		{name: "the compiler is missing", root: redistTree(t, false),
			fail: where + "%s (redist layout, CUDA 12.6.3): component cuda_nvcc 12.6.85 is missing: bin/nvcc not found; nvvm/bin/cicc not found"},
		{name: "a release not enabled", root: cudaHomeTree(t, "12.4.1", "12.4.131", "12.4.127"), extra: `, toolkit = [{"versions": ["12.6.3"]}]`,
			fail: where + "%s (cuda-home layout, linux-x86_64): the install is CUDA 12.4.1 (read from %[1]s/version.json), which is not among the enabled CUDA versions 12.6.3"},
		{name: "a release not generated", root: cudaHomeTree(t, "12.8.0", "12.8.61", "12.8.57"),
			fail: where + "%s (cuda-home layout, linux-x86_64): CUDA 12.8.0, cuda_cccl 12.6.77, cuda_cudart 12.8.57, cuda_nvcc 12.8.61 match none of the generated CUDA versions 12.4.1, 12.6.3; run cudapkgs generate with the install's release in --cuda"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resolve(t, tc.root, tc.extra)
			want := strings.ReplaceAll(tc.fail, "%[1]s", tc.root)
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, tc.root)
			}
			if err == nil || errorText(err) != want {
				t.Fatalf("got %v\nwant %s", err, want)
			}
		})
	}
}

// TestLocalFindMatchesGo: for the same trees, local.bzl's detection and
// local_find give what localcuda.Detect and Install.Find give, path for
// path, so the two readers of the one layout table cannot drift.
func TestLocalFindMatchesGo(t *testing.T) {
	hints := []localcuda.Hint{
		{Component: "cuda_nvcc", Rel: "bin/nvcc", Kind: localcuda.KindText, Key: ", V"},
		{Component: "cuda_cudart", Rel: "lib", Kind: localcuda.KindName, Key: "libcudart.so."},
	}
	rels := map[string][]string{
		"cuda_cudart": {"include", "include/cuda.h", "lib", "lib/libcudart.so.12", "lib/libcudart_static.a", "lib64", "lib/stubs/libcuda.so", "../x", "/abs"},
		"cuda_nvcc":   {"bin", "bin/nvcc", "nvvm/bin/cicc", "nvvm/libdevice", "include", "bin/ls"},
		"cuda_cccl":   {"include", "include/stdio.h"},
	}
	for name, root := range map[string]string{
		"cuda-home": cudaHomeTree(t, "12.6.3", "12.6.85", "12.6.77"),
		"redist":    redistTree(t, true),
		"debian":    debianTree(t),
	} {
		t.Run(name, func(t *testing.T) {
			in, err := localcuda.Detect(root, hints...)
			if err != nil {
				t.Fatal(err)
			}
			var pairs []string
			var want []any
			for _, comp := range []string{"cuda_cudart", "cuda_nvcc", "cuda_cccl"} {
				for _, rel := range rels[comp] {
					pairs = append(pairs, fmt.Sprintf("[%q, %q]", comp, rel))
					m, ok := in.Find(comp, rel)
					if !ok {
						want = append(want, nil)
						continue
					}
					want = append(want, map[string]any{"path": m.Path, "dir": m.Dir, "system": m.System, "merged": m.Merged})
				}
			}
			comps := map[string]any{}
			for c, v := range in.Components {
				comps[c] = v.String()
			}
			e := newBzlEnv(t, searchData)
			got, err := e.eval("//rules:local.bzl", fmt.Sprintf(`[
				{"layout": i["layout"], "platform": i["platform"], "triple": i["triple"],
				 "components": {c: ".".join([str(x) for x in v]) for c, v in i["components"].items()},
				 "found": [local_find(ctx, i, p[0], p[1]) for p in [%s]]}
				for ctx in [struct(path = fs_path, read = fs_read)]
				for i in [local_detect(ctx, %q, %s, %s, %s)]][0]`,
				strings.Join(pairs, ", "), root, localcuda.Starlark(localcuda.Layouts()),
				`[{"component": "cuda_nvcc", "key": ", V", "kind": "text", "rel": "bin/nvcc"}, {"component": "cuda_cudart", "key": "libcudart.so.", "kind": "name", "rel": "lib"}]`,
				`["linux-x86_64", "linux-sbsa", "linux-aarch64", "linux-ppc64le"]`))
			if err != nil {
				t.Fatal(errorText(err))
			}
			g := toGo(got).(map[string]any)
			wantAll := map[string]any{"layout": in.Layout, "platform": in.Platform, "triple": in.Triple, "components": comps, "found": want}
			if d := cmp.Diff(wantAll, g); d != "" {
				keys := make([]string, 0, len(rels))
				for k := range rels {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				t.Errorf("Starlark vs Go (-go +starlark), paths %v:\n%s", keys, d)
			}
		})
	}
}
