package cudapkgs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
)

// goFile is one parsed source file of the module.
type goFile struct {
	path string
	ast  *ast.File
}

// parseGoFiles parses every hand-written .go file under root, in walk
// order. The source checks (exports, hooks) all mean the same tree: folders
// named testdata hold inputs of tests, dot folders hold tools' state, and
// generated files answer to their generator, so all three are left out.
// Objects are resolved: the hooks check tells a shadowing local from the
// package variable by them.
func parseGoFiles(fset *token.FileSet, root string) ([]goFile, error) {
	var files []goFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if !ast.IsGenerated(f) {
			files = append(files, goFile{path: p, ast: f})
		}
		return nil
	})
	return files, err
}
