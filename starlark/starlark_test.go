package starlark

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sl "go.starlark.net/starlark"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/golden"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
)

func interp(t testing.TB, root string) *Interp {
	t.Helper()
	in, err := NewInterp(root)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// manifests are read once per test binary.
var (
	collOnce sync.Once
	coll     *manifest.Collection
	collErr  error
)

func collection(t testing.TB) (*manifest.Collection, config.Available) {
	t.Helper()
	dir := shared.Manifests(t)
	collOnce.Do(func() { coll, collErr = manifest.LoadDir(dir) })
	if collErr != nil {
		t.Fatal(collErr)
	}
	return coll, pkgset.Available(coll, builtintest.Products(t))
}

// build evaluates the layers and builds the sets, as the CLI does.
func build(t testing.TB, layers ...config.Layer) (*config.Config, []*pkgset.Set) {
	t.Helper()
	c, avail := collection(t)
	cfg, err := config.Evaluate(avail, append([]config.Layer{config.Defaults{}}, layers...)...)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := pkgset.Build(context.Background(), cfg, c, builtintest.Products(t))
	if err != nil {
		t.Fatal(err)
	}
	return cfg, sets
}

const wsQuery = `{
    "cudnn": cuda.package("cudnn").version,
    "cudnn_release": cuda.package("cudnn").release,
    "libcufile": {"unavailable": cuda.package("libcufile").unavailable, "platforms": sorted(cuda.package("libcufile").platforms.keys())},
    "versions": cuda.versions(),
}`

// TestWorkspaceConfig is the acceptance case: the configuration pins
// cuDNN 8.9 for CUDA 12.2, marks libcufile unusable on linux-sbsa with a
// reason and loads a shared policy, and the query shows exactly that.
func TestWorkspaceConfig(t *testing.T) {
	ctx := context.Background()
	in := interp(t, "testdata/ws")
	f, err := in.EvalConfig(ctx, "testdata/ws/cudapkgs.star")
	if err != nil {
		t.Fatal(FormatError(err))
	}
	if got, want := strings.Join(f.Modules, " "), "cudapkgs.star tools/cuda/policy.star tools/cuda/reasons.star"; got != want {
		t.Errorf("modules %q, want %q", got, want)
	}
	o := f.Options()
	if strings.Join(o.Pins, ",") != "cudnn@12.2=8.9" || strings.Join(o.Targets, ",") != "linux-x86_64,linux-sbsa" ||
		o.ForwardCompat == nil || !*o.ForwardCompat || *o.Exec != "linux-x86_64" || len(o.Plugins) != 0 {
		t.Errorf("options %+v", o)
	}
	for opt, want := range map[string]string{"cuda": "cudapkgs.star:7:14", "pins": "cudapkgs.star:13:4", "mirrors": "cudapkgs.star:14:8", "plugins": ""} {
		if got := f.Position(opt); got != want {
			t.Errorf("Position(%q) = %q, want %q", opt, got, want)
		}
	}
	if got := strings.Join(f.Overrides(), "; "); got != "cudapkgs.star:16:9: libcufile" {
		t.Errorf("Overrides() = %q", got)
	}

	// Without the file: the newest cuDNN, libcufile usable everywhere.
	_, before := build(t, config.Literal{From: "test", Options: config.Options{CUDA: []string{"12.2.2"}, Targets: []string{"linux-x86_64", "linux-sbsa"}}})
	vb, err := Query(ctx, in, wsQuery, before)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	jb, err := ToJSON(vb)
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, "testdata/golden/query_before.json", jb)

	cfg, sets := build(t, f)
	if p, ok := cfg.Pin("cudnn", version.MustParse("12.2.2")); !ok || p.String() != "cudnn@12.2=8.9" {
		t.Errorf("config pin %v %v", p, ok)
	}
	applied, err := f.ApplyOverrides(ctx, sets, nil)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	sets = applied
	v, err := Query(ctx, in, wsQuery, sets)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	j, err := ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, "testdata/golden/query_after.json", j)
	if !strings.Contains(string(j), `"cudnn": "8.9.`) || !strings.Contains(string(j), "GPUDirect Storage is not deployed") {
		t.Errorf("query does not show the pin and the override:\n%s", j)
	}

	// The script form, with a load.
	rv, err := Run(ctx, in, "testdata/ws/query.star", sets)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	rj, err := ToJSON(rv)
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, "testdata/golden/run_query.json", rj)

	// A whole package, as queries see it.
	pv, err := Query(ctx, in, `cuda.package("libcufile", cuda = "12.2")`, sets)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	pj, err := ToJSON(pv)
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, "testdata/golden/libcufile.json", pj)
}

