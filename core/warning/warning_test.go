package warning

import (
	"errors"
	"strings"
	"testing"
)

func TestList(t *testing.T) {
	var l List
	if got := l.All(); got == nil || len(got) != 0 {
		t.Errorf("empty All = %#v, want an empty, non-nil list", got)
	}
	if err := l.Check(true); err != nil {
		t.Errorf("strict with no warnings: %v", err)
	}
	for _, w := range []string{"b", "a", "b", "c", "a"} {
		l.Add(w)
	}
	if l.Add("c") {
		t.Error("a repeated warning counted as new")
	}
	if got := strings.Join(l.All(), ","); got != "b,a,c" {
		t.Errorf("All = %s, want b,a,c (first-seen order, no repeats)", got)
	}
	if err := l.Check(false); err != nil {
		t.Errorf("not strict: %v", err)
	}
	err := l.Check(true)
	var se *Strict
	if !errors.As(err, &se) || len(se.Warnings) != 3 || !strings.Contains(err.Error(), "strict: 3 warnings, and strict makes them errors") ||
		!strings.HasPrefix(se.Message("--strict"), "--strict: 3 warnings, and --strict makes them errors:\n  ") {
		t.Errorf("strict error = %v", err)
	}
}
