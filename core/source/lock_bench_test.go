package source

import (
	"fmt"
	"strings"
	"testing"
)

// lockOf is a well-formed lock of n entries, the shape issue 24 found
// quadratic (an 80,000-entry lock took 249 s).
func lockOf(n int) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"version\": 1,\n  \"manifests\": {\n")
	for i := range n {
		fmt.Fprintf(&b, "    \"cuda/redistrib_%d.%d.%d.json\": {\"sha256\": \"%064x\", \"size\": %d}", i/10000+1, i/100%100, i%100, i, i+1)
		if i < n-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	return []byte(b.String())
}

// Lock parsing is linear in the input: docs/benchmarks.md has the figures
// at n, 4n and 16n.
func BenchmarkParseLock(b *testing.B) {
	for _, n := range []int{5000, 20000, 80000} {
		data := lockOf(n)
		if l, err := ParseLock("cudapkgs.lock", data); err != nil || len(l.Manifests) != n {
			b.Fatalf("n=%d: %v", n, err)
		}
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseLock("cudapkgs.lock", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
