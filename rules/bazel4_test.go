package rules

import (
	"testing"

	"go.starlark.net/syntax"
)

// The files a WORKSPACE loads must load in Bazel 4.2.3, whose Starlark has
// neither lambda nor nested def (extensions.bzl is loaded by bzlmod only, so
// Bazel 6 or newer, and may use both).
func TestLoadsInBazel4(t *testing.T) {
	for name, src := range map[string][]byte{"cuda.bzl": CudaBzl, "setup.bzl": SetupBzl, "local.bzl": LocalBzl} {
		f, err := (&syntax.FileOptions{}).Parse(name, src, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		depth := 0
		var walk func(n syntax.Node) bool
		walk = func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.LambdaExpr:
				pos, _ := n.Span()
				t.Errorf("%s: lambda: Bazel 4.2.3 has none; declare a function", pos)
			case *syntax.DefStmt:
				if depth > 0 {
					pos, _ := n.Span()
					t.Errorf("%s: nested def: Bazel 4.2.3 has none", pos)
				}
				depth++
				for _, st := range n.Body {
					syntax.Walk(st, walk)
				}
				depth--
				return false
			}
			return true
		}
		for _, st := range f.Stmts {
			syntax.Walk(st, walk)
		}
	}
}