// TestOverrideChanges checks every change key on a real set.
func TestOverrideChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := `
def f(pkg):
    return {
        "add_deps": ["libcublas"],
        "drop_deps": ["cuda_cudart"],
        "add_files": {"linux-x86_64": [{"path": "lib/libextra.so.1", "kind": "shared_lib", "role": "target", "soname": "libextra.so.1"}]},
        "unusable": {"linux-sbsa": ["one", "two"]},
    }
override("libcufile", f, cuda = "12.2")
override("libcufile", lambda pkg: {"unusable": {"linux-x86_64": "saw %d deps" % len(pkg.deps)}})
`
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in := interp(t, dir)
	f, err := in.EvalConfig(ctx, filepath.Join(dir, "cudapkgs.star"))
	if err != nil {
		t.Fatal(FormatError(err))
	}
	_, sets := builtintest.Env().Sets(t, []string{"12.2.2"}, []string{"linux-x86_64", "linux-sbsa"})
	given := sets[0]
	before := given.Clone()
	applied, err := f.ApplyOverrides(ctx, sets, nil)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	// Overrides return new sets: the sets given, and their packages, stay
	// as they were.
	if !reflect.DeepEqual(given, before) {
		t.Error("ApplyOverrides changed the set it was given")
	}
	sets = applied
	p := find(sets[0], "libcufile")
	if len(p.Deps) != 1 || p.Deps[0].Name != "libcublas" {
		t.Errorf("deps %+v", p.Deps)
	}
	if fs := p.Files["linux-x86_64"]; len(fs) != 1 || fs[0].SONAME != "libextra.so.1" || p.Role != "target" {
		t.Errorf("files %+v role %q", p.Files, p.Role)
	}
	if got := strings.Join(p.Unavailable["linux-sbsa"], ","); got != "one,two" {
		t.Errorf("unusable on sbsa %q", got)
	}
	if got := strings.Join(p.Unavailable["linux-x86_64"], ","); got != "saw 1 deps" {
		t.Errorf("second override saw %q: it must see the first one's result", got)
	}
}

type errorCase struct {
	file string
	// want is FormatError's first line; also checked: more lines the message has.
	want string
	more []string
}

// TestErrors checks the message and the position of every error case.
func TestErrors(t *testing.T) {
	cases := []errorCase{
		{file: "syntax.star", want: "syntax.star:2:13: got identifier, want ','"},
		{file: "unknown.star", want: "unknown.star:2:1: undefined: foo"},
		{file: "wrong_type.star", want: "wrong_type.star:2:13: capabilities: for parameter capabilities: got string, want list of strings",
			more: []string{"Traceback (most recent call last):", "  wrong_type.star:2:13: in <toplevel>"}},
		{file: "wrong_type_bool.star", want: "wrong_type_bool.star:1:15: forward_compat: for parameter enabled: got string, want bool"},
		{file: "unknown_keyword.star", want: "unknown_keyword.star:2:4: pin: unexpected keyword argument \"cudaa\""},
		{file: "bad_capability.star", want: "bad_capability.star:1:13: capabilities: "},
		{file: "cycle_a.star", want: "sub/cycle_c.star:1:1: cannot load ../cycle_a.star: cycle: cycle_a.star -> cycle_b.star -> sub/cycle_c.star -> cycle_a.star",
			more: []string{"  cycle_a.star:1:1: in <toplevel>", "  cycle_b.star:1:1: in <toplevel>", "  sub/cycle_c.star:1:1: in <toplevel>"}},
		{file: "budget.star", want: "sub/loop.star:4:9: Starlark computation cancelled: step budget exhausted (200000 steps)",
			more: []string{"  budget.star:1:1: in <toplevel>", "  sub/loop.star:7:9: in <toplevel>", "  sub/loop.star:4:9: in spin"}},
		{file: "outside.star", want: `outside.star:1:1: cannot load ../outside.star: "../outside.star": ../outside.star is outside the workspace`},
		{file: "missing.star", want: `missing.star:1:1: cannot load //:absent.star: "//:absent.star": no file absent.star in the workspace`},
		{file: "not_star.star", want: `not_star.star:1:1: cannot load policy.bzl: "policy.bzl": only .star files can be loaded`},
		{file: "check_fail.star", want: "check_fail.star:6:13: fail: capability 9.0 is missing"},
	}
	in := interp(t, "testdata/errors")
	in.MaxSteps = 200000
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, err := in.EvalConfig(context.Background(), filepath.Join("testdata/errors", c.file))
			if err == nil {
				t.Fatal("no error")
			}
			checkError(t, err, c)
		})
	}
}

