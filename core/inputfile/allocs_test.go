package inputfile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Read fills one buffer sized from the stat, straight from the file: no
// copy buffer per file (io.CopyN's 32 KiB, on every manifest of every load,
// issue 25), and a file of several chunks costs no more allocations than
// a small one.
func TestReadAllocations(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{2, 100 << 10, 3*chunk + 5} {
		data := bytes.Repeat([]byte("x"), size)
		p := filepath.Join(dir, "f.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		k := Kind{Name: "file", Max: 64 << 20}
		allocs := testing.AllocsPerRun(20, func() {
			b, err := Read(context.Background(), p, k)
			if err != nil || !bytes.Equal(b, data) {
				t.Fatalf("size %d: Read = %d bytes, %v", size, len(b), err)
			}
		})
		// 5 on Linux with Go 1.26 (open, stat, the buffer), whatever
		// the size; the copy through io.CopyN took 9, and 15 at 3 MiB.
		if allocs > 6 {
			t.Errorf("size %d: Read made %v allocations, want at most 6", size, allocs)
		}
	}
}
