package starlark

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	sl "go.starlark.net/starlark"

	"github.com/cudapkgs/cudapkgs/core/version"
)

// UserProduct is a product the configuration adds from the user's own
// manifests (NCCL, a site library), laid out like NVIDIA's:
// <Dir>/redistrib_<version>.json.
type UserProduct struct {
	Name string
	// Dir is the folder holding the manifests, inside the workspace.
	Dir string
	// Base and Path locate archives: Base/Path/<relative_path>.
	Base, Path string
	// CUDA are the CUDA versions (prefixes) that archives without
	// cuda_variant serve; empty: such archives serve none.
	CUDA []string
	// Pos is where product() was called.
	Pos string
}

// Products are the user products, in the order they were declared.
func (f *File) Products() []UserProduct { return append([]UserProduct(nil), f.products...) }

func builtinProduct(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var name, dir, base, urlPath string
	var cuda *sl.List
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "name", &name, "manifests", &dir, "base_url", &base, "path?", &urlPath, "cuda?", &cuda); err != nil {
		return nil, err
	}
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		return nil, fmt.Errorf("%s: name %q: expected lower-case letters, digits, _ and -", b.Name(), name)
	}
	if err := checkMirror(base); err != nil {
		return nil, fmt.Errorf("%s: base_url: %v", b.Name(), err)
	}
	var prefixes []string
	if cuda != nil {
		var err error
		if prefixes, err = stringList(b, "cuda", cuda); err != nil {
			return nil, err
		}
		for _, p := range prefixes {
			if _, err := version.Parse(p); err != nil {
				return nil, fmt.Errorf("%s: cuda: %v", b.Name(), err)
			}
		}
	}
	f, pos, err := recorder(th, b)
	if err != nil {
		return nil, err
	}
	abs, err := f.interp.folder(th.CallFrame(1).Pos.Filename(), dir)
	if err != nil {
		return nil, fmt.Errorf("%s: manifests: %v", b.Name(), err)
	}
	for _, p := range f.products {
		if p.Name == name {
			return nil, fmt.Errorf("%s: product %q is already declared at %s", b.Name(), name, p.Pos)
		}
	}
	f.products = append(f.products, UserProduct{Name: name, Dir: abs, Base: base, Path: strings.Trim(urlPath, "/"), CUDA: prefixes, Pos: pos})
	return sl.None, nil
}

// folder resolves a folder named from a module: "//third_party/nccl" from
// the workspace root, anything else from the module's own folder. It must be
// inside the workspace and exist.
func (in *Interp) folder(from, name string) (string, error) {
	var rel string
	switch {
	case strings.HasPrefix(name, "//"):
		rel = strings.TrimSuffix(name[2:], ":")
	case strings.HasPrefix(name, "/") || filepath.IsAbs(name) || strings.HasPrefix(name, "@"):
		return "", fmt.Errorf("%q: expected //path/in/the/workspace or a path relative to %s", name, from)
	default:
		base := path.Dir(from)
		if outside(from) {
			base = "."
		}
		rel = path.Join(base, name)
	}
	rel = path.Clean(rel)
	if outside(rel) {
		return "", fmt.Errorf("%q: %s is outside the workspace %s", name, rel, in.root)
	}
	abs := filepath.Join(in.root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%q: no folder %s in the workspace", name, rel)
	}
	if inside, _ := filepath.Rel(in.root, real); outside(filepath.ToSlash(inside)) {
		return "", fmt.Errorf("%q: %s leads outside the workspace %s (a symbolic link)", name, rel, in.root)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%q: %s is not a folder", name, rel)
	}
	return real, nil
}