func checkError(t *testing.T, err error, c errorCase) {
	t.Helper()
	msg := FormatError(err)
	first, _, _ := strings.Cut(msg, "\n")
	if !strings.HasPrefix(first, c.want) {
		t.Errorf("first line:\n got %s\nwant %s\nwhole message:\n%s", first, c.want, msg)
	}
	for _, m := range c.more {
		if !strings.Contains(msg, m+"\n") && !strings.HasSuffix(msg, m) {
			t.Errorf("message lacks %q:\n%s", m, msg)
		}
	}
}

// TestOverrideErrors checks errors met while applying overrides: they name
// the override's position.
func TestOverrideErrors(t *testing.T) {
	cases := []errorCase{
		{file: "override_key.star", want: `override_key.star:4:9: override("libcufile"), CUDA 12.2.2: unknown change key "unusabel": expected one of add_deps, add_files, drop_deps, pin, unusable`},
		{file: "override_dep.star", want: `override_dep.star:4:9: override("libcufile"), CUDA 12.2.2: add_deps: no package libnothere in the CUDA 12.2.2 set`},
		{file: "override_path.star", want: `override_path.star:4:9: override("libcufile"), CUDA 12.2.2: add_files["linux-x86_64"][0]: path "../etc/passwd" escapes the archive`},
		{file: "override_missing.star", want: `override_missing.star:1:9: override("libnothere"): no package libnothere in CUDA 12.2.2`},
		{file: "override_eval.star", want: "override_eval.star:2:43: struct has no .nosuchfield attribute",
			more: []string{"  override_eval.star:2:43: in f", `note: override("libcufile") declared at override_eval.star:4:9, CUDA 12.2.2`}},
	}
	_, sets := builtintest.Env().Sets(t, []string{"12.2.2"}, []string{"linux-x86_64", "linux-sbsa"})
	in := interp(t, "testdata/errors")
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f, err := in.EvalConfig(context.Background(), filepath.Join("testdata/errors", c.file))
			if err != nil {
				t.Fatal(FormatError(err))
			}
			before, _ := ToJSON(mustQuery(t, in, sets))
			_, err = f.ApplyOverrides(context.Background(), sets, nil)
			if err == nil {
				t.Fatal("no error")
			}
			checkError(t, err, c)
			if after, _ := ToJSON(mustQuery(t, in, sets)); string(after) != string(before) {
				t.Error("a failed ApplyOverrides changed the sets")
			}
		})
	}
}

func mustQuery(t *testing.T, in *Interp, sets []*pkgset.Set) sl.Value {
	t.Helper()
	v, err := Query(context.Background(), in, `cuda.packages()`, sets)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	return v
}

