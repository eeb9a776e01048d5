package starlark

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	sl "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// cudaModule is the read-only view of the package sets and of the GPU table.
var cudaModule = &starlarkstruct.Module{Name: "cuda", Members: sl.StringDict{
	"versions": sl.NewBuiltin("cuda.versions", builtinVersions),
	"packages": sl.NewBuiltin("cuda.packages", builtinPackages),
	"package":  sl.NewBuiltin("cuda.package", builtinPackage),
	"gpus":     sl.NewBuiltin("cuda.gpus", builtinGPUs),
	"gencode":  sl.NewBuiltin("cuda.gencode", builtinGencode),
}}

// Query evaluates one Starlark expression over the sets, in a run of its
// own. The expression sees the cuda module, struct and the Starlark
// universe; it cannot load files.
func Query(ctx context.Context, in *Interp, expr string, sets []*pkgset.Set) (sl.Value, error) {
	r := in.newRun(ctx, nil, sets)
	defer r.close()
	th := r.thread("<expr>")
	defer r.done(th)
	if err := checkDigits("<expr>", []byte(expr)); err != nil {
		return nil, err
	}
	e, err := fileOptions.ParseExpr("<expr>", expr, 0)
	if err != nil {
		return nil, err
	}
	g := &guardSyntax{}
	e = g.expr(e)
	if g.err != nil {
		return nil, g.err
	}
	return sl.EvalExprOptions(fileOptions, th, e, predeclared())
}

// Run executes a script over the sets, in a run of its own, and returns its
// result: what main() returns when the script defines a function main, else
// the value of its global result. A script sees what a configuration file
// sees (configuration builtins and override() have no effect there) and may
// load() modules of the workspace.
func Run(ctx context.Context, in *Interp, file string, sets []*pkgset.Set) (sl.Value, error) {
	name, err := in.moduleName(file)
	if err != nil {
		return nil, err
	}
	scratch := &File{path: name, interp: in, pos: map[string]string{}}
	r := in.newRun(ctx, scratch, sets)
	defer r.close()
	globals, err := r.evalTop(file)
	if err != nil {
		return nil, err
	}
	if main, ok := globals["main"]; ok {
		fn, ok := main.(sl.Callable)
		if !ok {
			return nil, fmt.Errorf("%s: main is a %s, not a function", name, main.Type())
		}
		th := r.thread(name)
		defer r.done(th)
		return sl.Call(th, fn, nil, nil)
	}
	if v, ok := globals["result"]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("%s: the script defines neither main() nor result: define one of them to say what it prints", name)
}

// runSets is the sets a thread's run reads, or an error where there are none.
func runSets(th *sl.Thread, b *sl.Builtin) ([]*pkgset.Set, error) {
	r, _ := th.Local(localRun).(*run)
	if r == nil || r.sets == nil {
		return nil, fmt.Errorf("%s: the package sets are not built while the configuration is evaluated: call it in an override function, a query or a script", b.Name())
	}
	return r.sets, nil
}

// selectSets returns the sets whose CUDA version starts with prefix (all
// when it is empty), or an error listing the versions there are.
func selectSets(b *sl.Builtin, sets []*pkgset.Set, prefix string) ([]*pkgset.Set, error) {
	if prefix == "" {
		return sets, nil
	}
	want, err := version.Parse(prefix)
	if err != nil {
		return nil, fmt.Errorf("%s: cuda: %w", b.Name(), err)
	}
	var out []*pkgset.Set
	var have []string
	for _, s := range sets {
		have = append(have, s.CUDA.String())
		if s.CUDA.HasPrefix(want) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no package set for CUDA %s: expected one of %s", b.Name(), prefix, strings.Join(have, ", "))
	}
	return out, nil
}

func builtinVersions(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	if err := sl.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	sets, err := runSets(th, b)
	if err != nil {
		return nil, err
	}
	var out []sl.Value
	for _, s := range sets {
		out = append(out, sl.String(s.CUDA.String()))
	}
	return sl.NewList(out), nil
}

func builtinPackages(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var cuda, plat string
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "cuda?", &cuda, "platform?", &plat); err != nil {
		return nil, err
	}
	if plat != "" {
		if err := checkPlatform(plat); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
	}
	all, err := runSets(th, b)
	if err != nil {
		return nil, err
	}
	sets, err := selectSets(b, all, cuda)
	if err != nil {
		return nil, err
	}
	out := []sl.Value{}
	for _, s := range sets {
		for _, p := range s.Packages {
			if plat != "" {
				_, has := p.Platforms[plat]
				if !has && len(p.Unavailable[plat]) == 0 {
					continue
				}
			}
			out = append(out, packageValue(s, p))
		}
	}
	return sl.NewList(out), nil
}

