package rules

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// twoVersions is the generated data of core/bazel's two-versions golden
// test: CUDA 12.4.1 and 12.6.3 on three platforms, cudnn pinnable to 8.9
// for 12.4.1 only, no local install, no mirror paths.
func twoVersions(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../core/bazel/testdata/golden/two-versions/generated.bzl")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// miniLocal is a small generated.bzl with what twoVersions lacks: a local
// install (CUDA 12.6.3's cudart and nvcc on x86_64), mirror paths, an
// archive without strip_prefix, a product pinnable for both versions.
const miniLocal = `
NAME = "cuda"
VERSIONS = ["12.4.1", "12.6.3"]
DEFAULT_VERSION = "12.6.3"
PLATFORMS = ["linux-jetson", "linux-x86_64"]
CAPABILITIES = []
LOCAL = {
    "archives": {
        "cuda_cudart_12_6_77_linux_x86_64": {"include": "/usr/include|system", "lib/libcudart.so.12": "/usr/lib/x86_64-linux-gnu/libcudart.so.12"},
        "cuda_nvcc_12_6_85_linux_x86_64": {"bin/nvcc": "/usr/local/cuda-12.6/bin/nvcc"},
    },
    "components": ["cuda_cudart", "cuda_nvcc"],
    "path": "/usr/local/cuda-12.6",
}
HOST_COMPILERS = {
    "12.4.1": {"clang": [7, 17], "gcc": [6, 13]},
    "12.6.3": {"clang": [7, 18], "gcc": [6, 13]},
}
PINNABLE = {
    "cudnn": {"packages": ["cudnn"], "releases": {"12.4.1": ["8.9", "9.1"], "12.6.3": ["9.1"]}},
}
_NV = "https://developer.download.nvidia.com/compute/cuda/redist/"
ARCHIVES = {
    "cuda_cudart_12_6_77_linux_aarch64": {
        "component": "cuda_cudart", "cuda": ["12.6.3"], "key": "linux-aarch64",
        "mirror_path": "cuda_cudart/linux-aarch64/cudart-12.6.77.tar.xz", "platforms": ["linux-jetson"],
        "sha256": "a64", "strip_prefix": "cudart-aarch64", "targets": ["cuda_cudart", "headers"],
        "urls": [_NV + "cuda_cudart/linux-aarch64/cudart-12.6.77.tar.xz"], "version": "12.6.77",
    },
    "cuda_cudart_12_6_77_linux_x86_64": {
        "component": "cuda_cudart", "cuda": ["12.6.3"], "key": "linux-x86_64",
        "mirror_path": "cuda_cudart/linux-x86_64/cudart-12.6.77.tar.xz", "platforms": ["linux-x86_64"],
        "sha256": "x64", "strip_prefix": "cudart-x86_64", "targets": ["cuda_cudart", "headers"],
        "urls": [_NV + "cuda_cudart/linux-x86_64/cudart-12.6.77.tar.xz"], "version": "12.6.77",
    },
    "cuda_nvcc_12_4_131_linux_x86_64": {
        "component": "cuda_nvcc", "cuda": ["12.4.1"], "key": "linux-x86_64",
        "mirror_path": "cuda_nvcc/linux-x86_64/nvcc-12.4.131.tar.xz", "platforms": ["linux-x86_64"],
        "sha256": "n124", "strip_prefix": "nvcc-12.4",  "targets": ["nvcc"],
        "urls": ["https://mirror.example/redist/cuda_nvcc/linux-x86_64/nvcc-12.4.131.tar.xz", _NV + "cuda_nvcc/linux-x86_64/nvcc-12.4.131.tar.xz"],
        "version": "12.4.131",
    },
    "cuda_nvcc_12_6_85_linux_x86_64": {
        "component": "cuda_nvcc", "cuda": ["12.6.3"], "key": "linux-x86_64",
        "mirror_path": "cuda_nvcc/linux-x86_64/nvcc-12.6.85.tar.xz", "platforms": ["linux-x86_64"],
        "sha256": "n126", "strip_prefix": "nvcc-12.6", "targets": ["nvcc"],
        "urls": [_NV + "cuda_nvcc/linux-x86_64/nvcc-12.6.85.tar.xz"], "version": "12.6.85",
    },
    "cudnn_9_1_0_linux_x86_64": {
        "component": "cudnn", "cuda": ["12.4.1", "12.6.3"], "key": "linux-x86_64",
        "mirror_path": "", "platforms": ["linux-x86_64"],
        "sha256": "dnn", "strip_prefix": "", "targets": ["cudnn"],
        "urls": ["https://example.com/cudnn-9.1.0.tar.xz"], "version": "9.1.0",
    },
    "nccl_2_32_6_linux_x86_64": {
        "component": "nccl", "cuda": ["12.6.3"], "key": "linux-x86_64",
        "mirror_path": "", "platforms": ["linux-x86_64"],
        "sha256": "whl", "strip_prefix": "nvidia/nccl", "targets": ["nccl"], "type": "zip",
        "urls": ["https://files.example/nvidia_nccl_cu12-2.32.6-py3-none-manylinux_2_27_x86_64.whl"], "version": "2.32.6",
    },
}
`

var cmpOpts = cmp.Options{cmpopts.EquateEmpty()}

// check compares got with want, both Starlark; fail is the exact message
// expected instead, when set.
func check(t *testing.T, e *bzlEnv, module, expr, want, fail string) any {
	t.Helper()
	v, err := e.eval(module, expr)
	if fail != "" {
		if err == nil {
			t.Fatalf("%s = %v, want the failure %q", expr, v, fail)
		}
		if got := errorText(err); got != fail {
			t.Fatalf("%s failed with\n%s\nwant\n%s", expr, got, fail)
		}
		return nil
	}
	if err != nil {
		t.Fatalf("%s: %s", expr, errorText(err))
	}
	got := toGo(v)
	if want != "" {
		w := e.value(want)
		if m, ok := w.(map[string]any); ok { // compare only the keys want has
			g := map[string]any{}
			for k := range m {
				g[k] = got.(map[string]any)[k]
			}
			got = g
		}
		if d := cmp.Diff(w, got, cmpOpts); d != "" {
			t.Fatalf("%s (-want +got):\n%s", expr, d)
		}
	}
	return got
}

func TestSettings(t *testing.T) {
	const setup = "//rules:setup.bzl"
	for _, tc := range []struct {
		name, data, expr, want, fail string
	}{
		{
			name: "defaults", expr: "cuda_settings()",
			want: `{"capabilities": [], "default_version": "12.6.3", "local": None, "mirrors": [], "pins": {},
				"platforms": ["linux-jetson", "linux-sbsa", "linux-x86_64"], "versions": ["12.4.1", "12.6.3"], "where": "cuda_repositories"}`,
		},
		{
			name: "version subset, default the newest enabled", expr: `cuda_settings(versions = ["12.4.1"])`,
			want: `{"versions": ["12.4.1"], "default_version": "12.4.1"}`,
		},
		{
			name: "default version chosen", expr: `cuda_settings(versions = ["12.6.3", "12.4.1"], default_version = "12.4.1")`,
			want: `{"versions": ["12.6.3", "12.4.1"], "default_version": "12.4.1"}`,
		},
		{
			name: "version not generated", expr: `cuda_settings(versions = ["12.4.1", "12.8.0"], where = "here")`,
			fail: "here: CUDA version 12.8.0 was not generated; this repository has 12.4.1, 12.6.3 (run cudapkgs generate with it to add it)",
		},
		{
			name: "default version not enabled", expr: `cuda_settings(versions = ["12.4.1"], default_version = "12.6.3")`,
			fail: "cuda_repositories: default CUDA version 12.6.3 is not among the enabled versions 12.4.1",
		},
		{
			name: "capabilities", expr: `cuda_settings(capabilities = ["8.0", "9.0a"])`,
			want: `{"capabilities": ["8.0", "9.0a"]}`,
		},
		{
			name: "platforms, linux-aarch64 is linux-jetson", expr: `cuda_settings(platforms = ["linux-x86_64", "linux-aarch64"])`,
			want: `{"platforms": ["linux-x86_64", "linux-jetson"]}`,
		},
		{
			name: "unknown platform", expr: `cuda_settings(platforms = ["linux-x86_64", "linux-ppc64le"])`,
			fail: "cuda_repositories: target platform linux-ppc64le was not generated; this repository has linux-jetson, linux-sbsa, linux-x86_64 (run cudapkgs generate with it to add it)",
		},
		{
			name: "pin per CUDA version", expr: `cuda_settings(pins = {"cudnn@12.4.1": "8.9"})`,
			want: `{"pins": {"cudnn": {"12.4.1": "cudnn_8_9"}}}`,
		},
		{
			name: "pin product-wide, patch release ignored", expr: `cuda_settings(versions = ["12.4.1"], pins = {"cudnn": "8.9.7"})`,
			want: `{"pins": {"cudnn": {"12.4.1": "cudnn_8_9"}}}`,
		},
		{
			name: "pin product-wide over both versions", data: miniLocal, expr: `cuda_settings(pins = {"cudnn": "9.1"})`,
			want: `{"pins": {"cudnn": {"12.4.1": "cudnn_9_1", "12.6.3": "cudnn_9_1"}}}`,
		},
		{
			name: "pin of an unknown product", expr: `cuda_settings(pins = {"cutensor": "2.0"})`,
			fail: "cuda_repositories: pin cutensor: cutensor has no versioned releases in this repository; pinnable: cudnn",
		},
		{
			name: "pin of a release not offered", expr: `cuda_settings(pins = {"cudnn@12.4.1": "9.1"})`,
			fail: "cuda_repositories: pin cudnn@12.4.1=9.1: CUDA 12.4.1 offers cudnn 8.9",
		},
		{
			name: "pin of a release not offered, several offered", data: miniLocal, expr: `cuda_settings(pins = {"cudnn": "8.9"})`,
			fail: "cuda_repositories: pin cudnn=8.9: CUDA 12.6.3 offers cudnn 9.1",
		},
		{
			name: "pin for a CUDA version not generated", expr: `cuda_settings(pins = {"cudnn@13.0.0": "8.9"})`,
			fail: "cuda_repositories: pin cudnn@13.0.0: CUDA 13.0.0 was not generated; this repository has 12.4.1, 12.6.3",
		},
		{
			name: "mirrors get a trailing slash", expr: `cuda_settings(mirrors = ["https://a.example/nv", "https://b.example/nv/"])`,
			want: `{"mirrors": ["https://a.example/nv/", "https://b.example/nv/"]}`,
		},
		{
			name: "local from the generated data", data: miniLocal, expr: "cuda_settings()",
			want: `{"local": {"archives": {
					"cuda_cudart_12_6_77_linux_x86_64": {"include": "/usr/include|system", "lib/libcudart.so.12": "/usr/lib/x86_64-linux-gnu/libcudart.so.12"},
					"cuda_nvcc_12_6_85_linux_x86_64": {"bin/nvcc": "/usr/local/cuda-12.6/bin/nvcc"}},
				"components": ["cuda_cudart", "cuda_nvcc"], "path": "/usr/local/cuda-12.6"}}`,
		},
		{
			name: "local False", data: miniLocal, expr: "cuda_settings(local = False)",
			want: `{"local": None}`,
		},
		{
			name: "local components", data: miniLocal, expr: `cuda_settings(local = {"path": "/usr/local/cuda-12.6", "components": ["cuda_nvcc"]})`,
			want: `{"local": {"archives": {"cuda_nvcc_12_6_85_linux_x86_64": {"bin/nvcc": "/usr/local/cuda-12.6/bin/nvcc"}},
				"components": ["cuda_nvcc"], "path": "/usr/local/cuda-12.6"}}`,
		},
		{
			name: "local path differs", data: miniLocal, expr: `cuda_settings(local = {"path": "/opt/cuda", "components": None})`,
			fail: "cuda_repositories: local CUDA /opt/cuda: this repository was generated for the install at /usr/local/cuda-12.6; run cudapkgs generate --local-cuda /opt/cuda",
		},
		{
			name: "local component not found", data: miniLocal, expr: `cuda_settings(local = {"path": "", "components": ["cuda_nvcc", "libcublas"]})`,
			fail: "cuda_repositories: local CUDA : component libcublas was not found there when generating; found: cuda_cudart, cuda_nvcc",
		},
		{
			name: "local without a generated one", expr: `cuda_settings(local = {"path": "/usr/local/cuda", "components": None})`,
			fail: "cuda_repositories: local CUDA /usr/local/cuda: this repository was generated without one; run cudapkgs generate --local-cuda /usr/local/cuda",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			if data == "" {
				data = twoVersions(t)
			}
			check(t, newBzlEnv(t, data), setup, tc.expr, tc.want, tc.fail)
		})
	}
}

