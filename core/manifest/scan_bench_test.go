package manifest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// sharedTexts reads every manifest of ../shared/manifests.
func sharedTexts(b *testing.B) [][]byte {
	var texts [][]byte
	err := filepath.WalkDir(shared.Manifests(b), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), fileNamePrefix) {
			return err
		}
		data, err := os.ReadFile(path)
		texts = append(texts, data)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return texts
}

// BenchmarkScanText is the duplicate-key and UTF-8 scan alone over every
// manifest of ../shared (docs/benchmarks.md, issue 25).
func BenchmarkScanText(b *testing.B) {
	texts := sharedTexts(b)
	for b.Loop() {
		for _, data := range texts {
			if probs := scanText(&text{data: data}); len(probs) != 0 {
				b.Fatalf("%d problems", len(probs))
			}
		}
	}
}

// BenchmarkPathGrammar is checkRelativePath, checkPathGrammar and
// checkArchiveName over every relative_path of ../shared's manifests.
func BenchmarkPathGrammar(b *testing.B) {
	var paths []string
	for _, data := range sharedTexts(b) {
		for _, line := range strings.Split(string(data), "\n") {
			if _, v, ok := strings.Cut(line, `"relative_path": "`); ok {
				paths = append(paths, strings.TrimSuffix(strings.TrimSpace(v), `",`))
			}
		}
	}
	b.ReportMetric(float64(len(paths)), "paths")
	for b.Loop() {
		for _, p := range paths {
			if checkRelativePath(p) != nil || checkPathGrammar(p) != nil || checkArchiveName(p) != nil {
				b.Fatalf("%q refused", p)
			}
		}
	}
}
