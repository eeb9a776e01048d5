package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var repo = Repo{Name: "cuda", Path: "third_party/cuda"}

const newModule = `# The CUDA repository ` + "`cudapkgs generate`" + ` writes (cudapkgs init added these lines).
bazel_dep(name = "cuda")
local_path_override(
    module_name = "cuda",
    path = "third_party/cuda",
)

# Settings, all optional (docs/bazel.md): cuda.toolkit(versions = [...], default = ...),
# cuda.platforms(targets = [...]), cuda.capabilities(capabilities = [...]), cuda.pin(...), cuda.mirror(urls = [...]).
cuda = use_extension("@cuda//:extensions.bzl", "cuda")
`

func TestEditModule(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		added          int
	}{
		{name: "empty", in: "", want: newModule, added: 3},
		{
			name: "after the last bazel_dep",
			in: `module(name = "app")

bazel_dep(name = "rules_cc", version = "0.0.9")
bazel_dep(name = "platforms", version = "0.0.8")

register_execution_platforms("//:host")
`,
			want: `module(name = "app")

bazel_dep(name = "rules_cc", version = "0.0.9")
bazel_dep(name = "platforms", version = "0.0.8")

# The CUDA repository ` + "`cudapkgs generate`" + ` writes (cudapkgs init added these lines).
bazel_dep(name = "cuda")
local_path_override(
    module_name = "cuda",
    path = "third_party/cuda",
)

register_execution_platforms("//:host")

# Settings, all optional (docs/bazel.md): cuda.toolkit(versions = [...], default = ...),
# cuda.platforms(targets = [...]), cuda.capabilities(capabilities = [...]), cuda.pin(...), cuda.mirror(urls = [...]).
cuda = use_extension("@cuda//:extensions.bzl", "cuda")
`,
			added: 3,
		},
		{
			// The user's own lines, in their own order and names: only the
			// missing override is added, after the bazel_dep.
			name: "partly there",
			in: `gpu = use_extension("@cuda//:extensions.bzl", "cuda", dev_dependency = True)
gpu.toolkit(versions = ["12.4.1"])

bazel_dep(name = "cuda")
`,
			want: `gpu = use_extension("@cuda//:extensions.bzl", "cuda", dev_dependency = True)
gpu.toolkit(versions = ["12.4.1"])

bazel_dep(name = "cuda")
local_path_override(
    module_name = "cuda",
    path = "third_party/cuda",
)
`,
			added: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, added, err := EditModule("MODULE.bazel", []byte(tc.in), repo)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if len(added) != tc.added {
				t.Errorf("added %q, want %d statements", added, tc.added)
			}
			// Idempotent: the result needs nothing more, and is returned as is.
			again, added, err := EditModule("MODULE.bazel", got, repo)
			if err != nil || string(again) != string(got) || len(added) != 0 {
				t.Errorf("second edit: added %q, err %v, changed %t", added, err, string(again) != string(got))
			}
		})
	}
}

func TestEditModuleUnchangedBytes(t *testing.T) {
	// Not buildifier's format, but complete: not one byte changes.
	in := "bazel_dep(name='cuda')\nlocal_path_override(module_name='cuda',path='third_party/cuda')\nx=use_extension('@cuda//:extensions.bzl','cuda')\n"
	got, added, err := EditModule("MODULE.bazel", []byte(in), repo)
	if err != nil || string(got) != in || len(added) != 0 {
		t.Fatalf("got %q, added %q, err %v", got, added, err)
	}
}

