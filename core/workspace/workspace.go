// Package workspace edits a Bazel workspace so that it uses a generated
// repository: in MODULE.bazel the bazel_dep, local_path_override and
// use_extension lines, in a WORKSPACE the local_repository, load and macro
// call. Edits are made on buildtools' syntax tree (its build and edit
// packages), never on text, so a file that does not parse is refused
// rather than guessed at. What is already there is kept: an edit only adds
// what is missing, so applying it twice changes nothing.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bazelbuild/buildtools/build"
	"github.com/bazelbuild/buildtools/edit"
	"github.com/bazelbuild/buildtools/edit/bzlmod"
)

// Kind is how a workspace declares its external repositories.
type Kind int

const (
	// Module is bzlmod: MODULE.bazel.
	Module Kind = iota
	// Workspace is the WORKSPACE file (Bazel before 8).
	Workspace
)

func (k Kind) String() string {
	if k == Workspace {
		return "WORKSPACE"
	}
	return "bzlmod"
}

// ModuleFile is bzlmod's file; Plan prefers it to workspaceFiles, in
// Bazel's order.
const ModuleFile = "MODULE.bazel"

var workspaceFiles = []string{"WORKSPACE.bazel", "WORKSPACE"}

// Repo is the generated repository a workspace should use.
type Repo struct {
	// Name is the repository's and module's name (--name, "cuda").
	Name string
	// Path is where it is, relative to the workspace root with forward
	// slashes, or absolute when it is outside the workspace.
	Path string
}

// Edit is the change to one file. After equals Before when there is nothing
// to add.
type Edit struct {
	Path          string // the file, absolute
	Kind          Kind
	Exists        bool // the file was there before
	Before, After []byte
	// Added describes each statement added, in order ("bazel_dep(name = \"cuda\")").
	Added []string
}

// Changed reports whether applying the edit writes anything.
func (e *Edit) Changed() bool { return !e.Exists || string(e.Before) != string(e.After) }

