// Package version holds NVIDIA's dotted version numbers.
//
// NVIDIA versions have one to four numeric parts ("12", "12.4", "12.4.127",
// "9.5.1.17"). hashicorp/go-version would accept them, but it also accepts
// prerelease and metadata suffixes that never appear in a manifest and that we
// want refused, and its String normalises the text. Keeping the original text
// matters: it is what goes into archive names, lock files and generated labels.
package version

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxParts is the most numeric parts an NVIDIA version has.
const MaxParts = 4

// Version is an immutable parsed version. The zero value is invalid; use Parse.
type Version struct {
	parts [MaxParts]int
	n     int
	text  string
}

// Parse reads a dotted version of one to four non-negative integers.
func Parse(s string) (Version, error) {
	var v Version
	if s == "" {
		return v, fmt.Errorf("empty version: expected 1 to %d dot-separated numbers such as \"12.4.1\"", MaxParts)
	}
	fields := strings.Split(s, ".")
	if len(fields) > MaxParts {
		return v, fmt.Errorf("version %q has %d parts: expected 1 to %d dot-separated numbers", s, len(fields), MaxParts)
	}
	for i, f := range fields {
		if f == "" || strings.TrimLeft(f, "0123456789") != "" {
			return v, fmt.Errorf("version %q: part %d (%q) is not a number: expected 1 to %d dot-separated numbers such as \"12.4.1\"", s, i+1, f, MaxParts)
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return v, fmt.Errorf("version %q: part %d (%q) is out of range", s, i+1, f)
		}
		v.parts[i] = n
	}
	v.n = len(fields)
	v.text = s
	return v, nil
}

// MustParse is Parse for versions written in the source code; it panics on error.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// String returns the text the version was parsed from.
func (v Version) String() string { return v.text }

// IsZero reports whether v was never parsed.
func (v Version) IsZero() bool { return v.n == 0 }

// Parts is the number of parts written.
func (v Version) Parts() int { return v.n }

// Major returns the first part.
func (v Version) Major() int { return v.parts[0] }

// Minor returns the second part (0 when absent).
func (v Version) Minor() int { return v.parts[1] }

// Part returns part i (0-based); missing parts read as 0.
func (v Version) Part(i int) int {
	if i < 0 || i >= MaxParts {
		return 0
	}
	return v.parts[i]
}

// Truncate returns the first n parts as a new Version ("12.4.1" -> "12.4").
func (v Version) Truncate(n int) Version {
	if n >= v.n {
		return v
	}
	var out Version
	texts := make([]string, n)
	for i := 0; i < n; i++ {
		out.parts[i] = v.parts[i]
		texts[i] = strconv.Itoa(v.parts[i])
	}
	out.n = n
	out.text = strings.Join(texts, ".")
	return out
}

// MajorMinor is Truncate(2), the granularity of NVIDIA's compatibility tables.
func (v Version) MajorMinor() Version { return v.Truncate(2) }

// Compare orders versions numerically; missing parts count as 0, so
// "12.4" == "12.4.0". Returns -1, 0 or +1.
func (v Version) Compare(o Version) int {
	for i := 0; i < MaxParts; i++ {
		switch {
		case v.parts[i] < o.parts[i]:
			return -1
		case v.parts[i] > o.parts[i]:
			return 1
		}
	}
	return 0
}

// Less reports v < o.
func (v Version) Less(o Version) bool { return v.Compare(o) < 0 }

// Equal reports numeric equality (not textual: "12.4" equals "12.4.0").
func (v Version) Equal(o Version) bool { return v.Compare(o) == 0 }

// HasPrefix reports whether the first p.Parts() parts of v equal p:
// "8.9.7.29" has prefix "8.9" and "8", not "8.8".
func (v Version) HasPrefix(p Version) bool {
	for i := 0; i < p.n; i++ {
		if v.parts[i] != p.parts[i] {
			return false
		}
	}
	return true
}

// Underscored returns the first n parts joined by '_', for names such as
// cudnn_8_9.
func (v Version) Underscored(n int) string {
	return strings.ReplaceAll(v.Truncate(n).text, ".", "_")
}

// MarshalText writes the original text.
func (v Version) MarshalText() ([]byte, error) { return []byte(v.text), nil }

// UnmarshalText parses text.
func (v *Version) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}