func TestEditModuleName(t *testing.T) {
	got, _, err := EditModule("MODULE.bazel", nil, Repo{Name: "cuda12", Path: "/opt/gen/cuda12"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`bazel_dep(name = "cuda12")`, `module_name = "cuda12"`, `path = "/opt/gen/cuda12"`,
		`cuda12 = use_extension("@cuda12//:extensions.bzl", "cuda")`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
}

func TestEditModuleRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"syntax", "bazel_dep(name = \"cuda\"\n", "MODULE.bazel does not parse, so it was not changed (fix it, then run again): MODULE.bazel:3:1: syntax error"},
		{"other path", "bazel_dep(name = \"cuda\")\n\nlocal_path_override(module_name = \"cuda\", path = \"gen/cuda\")\n",
			`MODULE.bazel:3: local_path_override(module_name = "cuda", path = "gen/cuda") is already there, and it is not local_path_override(module_name = "cuda", path = "third_party/cuda")`},
		{"archive", "archive_override(module_name = \"cuda\", urls = [\"https://x/cuda.tar.gz\"])\n",
			`MODULE.bazel:1: archive_override(module_name = "cuda", urls = ["https://x/cuda.tar.gz"]) is already there`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := EditModule("MODULE.bazel", []byte(tc.in), repo)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err %v, want prefix %s", err, tc.want)
			}
			// The library names no flag: the command line says its own.
			var ce *ConflictError
			if strings.Contains(tc.want, "already there") && (!errors.As(err, &ce) || strings.Contains(err.Error(), "--") || !strings.Contains(ce.Message("run again"), ": change or remove it, or run again; the file was not changed")) {
				t.Errorf("err %v: want a *ConflictError naming no flag", err)
			}
		})
	}
	_, _, err := EditModule("MODULE.bazel", []byte("x = (\n"), repo)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "MODULE.bazel" {
		t.Fatalf("err %v: want a *ParseError naming the file", err)
	}
}

func TestEditWorkspace(t *testing.T) {
	in := `workspace(name = "app")

load("@bazel_tools//tools/build_defs/repo:http.bzl", "http_archive")
`
	want := in + `
# The CUDA repository ` + "`cudapkgs generate`" + ` writes (cudapkgs init added these lines).
local_repository(
    name = "cuda",
    path = "third_party/cuda",
)

load("@cuda//:repositories.bzl", "cuda_repositories")

cuda_repositories()
`
	got, added, err := EditWorkspace("WORKSPACE", []byte(in), repo)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want || len(added) != 3 {
		t.Errorf("added %q; got\n%s\nwant\n%s", added, got, want)
	}
	again, added, err := EditWorkspace("WORKSPACE", got, repo)
	if err != nil || string(again) != string(got) || len(added) != 0 {
		t.Errorf("second edit: added %q, err %v", added, err)
	}
	// The repository declared, the macro not yet called.
	part := "local_repository(name = \"cuda\", path = \"third_party/cuda\")\n"
	got, added, err = EditWorkspace("WORKSPACE", []byte(part), repo)
	if err != nil || len(added) != 2 || !strings.HasSuffix(string(got), "cuda_repositories()\n") {
		t.Errorf("added %q, err %v:\n%s", added, err, got)
	}
	_, _, err = EditWorkspace("WORKSPACE", []byte("new_local_repository(name = \"cuda\", path = \"/usr/local/cuda\", build_file = \"x\")\n"), repo)
	if err == nil || !strings.Contains(err.Error(), "WORKSPACE:1: new_local_repository(") {
		t.Errorf("err %v", err)
	}
	_, _, err = EditWorkspace("WORKSPACE", []byte("load(\n"), repo)
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("err %v: want a *ParseError", err)
	}
}

func TestPlanChoosesAndWrites(t *testing.T) {
	// No file: a new MODULE.bazel.
	dir := t.TempDir()
	e, err := Plan(dir, repo)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != Module || e.Exists || !e.Changed() || e.Path != filepath.Join(dir, "MODULE.bazel") {
		t.Fatalf("%+v", e)
	}
	if err := e.Write(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(e.Path); string(data) != newModule {
		t.Errorf("wrote\n%s", data)
	}
	e, err = Plan(dir, repo)
	if err != nil || e.Changed() {
		t.Fatalf("second plan: %v, changed %t", err, e != nil && e.Changed())
	}

	// WORKSPACE only: the macro lines; the file's mode is kept.
	dir = t.TempDir()
	ws := filepath.Join(dir, "WORKSPACE")
	if err := os.WriteFile(ws, []byte("workspace(name = \"w\")\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err = Plan(dir, repo)
	if err != nil || e.Kind != Workspace || e.Path != ws {
		t.Fatalf("%+v %v", e, err)
	}
	if err := e.Write(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(ws)
	data, _ := os.ReadFile(ws)
	if st.Mode().Perm() != 0o600 || !strings.Contains(string(data), "cuda_repositories()") {
		t.Errorf("mode %v:\n%s", st.Mode(), data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}

	// MODULE.bazel wins over WORKSPACE; one that does not parse is refused.
	bad := []byte("bazel_dep(\n")
	if err := os.WriteFile(filepath.Join(dir, "MODULE.bazel"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Plan(dir, repo)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != filepath.Join(dir, "MODULE.bazel") {
		t.Fatalf("err %v", err)
	}
}