// TestExplain: config.Evaluate blames its refusals on the file's positions.
func TestExplain(t *testing.T) {
	dir := t.TempDir()
	src := "cuda_versions([\"12.2.2\"])\npin(\"cudnn\", \"8.9\")\npin(\"cudnn\", \"7.1\", cuda = \"12.2\")\n"
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := interp(t, dir).EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	if err != nil {
		t.Fatal(FormatError(err))
	}
	_, avail := collection(t)
	_, err = config.Evaluate(avail, config.Defaults{}, f)
	if err == nil {
		t.Fatal("cuDNN 7.1 accepted")
	}
	var oe *config.OptionError
	if !errors.As(err, &oe) || oe.Pos != "cudapkgs.star:3:4" || oe.Layer != f.Name() {
		t.Errorf("error %v: not blamed on the pin's line (%+v)", err, oe)
	}
	if want := `cudapkgs.star:3:4: pin: "cudnn@12.2=7.1": no cudnn release 7.1`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %s\nwant %s...", err, want)
	}
}

// TestBudgetShared checks that the budget is one for the run: modules that
// each fit in it alone fail together.
func TestBudgetShared(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loop := "def f():\n    n = 0\n    for i in range(20000):\n        n += i\n    return n\nX = f()\n"
	write("a.star", loop)
	write("b.star", loop)
	write("c.star", loop)
	write("cudapkgs.star", "load(\"a.star\", A = \"X\")\nload(\"b.star\", B = \"X\")\nload(\"c.star\", C = \"X\")\n")
	in := interp(t, dir)
	in.MaxSteps = 250000 // one module takes about 100k steps
	_, err := in.EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	if err == nil || !strings.Contains(FormatError(err), "step budget exhausted") {
		t.Fatalf("three modules ran on a budget for two: %v", err)
	}
	in.MaxSteps = 1000000
	if _, err := in.EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star")); err != nil {
		t.Fatal(FormatError(err))
	}
}

// TestCancel checks that cancelling the context stops a loop in a loaded
// module.
func TestCancel(t *testing.T) {
	in := interp(t, "testdata/errors")
	in.MaxSteps = 1 << 62
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := in.EvalConfig(ctx, "testdata/errors/budget.star")
	if err == nil {
		t.Fatal("no error")
	}
	if msg := FormatError(err); !strings.HasPrefix(msg, "sub/loop.star:") || !strings.Contains(msg, ": Starlark computation cancelled: context deadline exceeded\n") {
		t.Errorf("got %s", msg)
	}
}

// TestLoadCache checks that a module loaded twice runs once.
func TestLoadCache(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib/common.star", "override(\"libcufile\", lambda pkg: None)\nV = 1\n")
	write("lib/a.star", "load(\":common.star\", \"V\")\nA = V\n")
	write("cudapkgs.star", "load(\"//lib:a.star\", \"A\")\nload(\"lib/common.star\", \"V\")\n")
	f, err := interp(t, dir).EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	if err != nil {
		t.Fatal(FormatError(err))
	}
	if got := strings.Join(f.Modules, " "); got != "cudapkgs.star lib/a.star lib/common.star" {
		t.Errorf("modules %q", got)
	}
	if len(f.Overrides()) != 1 {
		t.Errorf("overrides %q: the common module ran more than once", f.Overrides())
	}
}

// TestDeterminism evaluates and queries twice and compares the bytes.
func TestDeterminism(t *testing.T) {
	var outs []string
	for range 2 {
		in := interp(t, "testdata/ws")
		f, err := in.EvalConfig(context.Background(), "testdata/ws/cudapkgs.star")
		if err != nil {
			t.Fatal(FormatError(err))
		}
		_, sets := build(t, f)
		applied, err := f.ApplyOverrides(context.Background(), sets, nil)
		if err != nil {
			t.Fatal(FormatError(err))
		}
		sets = applied
		v, err := Query(context.Background(), in, `[cuda.packages(), cuda.gpus(), cuda.gencode(["8.0", "9.0a"], forward_compat = True)]`, sets)
		if err != nil {
			t.Fatal(FormatError(err))
		}
		j, err := ToJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(j))
	}
	if outs[0] != outs[1] {
		t.Error("two runs on the same inputs gave different JSON")
	}
}