// TestSettingsProductPinSkipsVersionsWithoutReleases: a product-wide pin
// over enabled versions some of which have no versioned release of the
// product.
func TestSettingsProductPinSkipsVersionsWithoutReleases(t *testing.T) {
	e := newBzlEnv(t, twoVersions(t))
	v, err := e.eval("//rules:setup.bzl", `cuda_settings(pins = {"cudnn": "8.9"})`)
	if err != nil {
		if msg := errorText(err); strings.Contains(msg, "12.6.3 was not generated") {
			t.Fatalf("the message says a generated version was not generated: %s", msg)
		}
		return // an accurate failure is fine
	}
	if d := cmp.Diff(map[string]any{"cudnn": map[string]any{"12.4.1": "cudnn_8_9"}}, toGo(v).(map[string]any)["pins"]); d != "" {
		t.Errorf("pins (-want +got):\n%s", d)
	}
}

// nv is the generated NVIDIA URL of a miniLocal archive.
const nv = "https://developer.download.nvidia.com/compute/cuda/redist/"

func TestRepositories(t *testing.T) {
	const setup = "//rules:setup.bzl"
	// Every repository cuda_repositories() declares by default on miniLocal.
	defaults := `{
		"cuda_config": {"rule": "cuda_config", "name": "cuda_config", "versions": ["12.4.1", "12.6.3"], "generated_versions": ["12.4.1", "12.6.3"],
			"default_version": "12.6.3", "capabilities": [], "pins": {}, "pinnable": ["cudnn"], "hub": "@cuda",
			"host_compilers": {"12.4.1": '{"clang":[7,17],"gcc":[6,13]}', "12.6.3": '{"clang":[7,18],"gcc":[6,13]}'},
			"gpu_test_exec_properties": {}},
		"cuda_cudart_12_6_77_linux_aarch64": {"rule": "http_archive", "name": "cuda_cudart_12_6_77_linux_aarch64",
			"build_file": Label("//repos:cuda_cudart_12_6_77_linux_aarch64.BUILD"), "sha256": "a64", "strip_prefix": "cudart-aarch64",
			"urls": ["` + nv + `cuda_cudart/linux-aarch64/cudart-12.6.77.tar.xz"]},
		"cuda_cudart_12_6_77_linux_x86_64": {"rule": "cuda_local_repository", "name": "cuda_cudart_12_6_77_linux_x86_64",
			"path": "/usr/local/cuda-12.6", "component": "cuda_cudart", "version": "12.6.77", "build_file": Label("//repos:cuda_cudart_12_6_77_linux_x86_64.BUILD"),
			"files": {"include": "/usr/include|system", "lib/libcudart.so.12": "/usr/lib/x86_64-linux-gnu/libcudart.so.12"}},
		"cuda_nvcc_12_4_131_linux_x86_64": {"rule": "http_archive", "name": "cuda_nvcc_12_4_131_linux_x86_64",
			"build_file": Label("//repos:cuda_nvcc_12_4_131_linux_x86_64.BUILD"), "sha256": "n124", "strip_prefix": "nvcc-12.4",
			"urls": ["https://mirror.example/redist/cuda_nvcc/linux-x86_64/nvcc-12.4.131.tar.xz", "` + nv + `cuda_nvcc/linux-x86_64/nvcc-12.4.131.tar.xz"]},
		"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "cuda_local_repository", "name": "cuda_nvcc_12_6_85_linux_x86_64",
			"path": "/usr/local/cuda-12.6", "component": "cuda_nvcc", "version": "12.6.85", "build_file": Label("//repos:cuda_nvcc_12_6_85_linux_x86_64.BUILD"),
			"files": {"bin/nvcc": "/usr/local/cuda-12.6/bin/nvcc"}},
		"cudnn_9_1_0_linux_x86_64": {"rule": "http_archive", "name": "cudnn_9_1_0_linux_x86_64",
			"build_file": Label("//repos:cudnn_9_1_0_linux_x86_64.BUILD"), "sha256": "dnn", "urls": ["https://example.com/cudnn-9.1.0.tar.xz"]},
		"nccl_2_32_6_linux_x86_64": {"rule": "http_archive", "name": "nccl_2_32_6_linux_x86_64",
			"build_file": Label("//repos:nccl_2_32_6_linux_x86_64.BUILD"), "sha256": "whl", "strip_prefix": "nvidia/nccl", "type": "zip",
			"urls": ["https://files.example/nvidia_nccl_cu12-2.32.6-py3-none-manylinux_2_27_x86_64.whl"]},
	}`
	for _, tc := range []struct {
		name, expr string
		want       string   // expected repositories by name (those named only)
		all        bool     // want names every repository
		toolchains []string // registered toolchains
		fail       string
	}{
		{
			name: "defaults", expr: "cuda_repositories()", want: defaults, all: true,
			toolchains: []string{"@cuda//toolchain:all"},
		},
		{
			name: "no toolchains", expr: "cuda_repositories(register_toolchains = False)", want: defaults, all: true,
		},
		{
			name: "version not enabled", expr: `cuda_repositories(versions = ["12.6.3"])`,
			want: `{"cuda_nvcc_12_4_131_linux_x86_64": {"rule": "cuda_disabled", "name": "cuda_nvcc_12_4_131_linux_x86_64", "targets": ["nvcc"],
				"unusable_bzl": "@cuda//unusable:defs.bzl",
				"message": "@cuda_nvcc_12_4_131_linux_x86_64 (cuda_nvcc 12.4.131): CUDA 12.4.1 is not enabled by cuda_repositories() (enabled: 12.6.3)"},
				"cuda_config": {"versions": ["12.6.3"], "generated_versions": ["12.4.1", "12.6.3"], "default_version": "12.6.3"}}`,
			toolchains: []string{"@cuda//toolchain:all"},
		},
		{
			name: "platform not enabled", expr: `cuda_repositories(platforms = ["linux-x86_64"], register_toolchains = False)`,
			want: `{"cuda_cudart_12_6_77_linux_aarch64": {"rule": "cuda_disabled", "name": "cuda_cudart_12_6_77_linux_aarch64",
				"targets": ["cuda_cudart", "headers"], "unusable_bzl": "@cuda//unusable:defs.bzl",
				"message": "@cuda_cudart_12_6_77_linux_aarch64 (cuda_cudart 12.6.77): target platform linux-jetson is not enabled by cuda_repositories() (enabled: linux-x86_64)"}}`,
		},
		{
			name: "a disabled version's local archives are disabled", expr: `cuda_repositories(versions = ["12.4.1"], register_toolchains = False)`,
			want: `{"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "cuda_disabled"}, "cuda_cudart_12_6_77_linux_x86_64": {"rule": "cuda_disabled"},
				"cuda_nvcc_12_4_131_linux_x86_64": {"rule": "http_archive"}, "cuda_config": {"default_version": "12.4.1"}}`,
		},
		{
			name: "config", expr: `cuda_repositories(versions = ["12.4.1"], capabilities = ["8.6"], pins = {"cudnn@12.4.1": "8.9"}, register_toolchains = False)`,
			want: `{"cuda_config": {"versions": ["12.4.1"], "default_version": "12.4.1", "capabilities": ["8.6"],
				"pins": {"cudnn": '{"12.4.1":"cudnn_8_9"}'}, "pinnable": ["cudnn"]}}`,
		},
		{
			name: "mirrors first, no duplicates, none without a mirror path",
			expr: `cuda_repositories(mirrors = ["https://a.example/nv", "https://mirror.example/redist/"], local_cuda = False, register_toolchains = False)`,
			want: `{"cuda_nvcc_12_4_131_linux_x86_64": {"urls": [
					"https://a.example/nv/cuda_nvcc/linux-x86_64/nvcc-12.4.131.tar.xz",
					"https://mirror.example/redist/cuda_nvcc/linux-x86_64/nvcc-12.4.131.tar.xz",
					"` + nv + `cuda_nvcc/linux-x86_64/nvcc-12.4.131.tar.xz"]},
				"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "http_archive", "urls": [
					"https://a.example/nv/cuda_nvcc/linux-x86_64/nvcc-12.6.85.tar.xz",
					"https://mirror.example/redist/cuda_nvcc/linux-x86_64/nvcc-12.6.85.tar.xz",
					"` + nv + `cuda_nvcc/linux-x86_64/nvcc-12.6.85.tar.xz"]},
				"cudnn_9_1_0_linux_x86_64": {"urls": ["https://example.com/cudnn-9.1.0.tar.xz"]}}`,
		},
		{
			name: "local_cuda = False", expr: `cuda_repositories(local_cuda = False, register_toolchains = False)`,
			want: `{"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "http_archive", "sha256": "n126"}, "cuda_cudart_12_6_77_linux_x86_64": {"rule": "http_archive"}}`,
		},
		{
			name: "gpu exec property", expr: `cuda_repositories(gpu_exec_property = "Pool=gpu-a100", register_toolchains = False)`,
			want: `{"cuda_config": {"gpu_test_exec_properties": {"test.Pool": "gpu-a100"}}}`,
		},
		{
			name: "gpu exec property without =", expr: `cuda_repositories(gpu_exec_property = "gpu")`,
			fail: `cuda_repositories(): gpu_exec_property "gpu": expected KEY=VALUE, such as gpu=nvidia (docs/remote.md)`,
		},
		{
			name: "gpu exec property with an empty value", expr: `cuda_repositories(gpu_exec_property = "gpu= ")`,
			fail: `cuda_repositories(): gpu_exec_property "gpu= ": expected KEY=VALUE, such as gpu=nvidia (docs/remote.md)`,
		},
		{
			name: "local components", expr: `cuda_repositories(local_components = ["cuda_nvcc"], register_toolchains = False)`,
			want: `{"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "cuda_local_repository"}, "cuda_cudart_12_6_77_linux_x86_64": {"rule": "http_archive"}}`,
		},
		{
			name: "local path as generated", expr: `cuda_repositories(local_cuda = "/usr/local/cuda-12.6", register_toolchains = False)`,
			want: `{"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "cuda_local_repository"}, "cuda_cudart_12_6_77_linux_x86_64": {"rule": "cuda_local_repository"}}`,
		},
		{
			name: "local path differs", expr: `cuda_repositories(local_cuda = "/opt/cuda")`,
			fail: "cuda_repositories(): local CUDA /opt/cuda: this repository was generated for the install at /usr/local/cuda-12.6; run cudapkgs generate --local-cuda /opt/cuda",
		},
		{
			name: "local component not found", expr: `cuda_repositories(local_components = ["libcublas"])`,
			fail: "cuda_repositories(): local CUDA /usr/local/cuda-12.6: component libcublas was not found there when generating; found: cuda_cudart, cuda_nvcc",
		},
		{
			name: "a setting's failure", expr: `cuda_repositories(versions = ["11.8.0"])`,
			fail: "cuda_repositories(): CUDA version 11.8.0 was not generated; this repository has 12.4.1, 12.6.3 (run cudapkgs generate with it to add it)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newBzlEnv(t, miniLocal)
			check(t, e, setup, tc.expr, "", tc.fail)
			if tc.fail != "" {
				if len(e.calls) > 0 {
					t.Errorf("declared %d repositories before failing", len(e.calls))
				}
				return
			}
			checkRepos(t, e, tc.want, tc.all)
			var want []any
			for _, tc := range tc.toolchains {
				want = append(want, tc)
			}
			if d := cmp.Diff(want, e.toolchains(), cmpOpts); d != "" {
				t.Errorf("registered toolchains (-want +got):\n%s", d)
			}
		})
	}
}

