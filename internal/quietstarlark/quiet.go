// Package quietstarlark keeps go.starlark.net's one start-up log line off
// standard error.
//
// go.starlark.net/starlark reserves 4 GB of address space while it is
// initialized (a package variable: small integers are pointers into it).
// Under an address-space limit (ulimit -v, prlimit --as) the reservation
// fails, and the package logs "Starlark failed to allocate 4GB address
// space: ... Integer performance may suffer." with the standard logger:
// raw, before main runs, and not something a user can act on (evaluation
// works, with integers allocated instead). Package initialization runs in
// import-path order among packages whose imports are ready (the Go
// specification, since Go 1.21), and this package imports only log, which
// go.starlark.net/starlark imports too; its path sorts before
// go.starlark.net, so its init runs first and filters that line out of
// the standard logger. Restore, called from package starlark's init (after
// go.starlark.net/starlark's), puts the logger's writer back.
//
// The previous writer is package state because the standard logger is:
// it is set once, in init, and read once, by Restore.
package quietstarlark

import "log"

// startupLine is the start of the line to drop.
const startupLine = "Starlark failed to allocate 4GB address space"

type filter struct {
	next interface{ Write([]byte) (int, error) }
}

// Write drops the start-up line, and passes everything else on.
func (f filter) Write(p []byte) (int, error) {
	if contains(p, startupLine) {
		return len(p), nil
	}
	return f.next.Write(p)
}

// contains is bytes.Contains, without importing bytes (see the package
// comment: this package imports only what go.starlark.net/starlark does).
func contains(p []byte, s string) bool {
	for i := 0; i+len(s) <= len(p); i++ {
		if string(p[i:i+len(s)]) == s {
			return true
		}
	}
	return false
}

var installed *filter

func init() {
	installed = &filter{log.Writer()}
	log.SetOutput(installed)
}

// Restore puts back the standard logger's writer, unless someone replaced
// the filter since.
func Restore() {
	if installed != nil && log.Writer() == installed {
		log.SetOutput(installed.next)
	}
}
