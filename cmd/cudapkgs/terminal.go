package main

import (
	"os"
	"strings"

	"golang.org/x/term"
)

func stderrIsTerminal() bool { return term.IsTerminal(int(os.Stderr.Fd())) }

// isCobraUsage recognises cobra's own usage errors, which it returns as plain
// errors: an unknown command, or wrong positional arguments.
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