// checkRepos compares the declared repositories with want (Starlark: name
// -> the attributes to check); all: want names every one declared.
func checkRepos(t *testing.T, e *bzlEnv, want string, all bool) {
	t.Helper()
	got := e.repos()
	w := e.value(want).(map[string]any)
	if all {
		if d := cmp.Diff(w, got, cmpOpts); d != "" {
			t.Errorf("repositories (-want +got):\n%s", d)
		}
		return
	}
	for name, attrs := range w {
		g, ok := got[name].(map[string]any)
		if !ok {
			t.Errorf("no repository %s declared", name)
			continue
		}
		sub := map[string]any{}
		for k := range attrs.(map[string]any) {
			sub[k] = g[k]
		}
		if d := cmp.Diff(attrs, sub, cmpOpts); d != "" {
			t.Errorf("repository %s (-want +got):\n%s", name, d)
		}
	}
}

func TestModuleExtension(t *testing.T) {
	const ext = "//:extensions.bzl"
	for _, tc := range []struct {
		name    string
		modules string // Starlark: the list module_ctx.modules
		want    string // as for checkRepos
		fail    string
	}{
		{
			name:    "no tags: the generated defaults",
			modules: `[module(name = "app", version = "1.0", is_root = True)]`,
			want: `{"cuda_config": {"versions": ["12.4.1", "12.6.3"], "default_version": "12.6.3", "capabilities": [], "pins": {}},
				"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "cuda_local_repository"}}`,
		},
		{
			name: "the root module's versions win",
			modules: `[module(name = "dep", version = "2.0", toolkit = [{"versions": ["12.4.1"]}]),
				module(name = "app", is_root = True, toolkit = [{"versions": ["12.6.3"]}])]`,
			want: `{"cuda_config": {"versions": ["12.6.3"], "default_version": "12.6.3"},
				"cuda_nvcc_12_4_131_linux_x86_64": {"rule": "cuda_disabled",
				"message": "@cuda_nvcc_12_4_131_linux_x86_64 (cuda_nvcc 12.4.131): CUDA 12.4.1 is not enabled by cuda extension (module app) (enabled: 12.6.3)"}}`,
		},
		{
			name: "a dependency's setting, the root's other one",
			modules: `[module(is_root = True, platforms = [{"targets": ["linux-x86_64"]}]),
				module(name = "dep", version = "2.0", toolkit = [{"versions": ["12.4.1"], "default": "12.4.1"}])]`,
			want: `{"cuda_config": {"versions": ["12.4.1"], "default_version": "12.4.1"},
				"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "cuda_disabled",
				"message": "@cuda_nvcc_12_6_85_linux_x86_64 (cuda_nvcc 12.6.85): CUDA 12.6.3 is not enabled by cuda extension (module <root>, module dep 2.0) (enabled: 12.4.1)"}}`,
		},
		{
			name: "two dependencies agree",
			modules: `[module(name = "app", is_root = True),
				module(name = "a", version = "1.0", capabilities = [{"capabilities": ["9.0"]}]),
				module(name = "b", version = "3.1", capabilities = [{"capabilities": ["9.0"]}])]`,
			want: `{"cuda_config": {"capabilities": ["9.0"]}}`,
		},
		{
			name: "two dependencies disagree",
			modules: `[module(name = "app", is_root = True),
				module(name = "a", version = "1.0", toolkit = [{"versions": ["12.4.1"]}]),
				module(name = "b", version = "3.1", toolkit = [{"versions": ["12.4.1", "12.6.3"]}])]`,
			fail: `cuda extension: conflicting versions: module a 1.0 sets ["12.4.1"], module b 3.1 sets ["12.4.1","12.6.3"]; set it in the root module to decide`,
		},
		{
			name: "the root module decides between dependencies",
			modules: `[module(name = "app", is_root = True, toolkit = [{"versions": ["12.6.3"]}]),
				module(name = "a", version = "1.0", toolkit = [{"versions": ["12.4.1"]}]),
				module(name = "b", version = "3.1", toolkit = [{"versions": ["12.4.1", "12.6.3"]}])]`,
			want: `{"cuda_config": {"versions": ["12.6.3"]}}`,
		},
		{
			name:    "remote: the GPU property of cuda_test's test action",
			modules: `[module(name = "app", is_root = True, remote = [{"gpu_exec_property": "Pool=gpu"}])]`,
			want:    `{"cuda_config": {"gpu_test_exec_properties": {"test.Pool": "gpu"}}}`,
		},
		{
			name: "remote: two dependencies disagree on the GPU property",
			modules: `[module(name = "app", is_root = True),
				module(name = "a", version = "1.0", remote = [{"gpu_exec_property": "gpu=nvidia"}]),
				module(name = "b", version = "2.0", remote = [{"gpu_exec_property": "Pool=gpu"}])]`,
			fail: `cuda extension: conflicting gpu_exec_property: module a 1.0 sets "gpu=nvidia", module b 2.0 sets "Pool=gpu"; set it in the root module to decide`,
		},
		{
			name:    "remote: a malformed GPU property",
			modules: `[module(name = "app", version = "1.0", is_root = True, remote = [{"gpu_exec_property": "=nvidia"}])]`,
			fail:    `cuda extension (module app 1.0): gpu_exec_property "=nvidia": expected KEY=VALUE, such as gpu=nvidia (docs/remote.md)`,
		},
		{
			name: "one module sets a setting twice",
			modules: `[module(name = "app", version = "1.0", is_root = True,
				toolkit = [{"versions": ["12.4.1"]}, {"default": "12.4.1"}, {"versions": ["12.6.3"]}])]`,
			fail: "cuda extension: module app 1.0 sets versions twice",
		},
		{
			name: "mirrors add up, the root module's first",
			modules: `[module(name = "dep", version = "2.0", mirror = [{"urls": ["https://dep.example/nv", "https://root.example/nv"]}]),
				module(name = "app", is_root = True, mirror = [{"urls": ["https://root.example/nv"]}], local = [{"enabled": False}])]`,
			want: `{"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "http_archive", "urls": [
					"https://root.example/nv/cuda_nvcc/linux-x86_64/nvcc-12.6.85.tar.xz",
					"https://dep.example/nv/cuda_nvcc/linux-x86_64/nvcc-12.6.85.tar.xz",
					"` + nv + `cuda_nvcc/linux-x86_64/nvcc-12.6.85.tar.xz"]}}`,
		},
		{
			name: "pins",
			modules: `[module(name = "app", is_root = True, pin = [{"product": "cudnn", "version": "8.9", "cuda": "12.4.1"}]),
				module(name = "dep", version = "2.0", pin = [{"product": "cudnn", "version": "9.1", "cuda": "12.6.3"}])]`,
			want: `{"cuda_config": {"pins": {"cudnn": '{"12.4.1":"cudnn_8_9","12.6.3":"cudnn_9_1"}'}}}`,
		},
		{
			name:    "a product-wide pin",
			modules: `[module(name = "app", is_root = True, pin = [{"product": "cudnn", "version": "9.1"}])]`,
			want:    `{"cuda_config": {"pins": {"cudnn": '{"12.4.1":"cudnn_9_1","12.6.3":"cudnn_9_1"}'}}}`,
		},
		{
			name: "dependencies pin differently",
			modules: `[module(name = "app", is_root = True),
				module(name = "a", version = "1.0", pin = [{"product": "cudnn", "version": "9.1"}]),
				module(name = "b", version = "2.0", pin = [{"product": "cudnn", "version": "8.9"}])]`,
			fail: `cuda extension: conflicting pin cudnn: module a 1.0 sets "9.1", module b 2.0 sets "8.9"; set it in the root module to decide`,
		},
		{
			name:    "a pin's failure names the module",
			modules: `[module(name = "app", is_root = True, pin = [{"product": "cudnn", "version": "8.9"}])]`,
			fail:    "cuda extension (module app): pin cudnn=8.9: CUDA 12.6.3 offers cudnn 9.1",
		},
		{
			name:    "local disabled",
			modules: `[module(name = "app", is_root = True, local = [{"enabled": False}])]`,
			want:    `{"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "http_archive"}, "cuda_cudart_12_6_77_linux_x86_64": {"rule": "http_archive"}}`,
		},
		{
			name: "local components",
			modules: `[module(name = "app", is_root = True),
				module(name = "dep", version = "2.0", local = [{"components": ["cuda_cudart"]}])]`,
			want: `{"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "http_archive"}, "cuda_cudart_12_6_77_linux_x86_64": {"rule": "cuda_local_repository"}}`,
		},
		{
			name: "the root disables local, a dependency's local is ignored",
			modules: `[module(name = "app", is_root = True, local = [{"enabled": False}]),
				module(name = "dep", version = "2.0", local = [{"path": "/opt/cuda"}])]`,
			want: `{"cuda_cudart_12_6_77_linux_x86_64": {"rule": "http_archive"}}`,
		},
		{
			name:    "another path is read by the extension: no install there",
			modules: `[module(name = "app", version = "0.1", is_root = True, local = [{"path": "/nonexistent/cuda"}])]`,
			fail:    "cuda extension (module app 0.1): CUDA install /nonexistent/cuda: no such folder",
		},
		{
			name:    "a version not generated",
			modules: `[module(name = "app", version = "0.1", is_root = True, toolkit = [{"versions": ["13.0.0"]}])]`,
			fail:    "cuda extension (module app 0.1): CUDA version 13.0.0 was not generated; this repository has 12.4.1, 12.6.3 (run cudapkgs generate with it to add it)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newBzlEnv(t, miniLocal)
			check(t, e, ext, "cuda.implementation(struct(modules = "+tc.modules+", path = fs_path, read = fs_read))", "", tc.fail)
			if tc.fail == "" {
				checkRepos(t, e, tc.want, false)
			}
			if got := e.toolchains(); len(got) > 0 {
				t.Errorf("the extension registered toolchains %v; MODULE.bazel does", got)
			}
		})
	}
}