// ParseError is a file the edit cannot parse: it is left alone.
type ParseError struct {
	File string
	Err  error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s does not parse, so it was not changed (fix it, then run again): %v", e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// ConflictError is a statement already in the file that points the
// repository elsewhere: the edit will not override the user's choice.
type ConflictError struct {
	File string
	Line int
	What string // the statement, as the file has it
	Want string // what the edit would have written
}

func (e *ConflictError) Error() string {
	return e.Message("generate the repository with the path and name it gives")
}

// Message is the error's text with the other way out said as the caller's
// users take it ("run again with --out and --name matching it").
func (e *ConflictError) Message(retry string) string {
	return fmt.Sprintf("%s:%d: %s is already there, and it is not %s: change or remove it, or %s; the file was not changed", e.File, e.Line, e.What, e.Want, retry)
}

// Plan reads the workspace at root and returns the edit that makes it use
// repo: MODULE.bazel when it exists, else WORKSPACE.bazel or WORKSPACE when
// one exists, else a new MODULE.bazel. Nothing is written.
func Plan(root string, repo Repo) (*Edit, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	path, kind := filepath.Join(root, ModuleFile), Module
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		for _, name := range workspaceFiles {
			if _, err := os.Stat(filepath.Join(root, name)); err == nil {
				path, kind = filepath.Join(root, name), Workspace
				break
			}
		}
	}
	data, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	e := &Edit{Path: path, Kind: kind, Exists: exists, Before: data}
	if kind == Module {
		e.After, e.Added, err = EditModule(path, data, repo)
	} else {
		e.After, e.Added, err = EditWorkspace(path, data, repo)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Write applies the edit: the new bytes go to a temporary file next to the
// target, which then replaces it, so the file is never half-written. An
// edit with no change writes nothing.
func (e *Edit) Write() error {
	if !e.Changed() {
		return nil
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(e.Path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(e.Path), "."+filepath.Base(e.Path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(e.After)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), mode)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), e.Path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func checkRepo(r Repo) error {
	if r.Name == "" || r.Path == "" {
		return fmt.Errorf("workspace: repository name and path are required")
	}
	return nil
}

// ExtensionLabel is the label of the generated module extension's file.
func ExtensionLabel(name string) string { return "@" + name + "//:extensions.bzl" }

// ExtensionName is the module extension's name in extensions.bzl.
const ExtensionName = "cuda"

// RepositoriesLabel is the label of the generated WORKSPACE macro's file.
func RepositoriesLabel(name string) string { return "@" + name + "//:repositories.bzl" }

// Macro is the WORKSPACE macro repositories.bzl defines.
const Macro = "cuda_repositories"

// overrideKinds are MODULE.bazel's override functions, all keyed by
// module_name: one of them for the repository's module other than the
// local_path_override the edit would write is the user's choice.
var overrideKinds = []string{"local_path_override", "archive_override", "git_override", "single_version_override", "multiple_version_override"}

// EditModule returns data (a MODULE.bazel named file) with what is missing
// of bazel_dep(name = NAME), local_path_override(module_name = NAME, path =
// PATH) and NAME = use_extension("@NAME//:extensions.bzl", "cuda"), and a
// description of each added statement. Data that needs nothing is returned
// unchanged, byte for byte; otherwise the file is printed by build.Format.
func EditModule(file string, data []byte, repo Repo) ([]byte, []string, error) {
	if err := checkRepo(repo); err != nil {
		return nil, nil, err
	}
	f, err := build.ParseModule(file, data)
	if err != nil {
		return nil, nil, &ParseError{File: file, Err: err}
	}
	depIndex := -1
	hasOverride := false
	for i, stmt := range f.Stmt {
		if r, ok := edit.ExprToRule(stmt, "bazel_dep"); ok && r.AttrString("name") == repo.Name {
			depIndex = i
		}
		for _, kind := range overrideKinds {
			r, ok := edit.ExprToRule(stmt, kind)
			if !ok || r.AttrString("module_name") != repo.Name {
				continue
			}
			if kind != "local_path_override" || r.AttrString("path") != repo.Path {
				line, _ := stmt.Span()
				return nil, nil, &ConflictError{File: file, Line: line.Line, What: compact(stmt),
					Want: fmt.Sprintf("local_path_override(module_name = %q, path = %q)", repo.Name, repo.Path)}
			}
			hasOverride = true
		}
	}
	proxies := append(bzlmod.Proxies(f, ExtensionLabel(repo.Name), ExtensionName, false),
		bzlmod.Proxies(f, ExtensionLabel(repo.Name), ExtensionName, true)...)

	var added []string
	if depIndex < 0 {
		dep := call("bazel_dep", kw("name", str(repo.Name)))
		dep.Comments.Before = []build.Comment{{Token: "# The CUDA repository `cudapkgs generate` writes (cudapkgs init added these lines)."}}
		f.Stmt = edit.InsertAfterLastOfSameKind(f.Stmt, dep)
		depIndex = indexOf(f.Stmt, dep)
		added = append(added, compact(dep))
	}
	if !hasOverride {
		ov := call("local_path_override", kw("module_name", str(repo.Name)), kw("path", str(repo.Path)))
		f.Stmt = edit.InsertAfter(depIndex, f.Stmt, ov)
		added = append(added, compact(ov))
	}
	if len(proxies) == 0 {
		proxy := repo.Name
		if !isIdent(proxy) {
			proxy = "cuda"
		}
		use := &build.AssignExpr{LHS: &build.Ident{Name: proxy}, Op: "=",
			RHS: call("use_extension", str(ExtensionLabel(repo.Name)), str(ExtensionName))}
		use.Comments.Before = []build.Comment{
			{Token: "# Settings, all optional (docs/bazel.md): " + proxy + ".toolkit(versions = [...], default = ...),"},
			{Token: "# " + proxy + ".platforms(targets = [...]), " + proxy + ".capabilities(capabilities = [...]), " + proxy + ".pin(...), " + proxy + ".mirror(urls = [...])."},
		}
		f.Stmt = edit.InsertAtEnd(f.Stmt, use)
		added = append(added, compact(use))
	}
	if len(added) == 0 {
		return data, nil, nil
	}
	return build.Format(f), added, nil
}

// EditWorkspace returns data (a WORKSPACE named file) with what is missing
// of local_repository(name = NAME, path = PATH), load("@NAME//:repositories.bzl",
// "cuda_repositories") and cuda_repositories(), appended in that order (a
// WORKSPACE's statements run in order: the load needs the repository
// declared first).
func EditWorkspace(file string, data []byte, repo Repo) ([]byte, []string, error) {
	if err := checkRepo(repo); err != nil {
		return nil, nil, err
	}
	f, err := build.ParseWorkspace(file, data)
	if err != nil {
		return nil, nil, &ParseError{File: file, Err: err}
	}
	hasRepo, hasLoad, hasCall := false, false, false
	for _, stmt := range f.Stmt {
		switch s := stmt.(type) {
		case *build.LoadStmt:
			if s.Module.Value != RepositoriesLabel(repo.Name) {
				continue
			}
			for _, to := range s.To {
				if to.Name == Macro {
					hasLoad = true
				}
			}
		case *build.CallExpr:
			if id, ok := s.X.(*build.Ident); ok && id.Name == Macro {
				hasCall = true
			}
		}
	}
	if r := edit.FindRuleByName(f, repo.Name); r != nil {
		if r.Kind() != "local_repository" || r.AttrString("path") != repo.Path {
			line, _ := r.Call.Span()
			return nil, nil, &ConflictError{File: file, Line: line.Line, What: compact(r.Call),
				Want: fmt.Sprintf("local_repository(name = %q, path = %q)", repo.Name, repo.Path)}
		}
		hasRepo = true
	}
	var added []string
	first := true
	add := func(e build.Expr) {
		if first {
			e.Comment().Before = []build.Comment{{Token: "# The CUDA repository `cudapkgs generate` writes (cudapkgs init added these lines)."}}
			first = false
		}
		f.Stmt = edit.InsertAtEnd(f.Stmt, e)
		added = append(added, compact(e))
	}
	if !hasRepo {
		add(call("local_repository", kw("name", str(repo.Name)), kw("path", str(repo.Path))))
	}
	if !hasLoad {
		add(&build.LoadStmt{Module: str(RepositoriesLabel(repo.Name)), From: []*build.Ident{{Name: Macro}},
			To: []*build.Ident{{Name: Macro}}, ForceCompact: true})
	}
	if !hasCall {
		add(call(Macro))
	}
	if len(added) == 0 {
		return data, nil, nil
	}
	return build.Format(f), added, nil
}

func call(fn string, args ...build.Expr) *build.CallExpr {
	return &build.CallExpr{X: &build.Ident{Name: fn}, List: args}
}

func kw(key string, v build.Expr) build.Expr {
	return &build.AssignExpr{LHS: &build.Ident{Name: key}, Op: "=", RHS: v}
}

func str(s string) *build.StringExpr { return &build.StringExpr{Value: s} }

func indexOf(stmts []build.Expr, e build.Expr) int {
	for i, s := range stmts {
		if s == e {
			return i
		}
	}
	return -1
}

// compact is a statement on one line, for messages.
func compact(e build.Expr) string {
	c := *e.Comment()
	e.Comment().Before, e.Comment().Suffix, e.Comment().After = nil, nil, nil
	defer func() { *e.Comment() = c }()
	s := strings.TrimSpace(build.FormatString(e))
	fields := strings.Fields(s)
	s = strings.Join(fields, " ")
	s = strings.ReplaceAll(s, "( ", "(")
	s = strings.ReplaceAll(s, ", )", ")")
	s = strings.ReplaceAll(s, ",)", ")")
	return s
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}
