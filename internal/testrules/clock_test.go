package testrules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// clockBounds lists the comparisons of a time.Since reading in a test file
// (directly, or through a variable it was assigned to in the same
// function), outside benchmarks: a test that fails when a loaded machine
// is slow. Tests assert counts, bytes and steps; time is for benchmarks.
func clockBounds(fset *token.FileSet, f *ast.File) []string {
	var found []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || strings.HasPrefix(fn.Name.Name, "Benchmark") {
			continue
		}
		since := map[string]bool{} // variables holding a time.Since reading
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
				for i, r := range as.Rhs {
					if id, ok := as.Lhs[i].(*ast.Ident); ok && isSince(r) {
						since[id.Name] = true
					}
				}
			}
			return true
		})
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			b, ok := n.(*ast.BinaryExpr)
			if !ok {
				return true
			}
			switch b.Op {
			case token.LSS, token.GTR, token.LEQ, token.GEQ:
			default:
				return true
			}
			for _, x := range []ast.Expr{b.X, b.Y} {
				if id, ok := x.(*ast.Ident); ok && since[id.Name] || isSince(x) {
					found = append(found, fset.Position(b.Pos()).String())
					break
				}
			}
			return true
		})
	}
	return found
}

// isSince: e is a call of time.Since.
func isSince(e ast.Expr) bool {
	c, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Since" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "time"
}

func TestClockBounds(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want int
	}{
		{"func TestA(t *testing.T) { if time.Since(s) > time.Second { t.Fail() } }", 1},
		{"func TestA(t *testing.T) { if d := time.Since(s); d < x || d > y { t.Fail() } }", 2},
		{"func TestA(t *testing.T) { took := time.Since(s); if took >= limit { t.Fail() } }", 1},
		{"func TestA(t *testing.T) { t.Logf(\"took %v\", time.Since(s)) }", 0},
		{"func TestA(t *testing.T) { if n := count(); n > 3 { t.Fail() } }", 0},
		{"func BenchmarkA(b *testing.B) { if time.Since(s) > time.Second { b.Fail() } }", 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "a_test.go", "package a\n"+tt.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := clockBounds(fset, f); len(got) != tt.want {
			t.Errorf("%s: %d found (%v), want %d", tt.src, len(got), got, tt.want)
		}
	}
}

// No test of the project compares wall-clock time against a bound.
func TestNoClockBoundsInTests(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var found []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		found = append(found, clockBounds(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d test files found under %s", files, root)
	}
	for _, f := range found {
		t.Errorf("%s: a test compares time.Since against a bound: assert a count, bytes or steps (time belongs in benchmarks)", f)
	}
}