func TestQueries(t *testing.T) {
	_, sets := builtintest.Env().Sets(t, []string{"12.2.2", "12.4.1"}, []string{"linux-x86_64", "linux-sbsa"})
	in := interp(t, "testdata/ws")
	for _, c := range []struct{ expr, want string }{
		{`cuda.versions()`, "[\n  \"12.2.2\",\n  \"12.4.1\"\n]\n"},
		{`cuda.gencode(["8.0", "9.0a"], forward_compat = True)`, "[\n  \"-gencode=arch=compute_80,code=sm_80\",\n  \"-gencode=arch=compute_90a,code=sm_90a\",\n  \"-gencode=arch=compute_80,code=compute_80\"\n]\n"},
		{`[g.arch for g in cuda.gpus() if g.capability == "9.0"]`, "[\n  \"Hopper\"\n]\n"},
		{`len(cuda.packages(cuda = "12.4")) > 0 and all([p.cuda == "12.4.1" for p in cuda.packages(cuda = "12.4")])`, "true\n"},
		{`cuda.package("nope", cuda = "12.2")`, "null\n"},
		{`{"b": 1, "a": set([2, 1]), "c": (None, 1.5)}`, "{\n  \"a\": [\n    2,\n    1\n  ],\n  \"b\": 1,\n  \"c\": [\n    null,\n    1.5\n  ]\n}\n"},
	} {
		v, err := Query(context.Background(), in, c.expr, sets)
		if err != nil {
			t.Errorf("%s: %s", c.expr, FormatError(err))
			continue
		}
		j, err := ToJSON(v)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if string(j) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.expr, j, c.want)
		}
	}
	for _, c := range []struct{ expr, want string }{
		{`cuda.package("libcufile")`, "<expr>:1:13: cuda.package: libcufile is in several CUDA versions (12.2.2, 12.4.1): say which with cuda = "},
		{`cuda.packages(cuda = "11.8")`, "<expr>:1:14: cuda.packages: no package set for CUDA 11.8: expected one of 12.2.2, 12.4.1"},
		{`cuda.packages(platform = "linux-mips")`, "<expr>:1:14: cuda.packages: "},
		{`pin("cudnn", "8.9")`, "<expr>:1:4: pin: configuration builtins are only available while a configuration file is evaluated"},
	} {
		_, err := Query(context.Background(), in, c.expr, sets)
		if err == nil {
			t.Errorf("%s: no error", c.expr)
			continue
		}
		checkError(t, err, errorCase{want: c.want})
	}
	if _, err := ToJSON(cudaModule.Members["versions"]); err == nil || !strings.Contains(err.Error(), "result: a builtin_function_or_method has no JSON form") {
		t.Errorf("ToJSON(builtin): %v", err)
	}
}

// TestConfigNoSets checks that the cuda module's set queries explain
// themselves in a configuration file, while the GPU table works there.
func TestConfigNoSets(t *testing.T) {
	dir := t.TempDir()
	src := "capabilities([g.capability for g in cuda.gpus() if g.arch == \"Hopper\" and not g.jetson][:1])\nX = cuda.versions()\n"
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := interp(t, dir).EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	checkError(t, err, errorCase{want: "cudapkgs.star:2:18: cuda.versions: the package sets are not built while the configuration is evaluated"})
}

// BenchmarkEvalConfig evaluates the workspace's configuration (a file that
// loads a policy that loads another module). It must stay far under 10 ms.
func BenchmarkEvalConfig(b *testing.B) {
	in := interp(b, "testdata/ws")
	ctx := context.Background()
	for b.Loop() {
		if _, err := in.EvalConfig(ctx, "testdata/ws/cudapkgs.star"); err != nil {
			b.Fatal(FormatError(err))
		}
	}
}

