package sdk

// Version is NVIDIA's dotted version number, the SDK's so that a plugin
// compares releases, CUDA versions and capabilities without importing the
// host (core/version is this type under the core's names).
//
// NVIDIA versions have one or more numeric parts ("12", "12.4", "12.4.127",
// "9.5.1.17", and from CUDA 13.3 five-part ones such as "13.3.3.3.1"). hashicorp/go-version
// would accept them, but it also accepts prerelease and metadata suffixes that
// never appear in a manifest and that we want refused, and its String
// normalises the text. Keeping the original text matters: it is what goes into
// archive names, lock files and generated labels.

import (
	"fmt"
	"strconv"
	"strings"
)

// inline is how many parts a Version holds in its array. Every NVIDIA version
// up to CUDA 13.2 fits; longer ones keep the rest as text, so Version stays a
// comparable value (usable as a map key) without a slice.
const inline = 4

// Version is an immutable parsed version. The zero value is invalid; use ParseVersion.
type Version struct {
	parts [inline]int
	n     int
	text  string
	// tail is the text of the parts after the first four ("3.1" of
	// "13.3.3.3.1"), already checked to be numbers; "" for most versions.
	tail string
}

// ParseVersion reads a dotted version of one or more non-negative integers. It
// scans the text once without splitting it: plugins parse versions for every
// package of every set.
func ParseVersion(s string) (Version, error) {
	var v Version
	if s == "" {
		return v, fmt.Errorf("empty version: expected dot-separated numbers such as \"12.4.1\"")
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if s[i] < '0' || s[i] > '9' {
				return Version{}, partError(s, i)
			}
			continue
		}
		if i == start {
			return Version{}, fmt.Errorf("version %q: part %d (%q) is not a number: expected dot-separated numbers such as \"12.4.1\"", s, v.n+1, "")
		}
		n, err := strconv.Atoi(s[start:i])
		if err != nil {
			return Version{}, fmt.Errorf("version %q: part %d (%q) is out of range", s, v.n+1, s[start:i])
		}
		if v.n < inline {
			v.parts[v.n] = n
		} else if v.n == inline {
			v.tail = s[start:]
		}
		v.n++
		start = i + 1
	}
	v.text = s
	return v, nil
}

// partError names the part holding a character that is not a digit.
func partError(s string, at int) error {
	start := strings.LastIndexByte(s[:at], '.') + 1
	end := strings.IndexByte(s[at:], '.')
	if end < 0 {
		end = len(s)
	} else {
		end += at
	}
	n := strings.Count(s[:at], ".")
	return fmt.Errorf("version %q: part %d (%q) is not a number: expected dot-separated numbers such as \"12.4.1\"", s, n+1, s[start:end])
}

// NewVersion builds a version from its parts (at least one, non-negative).
func NewVersion(parts ...int) Version {
	if len(parts) == 0 {
		panic("sdk.NewVersion: no parts")
	}
	buf := make([]byte, 0, 16)
	for i, p := range parts {
		if p < 0 {
			panic(fmt.Sprintf("sdk.NewVersion: negative part %d", p))
		}
		if i > 0 {
			buf = append(buf, '.')
		}
		buf = strconv.AppendInt(buf, int64(p), 10)
	}
	return MustVersion(string(buf))
}

// MustVersion is ParseVersion for versions written in the source code; it panics on error.
func MustVersion(s string) Version {
	v, err := ParseVersion(s)
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
	switch {
	case i < 0 || i >= v.n:
		return 0
	case i < inline:
		return v.parts[i]
	}
	// Parse checked every part of the tail, so Atoi cannot fail here.
	n, _ := strconv.Atoi(strings.Split(v.tail, ".")[i-inline])
	return n
}

// Truncate returns the first n parts as a new Version ("12.4.1" -> "12.4"),
// written canonically ("12.04.1" -> "12.4"), as names built from it expect.
func (v Version) Truncate(n int) Version {
	if n >= v.n {
		return v
	}
	if n < 1 {
		n = 1
	}
	parts := make([]int, n)
	for i := range parts {
		parts[i] = v.Part(i)
	}
	return NewVersion(parts...)
}

// MajorMinor is Truncate(2), the granularity of NVIDIA's compatibility tables.
func (v Version) MajorMinor() Version { return v.Truncate(2) }

// Compare orders versions numerically, part by part; missing parts count as
// 0, so "12.4" == "12.4.0" and "13.3.3.3" < "13.3.3.3.1". Returns -1, 0 or +1.
func (v Version) Compare(o Version) int {
	for i := 0; i < inline; i++ {
		switch {
		case v.parts[i] < o.parts[i]:
			return -1
		case v.parts[i] > o.parts[i]:
			return 1
		}
	}
	if v.tail == "" && o.tail == "" {
		return 0
	}
	for i := inline; i < max(v.n, o.n); i++ {
		a, b := v.Part(i), o.Part(i)
		switch {
		case a < b:
			return -1
		case a > b:
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
		if v.Part(i) != p.Part(i) {
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
	p, err := ParseVersion(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}
