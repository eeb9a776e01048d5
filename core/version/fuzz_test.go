package version

import (
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// refGrammar is the documented version grammar (docs/manifests.md):
// dot-separated decimal numbers. Written here independently of Parse.
var refGrammar = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)

// refParts reads the parts of a version as exact integers.
func refParts(s string) []*big.Int {
	var out []*big.Int
	for _, p := range strings.Split(s, ".") {
		n, _ := new(big.Int).SetString(p, 10)
		out = append(out, n)
	}
	return out
}

// refCompare compares numerically, part by part, missing parts as 0.
func refCompare(a, b string) int {
	pa, pb := refParts(a), refParts(b)
	zero := new(big.Int)
	for i := 0; i < max(len(pa), len(pb)); i++ {
		x, y := zero, zero
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if c := x.Cmp(y); c != 0 {
			return c
		}
	}
	return 0
}

// fitsInt reports whether every part of s fits an int (what Parse accepts).
func fitsInt(s string) bool {
	lim := big.NewInt(int64(^uint(0) >> 1))
	for _, p := range refParts(s) {
		if p.Cmp(lim) > 0 {
			return false
		}
	}
	return true
}

var versionRE = regexp.MustCompile(`"version": *"([^"]*)"`)

// seedVersions are versions as NVIDIA writes them, taken from the real
// manifests when ../shared is there, and a fixed list otherwise.
func seedVersions(f *testing.F) []string {
	vs := []string{"12", "12.4", "12.4.0", "12.4.127", "9.5.1.17", "2.0.2.1", "1.21018621", "13.3.3.3.1",
		"13.3.3.3", "012.04", "0", "1.2.3.4.5.6.7.8", "11.8.89", "550.54.15"}
	dir := shared.Find()
	if dir == "" {
		f.Log("../shared is missing: fixed seeds only")
		return vs
	}
	files, _ := filepath.Glob(filepath.Join(dir, "manifests", "*", "redistrib_*.json"))
	for _, file := range files {
		vs = append(vs, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "redistrib_"), ".json"))
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range versionRE.FindAllSubmatch(data, -1) {
			vs = append(vs, string(m[1]))
		}
	}
	return vs
}

// FuzzVersion checks parsing and ordering: what Parse accepts is exactly
// the documented grammar (parts that fit an int), String gives the text back
// and parses to the same value, Compare agrees with an exact numeric
// comparison and is a total order (antisymmetric, transitive on the three
// inputs, consistent with Equal), and HasPrefix agrees with part-by-part
// equality.
func FuzzVersion(f *testing.F) {
	vs := slices.Compact(slices.Sorted(slices.Values(seedVersions(f))))
	for i, v := range vs {
		f.Add(v, vs[(i+1)%len(vs)], vs[(i+7)%len(vs)])
	}
	f.Add("12.4", "12.4.0", "12.4.0.0.0")
	f.Add("13.3.3.3", "13.3.3.3.1", "13.3.3.3.0")
	f.Add("1.x", "", "9223372036854775808")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var parsed []Version
		var texts []string
		for _, s := range []string{a, b, c} {
			v, err := Parse(s)
			want := refGrammar.MatchString(s) && fitsInt(s)
			if (err == nil) != want {
				t.Fatalf("Parse(%q) error = %v, grammar says accepted = %v", s, err, want)
			}
			if err != nil {
				if strings.TrimSpace(err.Error()) == "" {
					t.Fatalf("Parse(%q): empty error", s)
				}
				continue
			}
			if v.String() != s {
				t.Fatalf("Parse(%q).String() = %q", s, v.String())
			}
			again, err := Parse(v.String())
			if err != nil || again != v {
				t.Fatalf("Parse(Parse(%q).String()) = %#v, %v; want %#v", s, again, err, v)
			}
			if v.Parts() != strings.Count(s, ".")+1 || v.IsZero() {
				t.Fatalf("Parse(%q).Parts() = %d", s, v.Parts())
			}
			if v.Compare(v) != 0 || !v.Equal(v) || !v.HasPrefix(v) {
				t.Fatalf("%q is not equal to itself or not its own prefix", s)
			}
			parsed = append(parsed, v)
			texts = append(texts, s)
		}
		for i, x := range parsed {
			for j, y := range parsed {
				c := x.Compare(y)
				if c < -1 || c > 1 {
					t.Fatalf("Compare(%q, %q) = %d", texts[i], texts[j], c)
				}
				if want := refCompare(texts[i], texts[j]); c != want {
					t.Fatalf("Compare(%q, %q) = %d, numerically %d", texts[i], texts[j], c, want)
				}
				if y.Compare(x) != -c {
					t.Fatalf("Compare not antisymmetric on %q, %q", texts[i], texts[j])
				}
				if x.Equal(y) != (c == 0) || x.Less(y) != (c < 0) {
					t.Fatalf("Equal/Less disagree with Compare on %q, %q", texts[i], texts[j])
				}
				// HasPrefix: the first y.Parts() parts of x equal y's.
				pre := true
				px, py := refParts(texts[i]), refParts(texts[j])
				for k := range py {
					xk := big.NewInt(0)
					if k < len(px) {
						xk = px[k]
					}
					if xk.Cmp(py[k]) != 0 {
						pre = false
						break
					}
				}
				if x.HasPrefix(y) != pre {
					t.Fatalf("HasPrefix(%q, %q) = %v, want %v", texts[i], texts[j], x.HasPrefix(y), pre)
				}
				if pre && !x.Truncate(y.Parts()).Equal(y) && y.Parts() <= x.Parts() {
					t.Fatalf("%q has prefix %q but Truncate(%d) = %q", texts[i], texts[j], y.Parts(), x.Truncate(y.Parts()))
				}
				for k, z := range parsed {
					if c <= 0 && y.Compare(z) <= 0 && x.Compare(z) > 0 {
						t.Fatalf("Compare not transitive: %q <= %q <= %q but %q > %q", texts[i], texts[j], texts[k], texts[i], texts[k])
					}
					if c == 0 && y.Compare(z) == 0 && x.Compare(z) != 0 {
						t.Fatalf("Equal not transitive on %q, %q, %q", texts[i], texts[j], texts[k])
					}
				}
			}
		}
	})
}