// TestPinPrecedence: a pin for one CUDA version ("cudnn@12.4.1") is more
// specific than a product-wide one ("cudnn") and should win over it, whatever
// the order of the pins; in the extension, a dependency's product-wide pin
// should not override the root module's pin for one CUDA version.
func TestPinPrecedence(t *testing.T) {
	want := `{"cudnn": '{"12.4.1":"cudnn_8_9","12.6.3":"cudnn_9_1"}'}`
	for _, expr := range []string{
		`cuda_repositories(pins = {"cudnn@12.4.1": "8.9", "cudnn": "9.1"}, local_cuda = False)`,
		`cuda_repositories(pins = {"cudnn": "9.1", "cudnn@12.4.1": "8.9"}, local_cuda = False)`,
	} {
		e := newBzlEnv(t, miniLocal)
		check(t, e, "//rules:setup.bzl", expr, "", "")
		checkRepos(t, e, `{"cuda_config": {"pins": `+want+`}}`, false)
	}
	e := newBzlEnv(t, miniLocal)
	check(t, e, "//:extensions.bzl", `cuda.implementation(struct(modules = [
		module(name = "app", is_root = True, pin = [{"product": "cudnn", "version": "8.9", "cuda": "12.4.1"}]),
		module(name = "dep", version = "2.0", pin = [{"product": "cudnn", "version": "9.1"}])]))`, "", "")
	checkRepos(t, e, `{"cuda_config": {"pins": `+want+`}}`, false)
}

