package cudapkgs_test

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// No package holds a test hook or a limit in a package variable: a
// variable that a function (a test's or not) assigns to after start-up is
// state every caller shares, and a test that sets it cannot run beside
// another. Hooks and limits are fields of an options value instead. Only
// init functions may fill a package variable, and generated code is left
// out.
func TestNoPackageVariableAssigned(t *testing.T) {
	found, err := packageVarAssignments(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: assigns a package variable; make it a field of an options value or a constant", f)
	}
}

// The check finds what it is there to find: a package variable assigned by
// a test in another file, in the same file, through a field or an index,
// and not a local variable that shadows one, nor init's filling.
func TestPackageVarAssignmentsFinds(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"p", "p/testdata"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "p", "p.go"), `package p

var hook func()
var limit = 8
var table = map[string]int{}
var opts struct{ n int }

func init() { table["a"] = 1 }

func f() {
	limit = 9
	limit := 3
	limit = 4
	_ = limit
}
`)
	writeFile(t, filepath.Join(dir, "p", "p_test.go"), `package p

var cache int

func g() {
	cache = 1
	hook = nil
	table["b"] = 2
	opts.n++
	var hook func()
	hook = nil
	_ = hook
}
`)
	writeFile(t, filepath.Join(dir, "p", "testdata", "q.go"), "package q\n\nvar v int\n\nfunc h() { v = 1 }\n")
	got, err := packageVarAssignments(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i] = strings.TrimPrefix(filepath.ToSlash(got[i]), filepath.ToSlash(dir)+"/")
	}
	want := []string{"p/p.go:11:2: limit", "p/p_test.go:7:2: hook", "p/p_test.go:8:2: table", "p/p_test.go:9:2: opts"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// packageVarAssignments lists, as "file:line:col: name", each statement
// under root that assigns a package variable of its own package declared
// outside its tests (or a field or element of one) outside an init
// function; a test's own variables are the test's business. Folders named
// testdata or starting with a dot are skipped, and so are generated files.
func packageVarAssignments(root string) ([]string, error) {
	type pkgKey struct{ dir, name string }
	vars := map[pkgKey]map[string]bool{}
	var files []*ast.File
	var keys []pkgKey
	fset := token.NewFileSet()
	parsed, err := parseGoFiles(fset, root)
	if err != nil {
		return nil, err
	}
	for _, gf := range parsed {
		p, f := gf.path, gf.ast
		k := pkgKey{filepath.Dir(p), strings.TrimSuffix(f.Name.Name, "_test")}
		if vars[k] == nil {
			vars[k] = map[string]bool{}
		}
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.VAR && !strings.HasSuffix(p, "_test.go") {
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if n.Name != "_" {
							vars[k][n.Name] = true
						}
					}
				}
			}
		}
		files = append(files, f)
		keys = append(keys, k)
	}
	var found []string
	for i, f := range files {
		pkgVars := vars[keys[i]]
		// isPackageVar: an identifier the parser could not resolve in its
		// file (declared in another file of the package) or resolved to a
		// declaration at the file's top level.
		isPackageVar := func(id *ast.Ident) bool {
			if !pkgVars[id.Name] {
				return false
			}
			if id.Obj == nil {
				return true
			}
			spec, ok := id.Obj.Decl.(*ast.ValueSpec)
			if !ok {
				return false
			}
			for _, decl := range f.Decls {
				if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, s := range g.Specs {
						if s == spec {
							return true
						}
					}
				}
			}
			return false
		}
		check := func(lhs ast.Expr) {
			for {
				switch e := lhs.(type) {
				case *ast.SelectorExpr:
					lhs = e.X
					continue
				case *ast.IndexExpr:
					lhs = e.X
					continue
				case *ast.StarExpr:
					lhs = e.X
					continue
				case *ast.ParenExpr:
					lhs = e.X
					continue
				case *ast.Ident:
					if isPackageVar(e) {
						found = append(found, fset.Position(lhs.Pos()).String()+": "+e.Name)
					}
				}
				return
			}
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Recv == nil && fd.Name.Name == "init" {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					if n.Tok != token.DEFINE {
						for _, l := range n.Lhs {
							check(l)
						}
					}
				case *ast.IncDecStmt:
					check(n.X)
				}
				return true
			})
		}
	}
	sort.Strings(found)
	return found, nil
}
