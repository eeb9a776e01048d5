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

	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// override is one override() call: a function from a package's previous
// value to its changes.
type override struct {
	name string // "" for a whole-set override
	set  bool
	cuda version.Version // zero: every CUDA version
	fn   sl.Callable
	pos  string
}

// changeKeys are the keys a change dict may have.
var changeKeys = []string{"add_deps", "add_files", "drop_deps", "pin", "unusable"}

func builtinOverride(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var name, cuda string
	var fn sl.Callable
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "package", &name, "fn", &fn, "cuda?", &cuda); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("%s: an empty package name", b.Name())
	}
	o := &override{name: name, fn: fn}
	if cuda != "" {
		v, err := version.Parse(cuda)
		if err != nil {
			return nil, fmt.Errorf("%s: cuda: %w", b.Name(), err)
		}
		o.cuda = v
	}
	f, pos, err := recorder(th, b)
	if err != nil {
		return nil, err
	}
	o.pos = pos
	f.overrides = append(f.overrides, o)
	return sl.None, nil
}

// builtinOverrideSet is override_set(fn, cuda = ""): fn(set) receives a
// whole set (struct(cuda, releases, packages = {name: package})) and returns
// None or {package name: change dict}, each applied as override()'s are.
func builtinOverrideSet(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var cuda string
	var fn sl.Callable
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "fn", &fn, "cuda?", &cuda); err != nil {
		return nil, err
	}
	o := &override{set: true, fn: fn}
	if cuda != "" {
		v, err := version.Parse(cuda)
		if err != nil {
			return nil, fmt.Errorf("%s: cuda: %w", b.Name(), err)
		}
		o.cuda = v
	}
	f, pos, err := recorder(th, b)
	if err != nil {
		return nil, err
	}
	o.pos = pos
	f.overrides = append(f.overrides, o)
	return sl.None, nil
}

// setValue is a set as an override_set function sees it.
func setValue(s *pkgset.Set) *starlarkstruct.Struct {
	pkgs := sl.NewDict(len(s.Packages))
	for _, p := range s.Packages {
		_ = pkgs.SetKey(sl.String(p.Name), packageValue(s, p))
	}
	releases := sl.NewDict(len(s.Releases))
	for _, k := range slices.Sorted(maps.Keys(s.Releases)) {
		_ = releases.SetKey(sl.String(k), sl.String(s.Releases[k].String()))
	}
	pkgs.Freeze()
	releases.Freeze()
	return starlarkstruct.FromStringDict(starlarkstruct.Default, sl.StringDict{
		"cuda": sl.String(s.CUDA.String()), "releases": releases, "packages": pkgs})
}

// applySetOverride runs one override_set function on one set.
func applySetOverride(th *sl.Thread, o *override, s *pkgset.Set) error {
	where := fmt.Sprintf("override_set declared at %s, CUDA %s", o.pos, s.CUDA)
	v, err := sl.Call(th, o.fn, sl.Tuple{setValue(s)}, nil)
	if err != nil {
		return &contextError{where, err}
	}
	if v == sl.None {
		return nil
	}
	d, ok := v.(*sl.Dict)
	if !ok {
		return fmt.Errorf("%s: override_set, CUDA %s: the function returned %s: expected None or a dict {package name: change dict}", o.pos, s.CUDA, v.Type())
	}
	names, err := dictKeys(d, "override_set result")
	if err != nil {
		return fmt.Errorf("%s: override_set, CUDA %s: %w", o.pos, s.CUDA, err)
	}
	for _, name := range names {
		i := slices.IndexFunc(s.Packages, func(p *pkgset.Package) bool { return p.Name == name })
		if i < 0 {
			return fmt.Errorf("%s: override_set, CUDA %s: no package %s in the set", o.pos, s.CUDA, name)
		}
		change, _, _ := d.Get(sl.String(name))
		if change == sl.None {
			continue
		}
		p := s.Packages[i].Clone()
		if err := applyChange(s, p, change); err != nil {
			return fmt.Errorf("%s: override_set, CUDA %s, package %s: %w", o.pos, s.CUDA, name, err)
		}
		s.Packages[i] = p
	}
	return nil
}

