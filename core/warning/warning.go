// Package warning collects the run's warnings: what the tool tolerated (a
// manifest shape it does not know, a refused file, a product folder it does
// not serve, facts extrapolated past its tables) and still worked around.
//
// Warnings are printed once each, carried in machine-readable output (query
// --format json, eval), and turned into one error by --strict, for users who
// want CI to fail on anything new.
package warning

import (
	"fmt"
	"strings"
)

// List is an ordered set of warnings: adding one twice keeps the first. The
// zero value is ready to use. It is not safe for concurrent use; the stages
// that add to it run one after another.
type List struct {
	seen  map[string]bool
	items []string
}

// Add records a warning unless the list already holds the same text; it
// reports whether it was new.
func (l *List) Add(msg string) bool {
	if l.seen[msg] {
		return false
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[msg] = true
	l.items = append(l.items, msg)
	return true
}

// All returns the warnings in the order they were first added (never nil,
// so JSON shows an empty list rather than null).
func (l *List) All() []string { return append([]string{}, l.items...) }

// Strict is the error a strict run turns warnings into.
type Strict struct{ Warnings []string }

func (e *Strict) Error() string { return e.Message("strict") }

// Message is the error's text, with the setting that made the run strict
// named as its caller's users write it (--strict).
func (e *Strict) Message(setting string) string {
	s := "s"
	if len(e.Warnings) == 1 {
		s = ""
	}
	return fmt.Sprintf("%s: %d warning%s, and %s makes them errors:\n  %s", setting, len(e.Warnings), s, setting, strings.Join(e.Warnings, "\n  "))
}

// Check returns a *Strict error when strict is set and the list is not empty.
func (l *List) Check(strict bool) error {
	if !strict || len(l.items) == 0 {
		return nil
	}
	return &Strict{Warnings: l.All()}
}
