package cudapkgs_test

import (
	"go/ast"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/cudapkgs/cudapkgs"

// publicAPI are the packages whose exports are for callers outside this
// module (plugin authors, Go programs that run cudapkgs as a library:
// docs/library.md), used or not here.
var publicAPI = map[string]bool{
	modulePath + "/plugins/sdk": true,
	modulePath:                  true,
}

// waiting are exports no code uses yet because the code that will is being
// written beside this check; each says who will.
var waiting = map[string]string{
	modulePath + "/core/fixup.InProcess": "core/fixup is being reworked",
}

// Every exported name outside the public API is used by code, not by tests
// alone: a name only tests use is a test helper (it belongs in a _test.go
// file) or dead code. Test-helper packages (their code imports "testing",
// or only tests import them), commands and generated files are left out.
func TestNoTestOnlyExports(t *testing.T) {
	found, err := testOnlyExports(".", modulePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if _, ok := waiting[f[strings.Index(f, " ")+1:]]; ok {
			continue
		}
		t.Errorf("%s: exported, but no code outside tests uses it", f)
	}
}

// The check finds an export used by tests only, in its package's or
// another's, and not one that code uses in its own package or another, nor
// a test helper's.
func TestTestOnlyExportsFinds(t *testing.T) {
	dir := t.TempDir()
	for p, text := range map[string]string{
		"a/a.go":      "package a\n\nfunc Used() {}\n\nfunc Own() {}\n\nfunc Only() {}\n\nfunc Here() {}\n\nfunc use() { Own() }\n\nconst Dead = 1\n",
		"a/a_test.go": "package a\n\nfunc f() { Here() }\n",
		"b/b.go":      "package b\n\nimport x \"m/a\"\n\nfunc g() { x.Used() }\n",
		"b/b_test.go": "package b\n\nimport \"m/a\"\n\nfunc h() { a.Only() }\n",
		"h/h.go":      "package h\n\nimport \"testing\"\n\nfunc Helper(t *testing.T) {}\n",
		"t/t.go":      "package t\n\nfunc Measure() {}\n",
		"t/t_test.go": "package t\n\nfunc i() { Measure() }\n",
		"c/main.go":   "package main\n\nfunc Exported() {}\n\nfunc main() {}\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, p), text)
	}
	got, err := testOnlyExports(dir, "m")
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i] = strings.TrimPrefix(filepath.ToSlash(got[i]), filepath.ToSlash(dir)+"/")
	}
	want := []string{"a/a.go:13:7: m/a.Dead", "a/a.go:7:6: m/a.Only", "a/a.go:9:6: m/a.Here"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// testOnlyExports lists, as "file:line:col: importpath.Name", the exported
// top-level functions, types, variables and constants declared under root
// (module mod) that no non-test file uses: by name in their own package
// besides the declaration, or as pkg.Name where pkg is an import of theirs.
// Methods are left out (an interface may be why they exist).
func testOnlyExports(root, mod string) ([]string, error) {
	type decl struct {
		pos  string
		used bool
	}
	type pkgInfo struct {
		name     string
		helper   bool
		imported bool // by a non-test file
		decls    map[string]*decl
		files    []*ast.File
	}
	pkgs := map[string]*pkgInfo{} // by import path
	fset := token.NewFileSet()
	files, err := parseGoFiles(fset, root)
	if err != nil {
		return nil, err
	}
	for _, gf := range files {
		p, f := gf.path, gf.ast
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return nil, err
		}
		ip := path.Join(mod, filepath.ToSlash(rel))
		pi := pkgs[ip]
		if pi == nil {
			pi = &pkgInfo{name: f.Name.Name, decls: map[string]*decl{}}
			pkgs[ip] = pi
		}
		pi.files = append(pi.files, f)
		for _, im := range f.Imports {
			if im.Path.Value == `"testing"` {
				pi.helper = true
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					pi.decls[d.Name.Name] = &decl{pos: fset.Position(d.Name.Pos()).String()}
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							pi.decls[s.Name.Name] = &decl{pos: fset.Position(s.Name.Pos()).String()}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								pi.decls[n.Name] = &decl{pos: fset.Position(n.Pos()).String()}
							}
						}
					}
				}
			}
		}
	}
	for _, pi := range pkgs {
		for _, f := range pi.files {
			// Imports of this file by the name they go by.
			imported := map[string]*pkgInfo{}
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				q := pkgs[p]
				if q == nil {
					continue
				}
				q.imported = true
				name := q.name
				if im.Name != nil {
					name = im.Name.Name
				}
				imported[name] = q
			}
			var visit func(n ast.Node) bool
			visit = func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok {
						if q := imported[x.Name]; q != nil {
							if d := q.decls[n.Sel.Name]; d != nil {
								d.used = true
							}
							return false
						}
					}
					// A field or method: only what it is selected from
					// can name a package's declaration.
					ast.Inspect(n.X, visit)
					return false
				case *ast.Ident:
					if d := pi.decls[n.Name]; d != nil && d.pos != fset.Position(n.Pos()).String() {
						d.used = true
					}
				}
				return true
			}
			ast.Inspect(f, visit)
		}
	}
	var found []string
	for ip, pi := range pkgs {
		if pi.helper || !pi.imported || pi.name == "main" || publicAPI[ip] {
			continue
		}
		for name, d := range pi.decls {
			if !d.used {
				found = append(found, d.pos+": "+ip+"."+name)
			}
		}
	}
	sort.Strings(found)
	return found, nil
}