// ApplyOverrides applies the file's overrides to the sets, in declaration
// order (modules in load order, calls in the order they ran), in one run.
// Each function receives the package as the previous overrides left it; its
// cuda module reads the sets as changed so far. It returns new sets and
// changes neither the sets nor the packages it is given: a changed package is
// a changed copy in the new set's list.
//
// sets may be a few of the CUDA versions (--cuda narrows them): an override
// whose package is in none of the sets it applies to is an error only when
// elsewhere, when given, says the package is in no other set either (a
// typo), so one configuration serves every selection of versions.
func (f *File) ApplyOverrides(ctx context.Context, sets []*pkgset.Set, elsewhere func(pkg string) bool) ([]*pkgset.Set, error) {
	if len(f.overrides) == 0 {
		return sets, nil
	}
	work := make([]*pkgset.Set, len(sets))
	for i, s := range sets {
		c := *s
		c.Packages = slices.Clone(s.Packages)
		work[i] = &c
	}
	r := f.interp.newRun(ctx, nil, work)
	defer r.close()
	th := r.thread(f.path)
	defer r.done(th)
	for _, o := range f.overrides {
		if o.set {
			for _, s := range work {
				if o.cuda.IsZero() || s.CUDA.HasPrefix(o.cuda) {
					if err := applySetOverride(th, o, s); err != nil {
						return nil, err
					}
				}
			}
			continue
		}
		matched := false
		var versions []string
		for _, s := range work {
			versions = append(versions, s.CUDA.String())
			if !o.cuda.IsZero() && !s.CUDA.HasPrefix(o.cuda) {
				continue
			}
			i := slices.IndexFunc(s.Packages, func(p *pkgset.Package) bool { return p.Name == o.name })
			if i < 0 {
				continue
			}
			matched = true
			where := fmt.Sprintf("override(%q) declared at %s, CUDA %s", o.name, o.pos, s.CUDA)
			v, err := sl.Call(th, o.fn, sl.Tuple{packageValue(s, s.Packages[i])}, nil)
			if err != nil {
				return nil, &contextError{where, err}
			}
			if v == sl.None {
				continue
			}
			p := s.Packages[i].Clone()
			if err := applyChange(s, p, v); err != nil {
				return nil, fmt.Errorf("%s: override(%q), CUDA %s: %w", o.pos, o.name, s.CUDA, err)
			}
			s.Packages[i] = p
		}
		if !matched && (elsewhere == nil || !elsewhere(o.name)) {
			scope := strings.Join(versions, ", ")
			if !o.cuda.IsZero() {
				scope = o.cuda.String() + " (of " + scope + ")"
			}
			if elsewhere != nil {
				scope += ", nor in any release of the manifests"
			}
			return nil, fmt.Errorf("%s: override(%q): no package %s in CUDA %s", o.pos, o.name, o.name, scope)
		}
	}
	return work, nil
}

// changePin points a package at another release of the same manifest
// package that the set holds under a versioned name: {"pin": "8.9"} makes
// cudnn what cudnn_8_9 is (files, deps and reasons included), keeping its
// name. Releases the set does not hold are an error that lists those it does.
func changePin(s *pkgset.Set, p *pkgset.Package, v sl.Value) error {
	str, ok := sl.AsString(v)
	if !ok {
		return fmt.Errorf("pin: got %s, want a release prefix string such as \"8.9\"", v.Type())
	}
	want, err := version.Parse(str)
	if err != nil {
		return fmt.Errorf("pin: %v", err)
	}
	var best *pkgset.Package
	var have []string
	for _, q := range s.Packages {
		if q.Manifest != p.Manifest || q.Product != p.Product || q.Release.IsZero() {
			continue
		}
		have = append(have, q.Release.String()+" ("+q.Name+")")
		// At equal releases the versioned name wins: it is that release
		// everywhere, while the default may be served by another release on
		// some platforms (pkgset.ChooseDefaults).
		if q.Release.HasPrefix(want) && (best == nil || best.Release.Less(q.Release) ||
			(best.Release.Equal(q.Release) && best.Name == best.Manifest && q.Name != q.Manifest)) {
			best = q
		}
	}
	if best == nil {
		sort.Strings(have)
		return fmt.Errorf("pin: no %s release %s in the CUDA %s set (it has %s)", p.Manifest, str, s.CUDA, strings.Join(have, ", "))
	}
	name := p.Name
	*p = *best.Clone()
	p.Name = name
	return nil
}

