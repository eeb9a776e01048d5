package cudnn

import (
	"fmt"
	"strconv"
	"strings"
)

// ver is a dotted version ("9.12.0.46", "12.4", "8.6") as its numbers. The
// plugin keeps its own small type rather than importing the core's, so that
// it is written against the SDK only, as a third party's plugin would be (the
// redist plugin does the same).
type ver []int

func parseVer(s string) (ver, error) {
	if s == "" {
		return nil, fmt.Errorf("empty version")
	}
	var v ver
	for _, f := range strings.Split(s, ".") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 || strings.TrimLeft(f, "0123456789") != "" {
			return nil, fmt.Errorf("version %q: %q is not a number", s, f)
		}
		v = append(v, n)
	}
	return v, nil
}

// mustVer is parseVer for versions written in the tables.
func mustVer(s string) ver {
	v, err := parseVer(s)
	if err != nil {
		panic(err)
	}
	return v
}

// part is the i-th number, 0 when the version has fewer.
func (v ver) part(i int) int {
	if i < len(v) {
		return v[i]
	}
	return 0
}

func (v ver) major() int { return v.part(0) }
func (v ver) minor() int { return v.part(1) }

// cmp orders versions numerically; missing numbers count as 0.
func (v ver) cmp(o ver) int {
	for i := 0; i < max(len(v), len(o)); i++ {
		if a, b := v.part(i), o.part(i); a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (v ver) less(o ver) bool { return v.cmp(o) < 0 }

// hasPrefix reports whether v starts with the numbers of p: 8.9.7 has 8.9.
func (v ver) hasPrefix(p ver) bool {
	if len(p) > len(v) {
		return false
	}
	for i := range p {
		if v[i] != p[i] {
			return false
		}
	}
	return true
}

// trunc keeps the first n numbers: 12.4.1 -> 12.4.
func (v ver) trunc(n int) ver { return v[:min(n, len(v))] }

func (v ver) String() string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ".")
}

func (v ver) isZero() bool { return len(v) == 0 }
func (v ver) parts() int   { return len(v) }

// capability reads a capability name ("8.6", "9.0a", "10.0f") as its numeric
// major.minor and the architecture's name.
func capability(name string) (ver, string, bool) {
	v, err := parseVer(strings.TrimRight(name, "abcdefghijklmnopqrstuvwxyz"))
	if err != nil || len(v) != 2 {
		return nil, "", false
	}
	return v, archName(v), true
}

// archName names the GPU architecture of a compute capability.
func archName(c ver) string {
	switch m := c.major(); {
	case m == 3:
		return "Kepler"
	case m == 5:
		return "Maxwell"
	case m == 6:
		return "Pascal"
	case m == 7 && c.minor() < 5:
		return "Volta"
	case m == 7:
		return "Turing"
	case m == 8 && c.minor() == 9:
		return "Ada"
	case m == 8:
		return "Ampere"
	case m == 9:
		return "Hopper"
	case m >= 10 && m <= 12:
		return "Blackwell"
	}
	return "unknown architecture"
}