// TestRepositoryRuleImpls runs the implementations of _cuda_disabled and
// _cuda_config with a fake repository_ctx: no gcc on PATH, g++-12 is.
func TestRepositoryRuleImpls(t *testing.T) {
	e := newBzlEnv(t, miniLocal)
	g, err := e.load(nil, "//rules:setup.bzl")
	if err != nil {
		t.Fatal(errorText(err))
	}
	run := func(rule, name, attrs string) map[string]string {
		t.Helper()
		files := map[string]string{}
		file := starlark.NewBuiltin("file", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var path, content string
			err := starlark.UnpackPositionalArgs("file", args, kwargs, 2, &path, &content)
			files[path] = content
			return starlark.None, err
		})
		which := starlark.NewBuiltin("which", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if args[0] == starlark.String("g++-12") {
				return starlark.String("/usr/bin/g++-12"), nil
			}
			return starlark.None, nil
		})
		a, err := e.eval("", attrs)
		if err != nil {
			t.Fatal(err)
		}
		rctx := starlarkstruct.FromStringDict(starlark.String("repository_ctx"), starlark.StringDict{
			"attr": a, "name": starlark.String(name), "file": file, "which": which,
			"os": starlarkstruct.FromStringDict(starlark.String("os"), starlark.StringDict{"environ": new(starlark.Dict)}),
		})
		if _, err := starlark.Call(e.thread(rule), g[rule].(*repoRule).impl, starlark.Tuple{rctx}, nil); err != nil {
			t.Fatalf("%s: %s", rule, errorText(err))
		}
		return files
	}

	got := run("_cuda_disabled", "cuda~~cuda~cuda_nvcc_12_4_131_linux_x86_64", `struct(message = "@x (cuda_nvcc 12.4.131): CUDA 12.4.1 is not enabled", targets = ["nvcc", "bin"], unusable_bzl = "@cuda//unusable:defs.bzl")`)
	want := map[string]string{
		"WORKSPACE": "workspace(name = \"cuda_nvcc_12_4_131_linux_x86_64\")\n",
		"BUILD.bazel": `load("@cuda//unusable:defs.bzl", "unusable")
package(default_visibility = ["//visibility:public"])
unusable(name = "nvcc", message = "@x (cuda_nvcc 12.4.131): CUDA 12.4.1 is not enabled")
unusable(name = "bin", message = "@x (cuda_nvcc 12.4.131): CUDA 12.4.1 is not enabled")
`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("_cuda_disabled (-want +got):\n%s", d)
	}

	got = run("_cuda_config", "cuda++cuda+cuda_config", `struct(versions = ["12.4.1", "12.6.3"], generated_versions = ["12.4.1", "12.6.3"], default_version = "12.6.3",
		capabilities = ["8.6"], hub = "@cuda", pinnable = ["cudnn", "cutensor"], pins = {"cudnn": '{"12.4.1":"cudnn_8_9"}'},
		host_compilers = {"12.4.1": '{"clang":[7,17],"gcc":[6,13]}', "12.6.3": '{"clang":[7,18],"gcc":[6,11]}'},
		gpu_test_exec_properties = {"test.gpu": "nvidia"})`)
	want = map[string]string{
		"WORKSPACE":   "",
		"BUILD.bazel": "",
		"config.bzl": `"""The settings of the hub, from cuda_repositories() or the cuda module extension."""
VERSIONS = ["12.4.1","12.6.3"]
GENERATED_VERSIONS = ["12.4.1","12.6.3"]
DEFAULT_VERSION = "12.6.3"
CAPABILITIES = ["8.6"]
# The host compiler nvcc uses per CUDA version, found on this machine within the supported range;
# "": the C++ toolchain's compiler.
HOST_COMPILER = {"12.4.1":"g++-12","12.6.3":""}
# What cuda_test's test action (the test exec group) asks a remote executor for (gpu_exec_property).
GPU_TEST_EXEC_PROPERTIES = {"test.gpu":"nvidia"}
`,
		"pins/BUILD.bazel": `package(default_visibility = ["//visibility:public"])
alias(name = "cudnn", actual = select({"@cuda//version:12.4.1": "@cuda//:cudnn_8_9", "//conditions:default": "@cuda//:cudnn__generated"}))
alias(name = "cutensor", actual = select({"//conditions:default": "@cuda//:cutensor__generated"}))
`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("_cuda_config (-want +got):\n%s", d)
	}
}