// applyChange applies a change dict, checking every key and value.
func applyChange(s *pkgset.Set, p *pkgset.Package, v sl.Value) error {
	d, ok := v.(*sl.Dict)
	if !ok {
		return fmt.Errorf("the function returned %s: expected None or a dict with keys %s", v.Type(), strings.Join(changeKeys, ", "))
	}
	keys, err := dictKeys(d, "change")
	if err != nil {
		return err
	}
	// A fixed order, whatever the dict's: drops before adds.
	sort.Slice(keys, func(i, j int) bool { return changeOrder(keys[i]) < changeOrder(keys[j]) })
	for _, k := range keys {
		val, _, _ := d.Get(sl.String(k))
		var err error
		switch k {
		case "pin":
			err = changePin(s, p, val)
		case "unusable":
			err = changeUnusable(p, val)
		case "drop_deps":
			err = changeDropDeps(s, p, val)
		case "add_deps":
			err = changeAddDeps(s, p, val)
		case "add_files":
			err = changeAddFiles(p, val)
		default:
			err = fmt.Errorf("unknown change key %q: expected one of %s", k, strings.Join(changeKeys, ", "))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func changeOrder(k string) int {
	switch k {
	case "pin": // first: the other changes apply to the pinned release
		return 0
	case "drop_deps":
		return 1
	case "add_deps":
		return 2
	case "add_files":
		return 3
	case "unusable":
		return 4
	}
	return -1 // unknown keys first, so they are reported before anything else
}

func dictKeys(d *sl.Dict, what string) ([]string, error) {
	var keys []string
	for _, k := range d.Keys() {
		s, ok := sl.AsString(k)
		if !ok {
			return nil, fmt.Errorf("%s key %s is %s: expected a string", what, k, k.Type())
		}
		keys = append(keys, s)
	}
	return keys, nil
}

func names(key string, v sl.Value) ([]string, error) {
	it, ok := v.(sl.Indexable)
	if _, str := v.(sl.String); !ok || str {
		return nil, fmt.Errorf("%s: got %s, expected a list of package names", key, v.Type())
	}
	var out []string
	for i := 0; i < it.Len(); i++ {
		s, ok := sl.AsString(it.Index(i))
		if !ok {
			return nil, fmt.Errorf("%s: element %d is %s, expected a package name", key, i, it.Index(i).Type())
		}
		out = append(out, s)
	}
	return out, nil
}

func platformKey(key string, k string) (string, error) {
	pl, err := platform.Parse(k)
	if err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	return pl.Name(), nil
}

func changeUnusable(p *pkgset.Package, v sl.Value) error {
	d, ok := v.(*sl.Dict)
	if !ok {
		return fmt.Errorf("unusable: got %s, expected a dict from platform to reason", v.Type())
	}
	keys, err := dictKeys(d, "unusable")
	if err != nil {
		return err
	}
	for _, k := range keys {
		val, _, _ := d.Get(sl.String(k))
		plat, err := platformKey("unusable", k)
		if err != nil {
			return err
		}
		var reasons []string
		if s, ok := sl.AsString(val); ok {
			reasons = []string{s}
		} else if reasons, err = names("unusable["+k+"]", val); err != nil {
			return fmt.Errorf("unusable[%q]: got %s, expected a reason (a string or a list of strings)", k, val.Type())
		}
		for _, r := range reasons {
			if strings.TrimSpace(r) == "" {
				return fmt.Errorf("unusable[%q]: an empty reason: say why the package cannot be used there", k)
			}
			if p.Unavailable == nil {
				p.Unavailable = map[string][]string{}
			}
			if !slices.Contains(p.Unavailable[plat], r) {
				p.Unavailable[plat] = append(p.Unavailable[plat], r)
			}
		}
	}
	return nil
}

func checkDep(s *pkgset.Set, p *pkgset.Package, key, name string) error {
	if name == p.Name {
		return fmt.Errorf("%s: %s cannot depend on itself", key, name)
	}
	if find(s, name) == nil {
		return fmt.Errorf("%s: no package %s in the CUDA %s set", key, name, s.CUDA)
	}
	return nil
}

func changeAddDeps(s *pkgset.Set, p *pkgset.Package, v sl.Value) error {
	ns, err := names("add_deps", v)
	if err != nil {
		return err
	}
	for _, n := range ns {
		if err := checkDep(s, p, "add_deps", n); err != nil {
			return err
		}
		if !slices.ContainsFunc(p.Deps, func(d pkgset.Dep) bool { return d.Name == n && len(d.Platforms) == 0 }) {
			p.Deps = append(p.Deps, pkgset.Dep{Name: n})
		}
	}
	return nil
}

func changeDropDeps(s *pkgset.Set, p *pkgset.Package, v sl.Value) error {
	ns, err := names("drop_deps", v)
	if err != nil {
		return err
	}
	for _, n := range ns {
		if err := checkDep(s, p, "drop_deps", n); err != nil {
			return err
		}
		p.Deps = slices.DeleteFunc(p.Deps, func(d pkgset.Dep) bool { return d.Name == n })
	}
	return nil
}

var fileKeys = []string{"kind", "path", "role", "soname"}

func changeAddFiles(p *pkgset.Package, v sl.Value) error {
	d, ok := v.(*sl.Dict)
	if !ok {
		return fmt.Errorf("add_files: got %s, expected a dict from platform to a list of files", v.Type())
	}
	keys, err := dictKeys(d, "add_files")
	if err != nil {
		return err
	}
	for _, k := range keys {
		val, _, _ := d.Get(sl.String(k))
		plat, err := platformKey("add_files", k)
		if err != nil {
			return err
		}
		if _, ok := p.Platforms[plat]; !ok {
			return fmt.Errorf("add_files[%q]: %s has no archive on %s: files can only be added where there is one", k, p.Name, plat)
		}
		list, ok := val.(sl.Indexable)
		if _, str := val.(sl.String); !ok || str {
			return fmt.Errorf("add_files[%q]: got %s, expected a list of files (dicts with path, kind, role, soname)", k, val.Type())
		}
		for i := 0; i < list.Len(); i++ {
			f, err := fileChange(list.Index(i))
			if err != nil {
				return fmt.Errorf("add_files[%q][%d]: %w", k, i, err)
			}
			if p.Files == nil {
				p.Files = map[string][]pkgset.File{}
			}
			p.Files[plat] = append(p.Files[plat], f)
		}
	}
	var all []file.File
	for _, plat := range slices.Sorted(maps.Keys(p.Files)) {
		all = append(all, p.Files[plat]...)
	}
	p.Role = file.RoleOf(all)
	return nil
}

func fileChange(v sl.Value) (pkgset.File, error) {
	d, ok := v.(*sl.Dict)
	if !ok {
		return pkgset.File{}, fmt.Errorf("got %s, expected a dict with path, kind, role and soname", v.Type())
	}
	keys, err := dictKeys(d, "file")
	if err != nil {
		return pkgset.File{}, err
	}
	f := pkgset.File{Role: file.Target}
	for _, k := range keys {
		val, _, _ := d.Get(sl.String(k))
		s, ok := sl.AsString(val)
		if !ok {
			return f, fmt.Errorf("%s: got %s, expected a string", k, val.Type())
		}
		switch k {
		case "path":
			f.Path = s
		case "kind":
			f.Kind = file.Kind(s)
		case "role":
			f.Role = file.Role(s)
		case "soname":
			f.SONAME = s
		default:
			return f, fmt.Errorf("unknown file key %q: expected one of %s", k, strings.Join(fileKeys, ", "))
		}
	}
	if f.Path == "" {
		return f, fmt.Errorf("a file needs a path")
	}
	// The host's check of plugin answers: an override can add no file a
	// plugin could not.
	if err := file.Check(f); err != nil {
		return f, err
	}
	return f, nil
}
