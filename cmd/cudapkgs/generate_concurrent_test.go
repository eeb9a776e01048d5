package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// TestGenerateConcurrent runs two generates with different CUDA versions
// into one --out at once (which both exited 0 with one run's stamp and 116
// of its files deleted by the other): both succeed, and the stamp lists
// exactly the generated files in --out, with their bytes.
func TestGenerateConcurrent(t *testing.T) {
	m := shared.Manifests(t)
	for round := 0; round < 2; round++ {
		out := filepath.Join(t.TempDir(), "cuda")
		var wg sync.WaitGroup
		errs := make([]string, 2)
		codes := make([]int, 2)
		for i, cuda := range []string{"12.4.1", "12.6.3,13.0.0"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i], _, errs[i] = runCLI(t, generateArgs(m, out, "--cuda", cuda)...)
			}()
		}
		wg.Wait()
		for i := range codes {
			if codes[i] != 0 {
				t.Fatalf("round %d, generate %d: exit %d:\n%s", round, i, codes[i], errs[i])
			}
		}
		stamp, err := os.ReadFile(filepath.Join(out, outdir.StampFile))
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]string{}
		for _, l := range strings.Split(string(stamp), "\n") {
			rest, ok := strings.CutPrefix(l, "out ")
			if !ok {
				continue
			}
			sum, q, _ := strings.Cut(rest, " ")
			p, err := strconv.Unquote(q)
			if err != nil {
				t.Fatal(err)
			}
			listed[p] = sum
		}
		tree := readTree(t, out)
		for p, b := range tree {
			if p == outdir.StampFile || !strings.HasPrefix(string(b), bazel.Header+"\n") {
				continue
			}
			sum := sha256.Sum256(b)
			if listed[p] != hex.EncodeToString(sum[:]) {
				t.Errorf("round %d: %s is not the stamp's run's", round, p)
			}
			delete(listed, p)
		}
		for p := range listed {
			t.Errorf("round %d: %s is in the stamp, not in --out", round, p)
		}
	}
}
