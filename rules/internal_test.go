package rules

// The stub layer for setup_test.go: it runs setup.bzl, extensions.bzl and
// local.bzl with go.starlark.net the way Bazel loads them, with what Bazel
// predeclares replaced by small recording stand-ins.

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// bzlOptions are Bazel's .bzl dialect: no top-level control flow, no global
// reassignment, no while, no recursion, no set.
func bzlOptions() *syntax.FileOptions { return &syntax.FileOptions{} }

// call is one recorded call of a repository rule, http_archive or
// native.register_toolchains, with its arguments as Go values (see toGo).
type call struct {
	rule   string
	args   []any
	kwargs map[string]any
}

// bzlEnv is one Bazel-like evaluation: its loaded modules and the calls the
// stubs recorded.
type bzlEnv struct {
	t         *testing.T
	generated string // the source of //:generated.bzl
	loaded    map[string]starlark.StringDict
	calls     []call
}

func newBzlEnv(t *testing.T, generated string) *bzlEnv {
	t.Helper()
	return &bzlEnv{t: t, generated: generated, loaded: map[string]starlark.StringDict{}}
}

func (e *bzlEnv) thread(name string) *starlark.Thread {
	return &starlark.Thread{Name: name, Load: e.load, Print: func(_ *starlark.Thread, msg string) { e.t.Log(msg) }}
}

// load serves the labels the files load: the real rules/ sources (as
// embedded), the generated data, and a stub http.bzl.
func (e *bzlEnv) load(_ *starlark.Thread, module string) (starlark.StringDict, error) {
	if g, ok := e.loaded[module]; ok {
		return g, nil
	}
	var src any
	switch module {
	case "@bazel_tools//tools/build_defs/repo:http.bzl":
		return starlark.StringDict{"http_archive": &repoRule{name: "http_archive", env: e}}, nil
	case "//:generated.bzl":
		src = e.generated
		if !strings.Contains(e.generated, "LOCAL_LAYOUTS") {
			// A hand-written generated.bzl: the search data core/bazel writes.
			src = e.generated + localSearchData()
		}
	case "//rules:setup.bzl":
		src = SetupBzl
	case "//rules:local.bzl":
		src = LocalBzl
	case "//:extensions.bzl":
		src = ExtensionsBzl
	default:
		return nil, fmt.Errorf("no file %s", module)
	}
	g, err := starlark.ExecFileOptions(bzlOptions(), e.thread(module), module, src, e.predeclared())
	if err != nil {
		return nil, err
	}
	e.loaded[module] = g
	return g, nil
}

// predeclared is what Bazel predeclares in a .bzl file, as far as the files
// use it.
func (e *bzlEnv) predeclared() starlark.StringDict {
	attrs := starlark.StringDict{}
	for kind, def := range map[string]func() starlark.Value{
		"bool":        func() starlark.Value { return starlark.False },
		"label":       func() starlark.Value { return starlark.None },
		"string":      func() starlark.Value { return starlark.String("") },
		"string_dict": func() starlark.Value { return new(starlark.Dict) },
		"string_list": func() starlark.Value { return starlark.NewList(nil) },
	} {
		attrs[kind] = starlark.NewBuiltin("attr."+kind, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			a := &attrSpec{kind: kind, def: def()}
			for _, kv := range kwargs {
				switch kv[0].(starlark.String) {
				case "mandatory":
					a.mandatory = bool(kv[1].Truth())
				case "default":
					a.def = kv[1]
				}
			}
			return a, nil
		})
	}
	return starlark.StringDict{
		"Label": starlark.NewBuiltin("Label", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			if err := starlark.UnpackPositionalArgs("Label", args, kwargs, 1, &s); err != nil {
				return nil, err
			}
			if !strings.HasPrefix(s, "//") {
				return nil, fmt.Errorf("Label(%q): the stub knows only labels of the repository itself", s)
			}
			return label("@cuda" + s), nil
		}),
		"attr": starlarkstruct.FromStringDict(starlark.String("attr"), attrs),
		"json": json.Module,
		"native": starlarkstruct.FromStringDict(starlark.String("native"), starlark.StringDict{
			"register_toolchains": starlark.NewBuiltin("register_toolchains", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				e.calls = append(e.calls, call{rule: "register_toolchains", args: toGo(args).([]any)})
				return starlark.None, nil
			}),
		}),
		"repository_rule": starlark.NewBuiltin("repository_rule", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			impl, attrs, err := implAndAttrs("repository_rule", args, kwargs)
			if err != nil {
				return nil, err
			}
			return &repoRule{name: strings.TrimPrefix(strings.TrimSuffix(impl.Name(), "_impl"), "_"), impl: impl, attrs: attrs, env: e}, nil
		}),
		"tag_class": starlark.NewBuiltin("tag_class", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			_, attrs, err := implAndAttrs("tag_class", args, kwargs)
			return &tagClass{attrs: attrs}, err
		}),
		"module_extension": starlark.NewBuiltin("module_extension", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) > 0 {
				return nil, errors.New("module_extension: positional arguments")
			}
			return starlarkstruct.FromKeywords(starlark.String("module_extension"), kwargs), nil
		}),
		"struct":  starlark.NewBuiltin("struct", starlarkstruct.Make),
		"fs_path": fsBuiltins()["fs_path"],
		"fs_read": fsBuiltins()["fs_read"],
	}
}