// TestCookbook runs the documentation's cookbook examples.
func TestCookbook(t *testing.T) {
	dir := t.TempDir()
	src := `
cuda_versions(["12.2.2", "12.6"])
pin("cudnn", "8.9", cuda = "12.2")
target_platforms(["linux-x86_64", "linux-sbsa"])
override("libcufile", lambda pkg: {"unusable": {"linux-sbsa": "no GDS on our Grace nodes"}})
override("libcublas", lambda pkg: {"add_files": {"linux-x86_64": [
    {"path": "lib/libcublasLt_site.so.12", "kind": "shared_lib", "role": "target", "soname": "libcublasLt_site.so.12"},
]}})
CAPS = ["8.0", "9.0"]
capabilities(CAPS)
[fail("capability %s is missing" % c) for c in ["8.0", "9.0"] if c not in CAPS]
`
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in := interp(t, dir)
	f, err := in.EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	if err != nil {
		t.Fatal(FormatError(err))
	}
	_, sets := build(t, f)
	applied, err := f.ApplyOverrides(context.Background(), sets, nil)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	sets = applied
	v, err := Query(context.Background(), in, `[(p.cuda, p.release) for p in cuda.packages() if p.name == "cudnn"]`, sets)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	j, _ := ToJSON(v)
	if !strings.Contains(string(j), "\"12.2.2\",\n    \"8.9.") || strings.Contains(string(j), "\"12.6.3\",\n    \"8.9.") {
		t.Errorf("cudnn releases:\n%s", j)
	}
	for _, s := range sets {
		if fs := find(s, "libcublas").Files["linux-x86_64"]; len(fs) != 1 {
			t.Errorf("CUDA %s: libcublas files %+v", s.CUDA, fs)
		}
	}
}