// TestLocalCudaFalseWithComponents: local_cuda = False is documented as
// "downloads only".
func TestLocalCudaFalseWithComponents(t *testing.T) {
	e := newBzlEnv(t, miniLocal)
	if _, err := e.eval("//rules:setup.bzl", `cuda_repositories(local_cuda = False, local_components = ["cuda_nvcc"])`); err == nil {
		checkRepos(t, e, `{"cuda_nvcc_12_6_85_linux_x86_64": {"rule": "http_archive"}}`, false)
	}
}

// TestCudaArchiveImpl runs cuda_archive's implementation with a fake
// repository_ctx: every archive is unpacked into the one folder, in order,
// the patches' edits are made, and an edit that does not match exactly once,
// or of a file the archives lack, fails naming the repository, the patch and
// the file.
func TestCudaArchiveImpl(t *testing.T) {
	e := newBzlEnv(t, miniLocal)
	g, err := e.load(nil, "//rules:setup.bzl")
	if err != nil {
		t.Fatal(errorText(err))
	}
	const header = "#include \"builtin_types.h\"\ndouble sinpi(double x);\n"
	run := func(attrs string) (map[string]string, []string, error) {
		t.Helper()
		files := map[string]string{}
		var downloads []string
		builtin := func(name string, fn func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) *starlark.Builtin {
			return starlark.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				return fn(args, kwargs)
			})
		}
		pathOf := func(p string) starlark.Value {
			_, ok := files[p]
			return starlarkstruct.FromStringDict(starlark.String("path"), starlark.StringDict{"exists": starlark.Bool(ok), "p": starlark.String(p)})
		}
		key := func(v starlark.Value) string {
			if s, ok := v.(starlark.String); ok {
				return string(s)
			}
			p, _ := v.(*starlarkstruct.Struct).Attr("p")
			return string(p.(starlark.String))
		}
		rctx := starlarkstruct.FromStringDict(starlark.String("repository_ctx"), starlark.StringDict{
			"name": starlark.String("cuda~~cuda~cuda_cuda_nvcc_12_4_131_linux_x86_64"),
			"download_and_extract": builtin("download_and_extract", func(_ starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var url *starlark.List
				var sha, strip, typ string
				if err := starlark.UnpackArgs("download_and_extract", nil, kwargs, "url", &url, "sha256", &sha, "stripPrefix", &strip, "type?", &typ); err != nil {
					return nil, err
				}
				downloads = append(downloads, sha+":"+strip+":"+typ)
				if sha == "nvcc" {
					files["include/crt/math_functions.h"] = header
				}
				return starlark.None, nil
			}),
			"path": builtin("path", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				return pathOf(key(args[0])), nil
			}),
			"read": builtin("read", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				return starlark.String(files[key(args[0])]), nil
			}),
			"delete": builtin("delete", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				delete(files, key(args[0]))
				return starlark.True, nil
			}),
			"file": builtin("file", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				files[key(args[0])] = string(args[1].(starlark.String))
				return starlark.None, nil
			}),
			"symlink": builtin("symlink", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				files[key(args[1])] = "-> " + args[0].String()
				return starlark.None, nil
			}),
		})
		a, err := e.eval("", attrs)
		if err != nil {
			t.Fatal(err)
		}
		rctx = starlarkstruct.FromStringDict(starlark.String("repository_ctx"), func() starlark.StringDict {
			d := starlark.StringDict{"attr": a}
			for _, n := range rctx.AttrNames() {
				v, _ := rctx.Attr(n)
				d[n] = v
			}
			return d
		}())
		_, err = starlark.Call(e.thread("_cuda_archive_impl"), g["cuda_archive"].(*repoRule).impl, starlark.Tuple{rctx}, nil)
		return files, downloads, err
	}
	archives := `["{\"urls\": [\"http://127.0.0.1:1/nvcc.tar.xz\"], \"sha256\": \"nvcc\", \"strip_prefix\": \"nvcc-archive\"}",
		"{\"urls\": [\"http://127.0.0.1:1/nvvm.tar.xz\"], \"sha256\": \"nvvm\", \"strip_prefix\": \"nvvm-archive\"}",
		"{\"urls\": [\"http://127.0.0.1:1/x.whl\"], \"sha256\": \"whl\", \"strip_prefix\": \"nvidia/x\", \"type\": \"zip\"}"]`
	patch := func(old string) string {
		return `['{"name": "glibc", "why": "glibc 2.41", "edits": [["include/crt/math_functions.h", ` + strconv.Quote(old) + `, "double sinpi(double x) T;"]]}']`
	}

	files, downloads, err := run(`struct(build_file = "//repos:x.BUILD", archives = ` + archives + `, patches = ` + patch("double sinpi(double x);") + `)`)
	if err != nil {
		t.Fatal(errorText(err))
	}
	if d := cmp.Diff([]string{"nvcc:nvcc-archive:", "nvvm:nvvm-archive:", "whl:nvidia/x:zip"}, downloads); d != "" {
		t.Errorf("downloads (-want +got):\n%s", d)
	}
	if got := files["include/crt/math_functions.h"]; got != "#include \"builtin_types.h\"\ndouble sinpi(double x) T;\n" {
		t.Errorf("patched header:\n%s", got)
	}
	if files["WORKSPACE"] != "workspace(name = \"cuda_cuda_nvcc_12_4_131_linux_x86_64\")\n" || files["BUILD.bazel"] == "" {
		t.Errorf("WORKSPACE %q, BUILD.bazel %q", files["WORKSPACE"], files["BUILD.bazel"])
	}

	for _, tc := range []struct{ name, attrs, want string }{
		{"text not there", `struct(build_file = "//repos:x.BUILD", archives = ` + archives + `, patches = ` + patch("float sinpi(float x);") + `)`,
			"patch glibc (glibc 2.41): include/crt/math_functions.h has the text to replace 0 times, expected once"},
		{"file not there", `struct(build_file = "//repos:x.BUILD", archives = ` + archives + `, patches = ['{"name": "p", "why": "w", "edits": [["include/none.h", "a", "b"]]}'])`,
			"patch p (w): include/none.h is not in the archive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(tc.attrs)
			if err == nil || !strings.Contains(errorText(err), tc.want) || !strings.Contains(errorText(err), "@cuda~~cuda~cuda_cuda_nvcc_12_4_131_linux_x86_64") {
				t.Errorf("got %v, want an error naming the repository and %q", err, tc.want)
			}
		})
	}
}
