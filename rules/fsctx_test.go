package rules

// A fake module_ctx over the real filesystem for rules/local.bzl's search:
// path(p) and read(p), as Bazel's module_ctx has them.

import (
	"errors"
	"os"
	"path/filepath"

	"go.starlark.net/starlark"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
)

// fsPath is Bazel's path object, as far as local.bzl uses it.
type fsPath string

func (p fsPath) String() string        { return string(p) }
func (p fsPath) Type() string          { return "path" }
func (p fsPath) Freeze()               {}
func (p fsPath) Truth() starlark.Bool  { return true }
func (p fsPath) Hash() (uint32, error) { return starlark.String(p).Hash() }
func (p fsPath) AttrNames() []string {
	return []string{"basename", "exists", "is_dir", "readdir", "realpath"}
}

func (p fsPath) Attr(name string) (starlark.Value, error) {
	switch name {
	case "basename":
		return starlark.String(filepath.Base(string(p))), nil
	case "exists":
		_, err := os.Stat(string(p))
		return starlark.Bool(err == nil), nil
	case "is_dir":
		fi, err := os.Stat(string(p))
		return starlark.Bool(err == nil && fi.IsDir()), nil
	case "realpath":
		r, err := filepath.EvalSymlinks(string(p))
		if err != nil {
			return nil, err
		}
		return fsPath(r), nil
	case "readdir":
		return starlark.NewBuiltin("readdir", func(_ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			es, err := os.ReadDir(string(p))
			if err != nil {
				return nil, err
			}
			var out []starlark.Value
			for _, e := range es {
				out = append(out, fsPath(filepath.Join(string(p), e.Name())))
			}
			return starlark.NewList(out), nil
		}), nil
	}
	return nil, nil
}

// fsBuiltins are module_ctx's path and read.
func fsBuiltins() starlark.StringDict {
	return starlark.StringDict{
		"fs_path": starlark.NewBuiltin("path", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			if len(args) != 1 {
				return nil, errors.New("path: one argument")
			}
			if s, ok := starlark.AsString(args[0]); ok {
				return fsPath(s), nil
			}
			return args[0], nil
		}),
		"fs_read": starlark.NewBuiltin("read", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			if len(args) != 1 {
				return nil, errors.New("read: one argument")
			}
			s, ok := starlark.AsString(args[0])
			if !ok {
				s = args[0].String()
			}
			b, err := os.ReadFile(s)
			return starlark.String(b), err
		}),
	}
}

// localSearchData is what core/bazel adds to generated.bzl for the
// extension's search, from the same sources (the layout table itself, the
// toolkit plugin's hints), for the tests' hand-written generated.bzl.
func localSearchData() string {
	return `
LOCAL_LAYOUTS = ` + localcuda.Starlark(localcuda.Layouts()) + `
LOCAL_HINTS = [
    {"component": "cuda_nvcc", "key": ", V", "kind": "text", "rel": "bin/nvcc"},
    {"component": "cuda_cudart", "key": "libcudart.so.", "kind": "name", "rel": "lib"},
]
LOCAL_IDENTIFY = ["cuda_nvcc", "cuda_cudart"]
LOCAL_REQUIRED = ["cuda_nvcc", "cuda_cudart"]
LOCAL_PLATFORM_KEYS = ["linux-x86_64", "linux-sbsa", "linux-aarch64", "linux-ppc64le", "windows-x86_64", "linux-all", "source"]
`
}
