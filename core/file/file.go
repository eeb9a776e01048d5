// Package file is the file model every stage shares: what a package's file
// is (its Kind), which machine it serves (its Role), and the checks that
// make a file safe to write into a generated build, whoever declared it (a
// fixup plugin's answer, a Starlark override).
//
// It imports nothing of the project and no protocol code, so that the
// plugin SDK, the package sets, the emitters and the Starlark layer can all
// share it without depending on one another.
package file

import (
	"fmt"
	"slices"
	"strings"
)

// Kind is what a file is.
type Kind string

const (
	Headers   Kind = "headers"    // an include folder, or one header
	SharedLib Kind = "shared_lib" // a shared library, by its SONAME file
	StaticLib Kind = "static_lib"
	StubLib   Kind = "stub_lib" // a link-time stub of a driver library, never shipped
	Binary    Kind = "binary"
	Data      Kind = "data" // anything else: what tools read, device libraries, header trees
)

// Kinds lists every kind, in output order.
func Kinds() []Kind { return []Kind{Headers, SharedLib, StaticLib, StubLib, Binary, Data} }

// Role is which machine a file serves, for splicing.
type Role string

const (
	// Exec files run (or are read by tools) on the machine that builds.
	Exec Role = "exec"
	// Target files are for the machine the binary is built for.
	Target Role = "target"
	// Both is a package's role when its files are split between the two;
	// never a file's.
	Both Role = "both"
)

// File is one output of a package, relative to the archive's root (after its
// strip prefix).
type File struct {
	Path   string
	Kind   Kind
	Role   Role
	SONAME string // shared libraries only: the name the dynamic linker looks for
}

// RoleOf is the role of a set of files: Exec or Target when all agree, Both
// when they are split, "" when there are none.
func RoleOf(files []File) Role {
	var r Role
	for _, f := range files {
		switch {
		case r == "":
			r = f.Role
		case r != f.Role:
			return Both
		}
	}
	return r
}

// Check refuses a file no emitter could write as meant: a path outside its
// archive or unsafe in a label, an unknown kind or role, a SONAME on
// anything but a shared library (or missing on one), a SONAME that is not a
// plain file name. The fixup host and Starlark overrides both call it, so an
// override can declare no file a plugin could not.
func Check(f File) error {
	if err := CheckPath(f.Path); err != nil {
		return err
	}
	if !slices.Contains(Kinds(), f.Kind) {
		return fmt.Errorf("file %s has kind %q: expected one of %v", f.Path, f.Kind, Kinds())
	}
	if f.Role != Exec && f.Role != Target {
		return fmt.Errorf("file %s has role %q: expected %s or %s", f.Path, f.Role, Exec, Target)
	}
	if (f.Kind == SharedLib) != (f.SONAME != "") {
		return fmt.Errorf("file %s: a SONAME is given for shared libraries, and only for them", f.Path)
	}
	if f.SONAME != "" && (strings.Contains(f.SONAME, "/") || CheckPath(f.SONAME) != nil) {
		return fmt.Errorf("file %s: SONAME %q is not a plain library file name", f.Path, f.SONAME)
	}
	return nil
}

// CheckPath checks a path inside an archive that a plugin or an override
// gives (a file's, a patch's, a package name used as one): relative, clean,
// inside its archive and safe in a Bazel label.
func CheckPath(p string) error {
	if !safePath(p) {
		return fmt.Errorf("path %q has characters that are not safe in a Bazel label (allowed: letters, digits, _ . + - and / between names)", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." {
			return fmt.Errorf("path %q escapes the archive (or is not clean): expected a path inside it", p)
		}
	}
	return nil
}

// safePath reports whether p is names of letters, digits and _ . + -
// joined by single slashes: what may appear in a Bazel label and a glob (no
// spaces, quotes, colons or wildcards). A loop, not a regexp: it runs for
// every file of every package of every set.
func safePath(p string) bool {
	if p == "" || p[0] == '/' || p[len(p)-1] == '/' {
		return false
	}
	prev := byte(0)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.', c == '+', c == '-':
		case c == '/' && prev != '/':
		default:
			return false
		}
		prev = c
	}
	return true
}
