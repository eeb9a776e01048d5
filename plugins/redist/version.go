package redist

import (
	"fmt"
	"strconv"
	"strings"
)

// ver is a dotted version ("12.4.5.8", "580.65.06") as a list of numbers.
// The plugin keeps its own small type rather than importing the core's, so
// that it is written exactly as a third party's plugin would be: against the
// SDK only.
type ver []int

func parseVer(s string) (ver, error) {
	if s == "" {
		return nil, fmt.Errorf("empty version")
	}
	var v ver
	for _, f := range strings.Split(s, ".") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("version %q: %q is not a number", s, f)
		}
		v = append(v, n)
	}
	return v, nil
}

// part is the i-th number, 0 when the version has fewer.
func (v ver) part(i int) int {
	if i < len(v) {
		return v[i]
	}
	return 0
}

func (v ver) major() int { return v.part(0) }

// cmpPrefix compares v, cut to as many parts as prefix has, with prefix.
func (v ver) cmpPrefix(prefix string) int {
	p, err := parseVer(prefix)
	if err != nil {
		panic(fmt.Sprintf("redist: bad version bound in the tables: %v", err))
	}
	for i := range p {
		switch a, b := v.part(i), p[i]; {
		case a < b:
			return -1
		case a > b:
			return 1
		}
	}
	return 0
}

// within reports whether v lies between since and until, both inclusive
// prefixes ("12.0" ≤ v, v ≤ "12" meaning any 12.x); empty bounds are open.
func (v ver) within(since, until string) bool {
	if since != "" && v.cmpPrefix(since) < 0 {
		return false
	}
	if until != "" && v.cmpPrefix(until) > 0 {
		return false
	}
	return true
}
