package manifest

import (
	"fmt"
	"strings"
	"testing"
)

// unusableEntries is a manifest of n packages that each fail on their own
// (a version that is not one), so each is kept as unusable with a located
// reason: the shape issue 24 found quadratic.
func unusableEntries(n int) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"release_date\": \"2026-01-01\",\n")
	for i := range n {
		fmt.Fprintf(&b, "  \"pkg%d\": {\n    \"name\": \"p\",\n    \"version\": \"1.%d.x\",\n    \"linux-x86_64\": {\n      \"relative_path\": \"p/p-%d-archive.tar.xz\",\n      \"sha256\": \"%064x\",\n      \"size\": \"10\"\n    }\n  }", i, i, i, i)
		if i < n-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// manyPackages is a well-formed manifest of n packages, with the last
// package's name given twice.
func manyPackages(n int, dup bool) []byte {
	var b strings.Builder
	b.WriteString("{\n")
	for i := range n {
		name := i
		if dup && i == n-1 {
			name = 0
		}
		fmt.Fprintf(&b, "  \"pkg%d\": {\"name\": \"p\", \"version\": \"1.0.%d\", \"linux-x86_64\": {\"relative_path\": \"p/p-%d-archive.tar.xz\", \"sha256\": \"%064x\", \"size\": \"10\"}}", name, i, i, i)
		if i < n-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// However many entries are unusable, positions cost one pass over the text
// for lines and one for keys: before, each reason re-walked the file from
// the start (1,000 entries took 10.7 s, 16,000 more than 300 s).
func TestUnusableEntriesLocatedInOnePass(t *testing.T) {
	for _, n := range []int{1, 50, 2000} {
		p := parser{file: "m.json", text: text{data: unusableEntries(n)}}
		m, err := p.parse("thing", "1.0")
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Packages) != n || len(m.Warnings) != n {
			t.Fatalf("n=%d: %d packages, %d warnings", n, len(m.Packages), len(m.Warnings))
		}
		if p.walks != 2 {
			t.Errorf("n=%d: %d passes over the text for positions, want 2 (one for lines, one for keys)", n, p.walks)
		}
		// The reasons are located where the old walk located them: the
		// last entry's version key, its third line.
		lastPkg, _ := m.Package(fmt.Sprintf("pkg%d", n-1))
		last := lastPkg.Problems
		want := fmt.Sprintf(`$.pkg%d.version: `, n-1)
		if len(last) != 1 || !strings.HasPrefix(last[0], want) {
			t.Errorf("n=%d: last package's problems %q, want %s...", n, last, want)
		}
		line, col := p.locate([]string{fmt.Sprintf("pkg%d", n-1), "version"})
		if wantLine := 9*(n-1) + 5; line != wantLine || col != 5 {
			t.Errorf("n=%d: version of the last entry at %d:%d, want %d:5", n, line, col, wantLine)
		}
	}
}

// The position index answers as the token walk did: keys, list elements,
// the first of two equal keys, and nothing for a path the text lacks.
func TestLocate(t *testing.T) {
	data := []byte("{\n \"a\": {\"b\": [1, {\"c\": 2}, [3]]},\n \"a\": 5,\n \"d\": \"x\"\n}")
	for _, tt := range []struct {
		keys      []string
		line, col int
	}{
		{[]string{"a"}, 2, 2},
		{[]string{"a", "b"}, 2, 8},
		{[]string{"a", "b", "[0]"}, 2, 14},
		{[]string{"a", "b", "[1]", "c"}, 2, 18},
		{[]string{"a", "b", "[2]", "[0]"}, 2, 28},
		{[]string{"d"}, 4, 2},
		{[]string{"a", "x"}, 0, 0},
		{[]string{"b"}, 0, 0},
		{nil, 0, 0},
	} {
		tx := text{data: data}
		if l, c := tx.locate(tt.keys); l != tt.line || c != tt.col {
			t.Errorf("locate(%q) = %d:%d, want %d:%d", tt.keys, l, c, tt.line, tt.col)
		}
	}
	tx := text{data: data}
	for off, want := range map[int][2]int{0: {1, 1}, 1: {1, 2}, 2: {2, 1}, 3: {2, 2}, len(data): {5, 2}, len(data) + 9: {5, 2}} {
		if l, c := tx.at(off); l != want[0] || c != want[1] {
			t.Errorf("at(%d) = %d:%d, want %d:%d", off, l, c, want[0], want[1])
		}
	}
}

// A duplicate among more keys than the list search handles is found by
// the map, at its place, first place named.
func TestDuplicateAmongManyKeys(t *testing.T) {
	for _, n := range []int{manyKeys - 1, manyKeys + 1, 5000} {
		m, err := Parse("m.json", "thing", "1.0", manyPackages(n, true))
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		p, _ := m.Package("pkg0")
		want := fmt.Sprintf(`$.pkg0: duplicate key "pkg0" at %d:3, first at 2:3: expected each key once`, n+1)
		if len(p.Problems) != 1 || p.Problems[0] != want {
			t.Errorf("n=%d: pkg0's problems %q, want %q", n, p.Problems, want)
		}
		if _, err := Parse("m.json", "thing", "1.0", manyPackages(n, false)); err != nil {
			t.Errorf("n=%d without a duplicate: %v", n, err)
		}
	}
}

// Parsing is linear in the input: docs/benchmarks.md has the figures at n,
// 4n and 16n.
func BenchmarkParseUnusableEntries(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		data := unusableEntries(n)
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse("m.json", "thing", "1.0", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseManyPackages(b *testing.B) {
	for _, n := range []int{10000, 40000, 160000} {
		data := manyPackages(n, false)
		b.Run(fmt.Sprintf("packages=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse("m.json", "thing", "1.0", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