// implAndAttrs reads the keyword arguments implementation and attrs of
// repository_rule and tag_class; the others (doc, environ, local) are
// ignored.
func implAndAttrs(fn string, args starlark.Tuple, kwargs []starlark.Tuple) (*starlark.Function, map[string]*attrSpec, error) {
	if len(args) > 0 {
		return nil, nil, fmt.Errorf("%s: positional arguments", fn)
	}
	var impl *starlark.Function
	attrs := map[string]*attrSpec{}
	for _, kv := range kwargs {
		switch kv[0].(starlark.String) {
		case "implementation":
			impl, _ = kv[1].(*starlark.Function)
		case "attrs":
			for _, item := range kv[1].(*starlark.Dict).Items() {
				a, ok := item[1].(*attrSpec)
				if !ok {
					return nil, nil, fmt.Errorf("%s: attribute %s is %s, not an attr", fn, item[0], item[1].Type())
				}
				attrs[string(item[0].(starlark.String))] = a
			}
		}
	}
	if impl == nil && fn != "tag_class" {
		return nil, nil, fmt.Errorf("%s: no implementation function", fn)
	}
	return impl, attrs, nil
}

// label stands for a Label: its str() is the label in the hub, @cuda.
type label string

func (l label) String() string        { return string(l) }
func (l label) Type() string          { return "Label" }
func (l label) Freeze()               {}
func (l label) Truth() starlark.Bool  { return true }
func (l label) Hash() (uint32, error) { return starlark.String(l).Hash() }

// attrSpec is what attr.string() and the others return.
type attrSpec struct {
	kind      string
	mandatory bool
	def       starlark.Value
}

func (a *attrSpec) String() string {
	return fmt.Sprintf("attr.%s(mandatory = %v)", a.kind, a.mandatory)
}
func (a *attrSpec) Type() string          { return "attr" }
func (a *attrSpec) Freeze()               { a.def.Freeze() }
func (a *attrSpec) Truth() starlark.Bool  { return true }
func (a *attrSpec) Hash() (uint32, error) { return 0, errors.New("unhashable: attr") }

// tagClass is what tag_class() returns.
type tagClass struct{ attrs map[string]*attrSpec }

func (c *tagClass) String() string        { return "tag_class()" }
func (c *tagClass) Type() string          { return "tag_class" }
func (c *tagClass) Freeze()               {}
func (c *tagClass) Truth() starlark.Bool  { return true }
func (c *tagClass) Hash() (uint32, error) { return 0, errors.New("unhashable: tag_class") }

// tag is a tag of this class as Bazel hands it to the extension: every
// attribute set, the absent ones to their defaults.
func (c *tagClass) tag(values *starlark.Dict) (starlark.Value, error) {
	fields := starlark.StringDict{}
	for _, kv := range values.Items() {
		k, _ := starlark.AsString(kv[0])
		if c.attrs[k] == nil {
			return nil, fmt.Errorf("tag has no attribute %q", k)
		}
		fields[k] = kv[1]
	}
	for k, a := range c.attrs {
		if _, ok := fields[k]; !ok {
			if a.mandatory {
				return nil, fmt.Errorf("tag: mandatory attribute %q missing", k)
			}
			fields[k] = a.def
		}
	}
	return starlarkstruct.FromStringDict(starlark.String("tag"), fields), nil
}

// repoRule is a repository rule (or the stub http_archive): calling it
// records the call, checking the attributes like Bazel does.
type repoRule struct {
	name  string
	impl  *starlark.Function // nil for http_archive
	attrs map[string]*attrSpec
	env   *bzlEnv
}

func (r *repoRule) String() string        { return "repository_rule(" + r.name + ")" }
func (r *repoRule) Type() string          { return "repository_rule" }
func (r *repoRule) Freeze()               {}
func (r *repoRule) Truth() starlark.Bool  { return true }
func (r *repoRule) Hash() (uint32, error) { return 0, errors.New("unhashable: repository_rule") }
func (r *repoRule) Name() string          { return r.name }