func builtinPackage(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var name, cuda string
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "name", &name, "cuda?", &cuda); err != nil {
		return nil, err
	}
	all, err := runSets(th, b)
	if err != nil {
		return nil, err
	}
	sets, err := selectSets(b, all, cuda)
	if err != nil {
		return nil, err
	}
	var found []sl.Value
	var in []string
	for _, s := range sets {
		if p := find(s, name); p != nil {
			found = append(found, packageValue(s, p))
			in = append(in, s.CUDA.String())
		}
	}
	switch len(found) {
	case 0:
		return sl.None, nil
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%s: %s is in several CUDA versions (%s): say which with cuda = ", b.Name(), name, strings.Join(in, ", "))
}

func find(s *pkgset.Set, name string) *pkgset.Package {
	i := sort.Search(len(s.Packages), func(i int) bool { return s.Packages[i].Name >= name })
	if i < len(s.Packages) && s.Packages[i].Name == name {
		return s.Packages[i]
	}
	for _, p := range s.Packages { // not sorted (an override added one)
		if p.Name == name {
			return p
		}
	}
	return nil
}

func builtinGPUs(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	if err := sl.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	var out []sl.Value
	for _, c := range gpu.Capabilities() {
		out = append(out, newStruct(sl.StringDict{
			"capability": sl.String(c.Name),
			"arch":       sl.String(c.Arch),
			"jetson":     sl.Bool(c.Jetson),
			"min_cuda":   sl.String(c.MinCUDA.String()),
			"max_cuda":   optString(c.MaxCUDA),
		}))
	}
	return sl.NewList(out), nil
}

func optString(v version.Version) sl.Value {
	if v.IsZero() {
		return sl.None
	}
	return sl.String(v.String())
}

func builtinGencode(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var v sl.Value
	var fc bool
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "capabilities", &v, "forward_compat?", &fc); err != nil {
		return nil, err
	}
	names, err := stringList(b, "capabilities", v)
	if err != nil {
		return nil, err
	}
	var caps []gpu.Capability
	for _, n := range names {
		c, err := gpu.Lookup(n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		caps = append(caps, c)
	}
	var out []sl.Value
	for _, g := range gpu.Gencode(caps, fc) {
		out = append(out, sl.String(g))
	}
	return sl.NewList(out), nil
}

var structCtor = sl.String("struct")

func newStruct(d sl.StringDict) *starlarkstruct.Struct {
	s := starlarkstruct.FromStringDict(structCtor, d)
	s.Freeze()
	return s
}

func stringsValue(ss []string) *sl.List {
	vs := make([]sl.Value, len(ss))
	for i, s := range ss {
		vs[i] = sl.String(s)
	}
	return sl.NewList(vs)
}

// packageValue is a package as Starlark sees it: a frozen struct.
func packageValue(s *pkgset.Set, p *pkgset.Package) *starlarkstruct.Struct {
	platforms := sl.NewDict(len(p.Platforms))
	for _, k := range slices.Sorted(maps.Keys(p.Platforms)) {
		a := p.Platforms[k]
		url := sl.Value(sl.None)
		if len(a.URLs) > 0 {
			url = sl.String(a.URLs[0])
		}
		_ = platforms.SetKey(sl.String(k), newStruct(sl.StringDict{
			"url":     url,
			"urls":    stringsValue(a.URLs),
			"sha256":  sl.String(a.SHA256),
			"variant": sl.String(a.Variant),
			"key":     sl.String(a.Key),
		}))
	}
	unavailable := sl.NewDict(len(p.Unavailable))
	for _, k := range slices.Sorted(maps.Keys(p.Unavailable)) {
		_ = unavailable.SetKey(sl.String(k), stringsValue(p.Unavailable[k]))
	}
	files := sl.NewDict(len(p.Files))
	for _, k := range slices.Sorted(maps.Keys(p.Files)) {
		var fs []sl.Value
		for _, f := range p.Files[k] {
			fs = append(fs, newStruct(sl.StringDict{
				"path":   sl.String(f.Path),
				"kind":   sl.String(f.Kind),
				"role":   sl.String(f.Role),
				"soname": sl.String(f.SONAME),
			}))
		}
		_ = files.SetKey(sl.String(k), sl.NewList(fs))
	}
	deps := make([]string, 0, len(p.Deps))
	for _, d := range p.Deps {
		deps = append(deps, d.Name)
	}
	servedBy := sl.NewDict(len(p.Served))
	for _, k := range slices.Sorted(maps.Keys(p.Served)) {
		_ = servedBy.SetKey(sl.String(k), sl.String(p.Served[k].Name))
	}
	return newStruct(sl.StringDict{
		"generic":     stringsValue(slices.Sorted(maps.Keys(p.Generic))),
		"served_by":   servedBy,
		"name":        sl.String(p.Name),
		"product":     sl.String(p.Product),
		"manifest":    sl.String(p.Manifest),
		"version":     sl.String(p.Version.String()),
		"release":     sl.String(p.Release.String()),
		"license":     sl.String(p.License),
		"role":        sl.String(p.Role),
		"cuda":        sl.String(s.CUDA.String()),
		"platforms":   platforms,
		"unavailable": unavailable,
		"deps":        stringsValue(deps),
		"files":       files,
	})
}
