package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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

// escapeText makes text from manifests, plugins and overrides safe to print
// on a terminal: control characters (tab and escape included), Unicode
// format characters (bidirectional overrides) and bytes that are not UTF-8
// are written as Go escapes (\t, \x1b, \u202e, \xff); everything else is
// kept. keepNewlines keeps '\n' for multi-line messages.
func escapeText(s string, keepNewlines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