// An override can pin a package to another release the set holds under a
// versioned name.
func TestOverridePin(t *testing.T) {
	_, sets := builtintest.Env().Sets(t, []string{"12.4.1"}, []string{"linux-x86_64"})
	dir := t.TempDir()
	src := "override(\"cudnn\", lambda pkg: {\"pin\": \"8.9\"})\n"
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := NewInterp(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := in.EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	if err != nil {
		t.Fatal(FormatError(err))
	}
	applied, err := f.ApplyOverrides(context.Background(), sets, nil)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	sets = applied
	p, _ := sets[0].Package("cudnn")
	if p.Name != "cudnn" || p.Version.String() != "8.9.7.29" {
		t.Errorf("cudnn after pin = %s %s", p.Name, p.Version)
	}

	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte("override(\"cudnn\", lambda pkg: {\"pin\": \"7.6\"})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = in.EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	if err != nil {
		t.Fatal(FormatError(err))
	}
	_, err = f.ApplyOverrides(context.Background(), sets, nil)
	if err == nil || !strings.Contains(err.Error(), "cudapkgs.star:1:9: override(\"cudnn\"), CUDA 12.4.1: pin: no cudnn release 7.6 in the CUDA 12.4.1 set (it has 8.8.1 (cudnn_8_8), 8.9.7 (cudnn") {
		t.Errorf("error = %v", err)
	}
}

// applyOverrides evaluates src as a workspace's cudapkgs.star and applies its
// overrides to sets.
func applyOverrides(t *testing.T, src string, sets []*pkgset.Set) []*pkgset.Set {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := NewInterp(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := in.EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	if err != nil {
		t.Fatal(FormatError(err))
	}
	applied, err := f.ApplyOverrides(context.Background(), sets, nil)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	return applied
}

// A pin to the default's own release is that release everywhere, even where
// the default was served by an older one (pkgset.ChooseDefaults).
func TestOverridePinOwnRelease(t *testing.T) {
	_, sets := builtintest.Env().Sets(t, []string{"12.4.1"}, []string{"linux-x86_64"})
	def, _ := sets[0].Package("cudnn")
	own, ok := sets[0].Package("cudnn_" + def.Release.Underscored(2))
	if !ok {
		t.Fatalf("no versioned name for cudnn %s", def.Release)
	}
	def.Served = map[string]pkgset.Served{"linux-x86_64": {Name: "cudnn_9_7", Release: version.MustParse("9.7.1")}}
	sets = applyOverrides(t, "override(\"cudnn\", lambda pkg: {\"pin\": \""+def.Release.MajorMinor().String()+"\"})\n", sets)
	p, _ := sets[0].Package("cudnn")
	if p.Served != nil || !p.Version.Equal(own.Version) {
		t.Errorf("cudnn pinned to its own release: version %s, served by %v; want %s everywhere", p.Version, p.Served, own.Version)
	}
}

// override_set sees a whole set and changes several packages at once, in
// declaration order with the per-package overrides.
func TestOverrideSet(t *testing.T) {
	_, sets := builtintest.Env().Sets(t, []string{"12.2.2", "12.4.1"}, []string{"linux-x86_64", "linux-sbsa"})
	dir := t.TempDir()
	src := `
def no_sbsa_profilers(s):
    return {name: {"unusable": {"linux-sbsa": "site: no profilers on Grace"}}
            for name in s.packages if name.startswith("nsight")}

override_set(no_sbsa_profilers, cuda = "12.4")
override("nsight_compute", lambda pkg: {"add_deps": ["cuda_cupti"]}, cuda = "12.4")
`
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := NewInterp(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := in.EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	if err != nil {
		t.Fatal(FormatError(err))
	}
	if got := strings.Join(f.Overrides(), "; "); got != "cudapkgs.star:6:13: (whole set) (CUDA 12.4); cudapkgs.star:7:9: nsight_compute (CUDA 12.4)" {
		t.Errorf("Overrides() = %s", got)
	}
	applied, err := f.ApplyOverrides(context.Background(), sets, nil)
	if err != nil {
		t.Fatal(FormatError(err))
	}
	sets = applied
	p122, _ := sets[0].Package("nsight_compute")
	p124, _ := sets[1].Package("nsight_compute")
	if len(p122.Unavailable["linux-sbsa"]) != 0 {
		t.Errorf("12.2.2 changed: %v", p122.Unavailable)
	}
	if r := p124.Unavailable["linux-sbsa"]; len(r) == 0 || r[len(r)-1] != "site: no profilers on Grace" {
		t.Errorf("12.4.1 nsight_compute reasons = %v", r)
	}
	if len(p124.Deps) != 1 || p124.Deps[0].Name != "cuda_cupti" {
		t.Errorf("deps = %+v", p124.Deps)
	}

	bad := "override_set(lambda s: {\"no_such\": {\"unusable\": {\"linux-sbsa\": \"x\"}}})\n"
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = in.EvalConfig(context.Background(), filepath.Join(dir, "cudapkgs.star"))
	if err != nil {
		t.Fatal(FormatError(err))
	}
	if _, err := f.ApplyOverrides(context.Background(), sets, nil); err == nil || !strings.Contains(err.Error(), "cudapkgs.star:1:13: override_set, CUDA 12.2.2: no package no_such in the set") {
		t.Errorf("error = %v", err)
	}
}

// TestEveryOptionHasItsBuiltin holds the Starlark builtins to config.Table:
// each option's example calls its builtin, sets that option, and records
// where.
func TestEveryOptionHasItsBuiltin(t *testing.T) {
	for _, opt := range config.Table() {
		t.Run(opt.Name, func(t *testing.T) {
			if _, ok := predeclared()[opt.Builtin]; !ok {
				t.Fatalf("option %s: no builtin %s()", opt.Name, opt.Builtin)
			}
			call := opt.Example
			if !strings.HasPrefix(call, opt.Builtin+"(") {
				t.Fatalf("option %s: example %q does not call %s()", opt.Name, call, opt.Builtin)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, DefaultConfigFile)
			if err := os.WriteFile(path, []byte(call+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := interp(t, dir).EvalConfig(context.Background(), path)
			if err != nil {
				t.Fatal(FormatError(err))
			}
			m, err := config.Merge(config.Defaults{}, f)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.SetByAll()[opt.Name]; got != f.Name() {
				t.Errorf("%s set option %s by %q, want the file", call, opt.Name, got)
			}
			if f.Position(opt.Name) == "" {
				t.Errorf("%s: no position recorded for option %s", call, opt.Name)
			}
		})
	}
}
