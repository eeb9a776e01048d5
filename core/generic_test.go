// Package core_test holds checks on the core as a whole.
package core_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// The core is generic: no package of any manifest is named in its code,
// its identifiers, string literals or comments. Everything package-specific
// belongs to plugins; examples in comments use made-up names.
func TestCoreNamesNoPackage(t *testing.T) {
	names := packageNames(t)
	if len(names) < 50 {
		t.Fatalf("only %d package names read from the manifests", len(names))
	}
	words := regexp.MustCompile(`[A-Za-z0-9_]+`)
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				for _, w := range words.FindAllString(strings.ToLower(c.Text), -1) {
					if names[w] {
						found = append(found, fset.Position(c.Pos()).String()+": "+w+" (comment)")
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var text string
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					text = n.Value
				}
			case *ast.Ident:
				text = n.Name
			}
			for _, w := range words.FindAllString(strings.ToLower(text), -1) {
				if names[w] {
					found = append(found, fset.Position(n.Pos()).String()+": "+w)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("core names a package: %s", f)
	}
}

func packageNames(t *testing.T) map[string]bool {
	names := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(shared.Manifests(t), "*", "redistrib_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			if strings.HasPrefix(strings.TrimSpace(string(v)), "{") {
				names[strings.ToLower(k)] = true
			}
		}
	}
	return names
}