func (r *repoRule) CallInternal(_ *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("%s: positional arguments", r.name)
	}
	c := call{rule: r.name, kwargs: map[string]any{}}
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		if r.impl != nil && k != "name" && r.attrs[k] == nil {
			return nil, fmt.Errorf("%s: no attribute %q", r.name, k)
		}
		c.kwargs[k] = toGo(kv[1])
	}
	if _, ok := c.kwargs["name"]; !ok {
		return nil, fmt.Errorf("%s: no name", r.name)
	}
	for k, a := range r.attrs {
		if _, ok := c.kwargs[k]; a.mandatory && !ok {
			return nil, fmt.Errorf("%s %s: mandatory attribute %q missing", r.name, c.kwargs["name"], k)
		}
	}
	r.env.calls = append(r.env.calls, c)
	return starlark.None, nil
}

// moduleBuiltin is the test's module(name, version, is_root, <tag class> = [{attr:
// value}]): a module as module_ctx.modules lists it, for the extension ext.
func moduleBuiltin(ext *starlarkstruct.Struct) *starlark.Builtin {
	return starlark.NewBuiltin("module", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		tcv, err := ext.Attr("tag_classes")
		if err != nil {
			return nil, err
		}
		classes := tcv.(*starlark.Dict)
		fields := starlark.StringDict{"name": starlark.String(""), "version": starlark.String(""), "is_root": starlark.False}
		tags := starlark.StringDict{}
		for _, k := range classes.Keys() {
			tags[string(k.(starlark.String))] = starlark.NewList(nil)
		}
		for _, kv := range kwargs {
			k := string(kv[0].(starlark.String))
			if _, ok := fields[k]; ok {
				fields[k] = kv[1]
				continue
			}
			c, found, _ := classes.Get(kv[0])
			if !found {
				return nil, fmt.Errorf("module: the extension has no tag class %q", k)
			}
			var list []starlark.Value
			for d := range kv[1].(*starlark.List).Elements() {
				tag, err := c.(*tagClass).tag(d.(*starlark.Dict))
				if err != nil {
					return nil, fmt.Errorf("module: %s %v", k, err)
				}
				list = append(list, tag)
			}
			tags[k] = starlark.NewList(list)
		}
		fields["tags"] = starlarkstruct.FromStringDict(starlark.String("tags"), tags)
		return starlarkstruct.FromStringDict(starlark.String("module"), fields), nil
	})
}

// eval evaluates a Starlark expression among the globals of module (a label
// the loader serves) and the test helpers: struct, Label and, for
// //:extensions.bzl, module().
func (e *bzlEnv) eval(module, expr string) (starlark.Value, error) {
	e.t.Helper()
	env := e.predeclared()
	if module != "" {
		g, err := e.load(nil, module)
		if err != nil {
			e.t.Fatalf("loading %s: %v", module, errorText(err))
		}
		for k, v := range g {
			env[k] = v
		}
		if ext, ok := g["cuda"].(*starlarkstruct.Struct); ok {
			env["module"] = moduleBuiltin(ext)
		}
	}
	return starlark.EvalOptions(bzlOptions(), e.thread("test"), "test", expr, env)
}

// value evaluates a Starlark literal (an expected value) to Go.
func (e *bzlEnv) value(src string) any {
	e.t.Helper()
	v, err := e.eval("", src)
	if err != nil {
		e.t.Fatalf("%s: %v", src, err)
	}
	return toGo(v)
}

// repos are the recorded repository rule calls by name, each as its
// keyword arguments plus "rule".
func (e *bzlEnv) repos() map[string]any {
	out := map[string]any{}
	for _, c := range e.calls {
		if c.rule == "register_toolchains" {
			continue
		}
		m := map[string]any{"rule": c.rule}
		for k, v := range c.kwargs {
			m[k] = v
		}
		out[c.kwargs["name"].(string)] = m
	}
	return out
}

// toolchains are the recorded register_toolchains arguments.
func (e *bzlEnv) toolchains() []any {
	var out []any
	for _, c := range e.calls {
		if c.rule == "register_toolchains" {
			out = append(out, c.args...)
		}
	}
	return out
}

// errorText is the message of an evaluation error: what fail() printed,
// without its "fail: " prefix, or the error's own message.
func errorText(err error) string {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		return strings.TrimPrefix(ee.Msg, "fail: ")
	}
	return err.Error()
}

// toGo turns a Starlark value into Go values cmp can compare: lists and
// tuples become []any, dicts map[string]any, Labels stay label.
func toGo(v starlark.Value) any {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil
	case starlark.Bool:
		return bool(v)
	case starlark.Int:
		i, _ := v.Int64()
		return int(i)
	case starlark.String:
		return string(v)
	case label:
		return v
	case starlark.Indexable: // list, tuple
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toGo(v.Index(i))
		}
		return out
	case *starlark.Dict:
		out := map[string]any{}
		for _, kv := range v.Items() {
			k, val := kv[0], kv[1]
			ks, ok := starlark.AsString(k)
			if !ok {
				ks = k.String()
			}
			out[ks] = toGo(val)
		}
		return out
	default:
		return v.String()
	}
}
