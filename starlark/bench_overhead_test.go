package starlark

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sl "go.starlark.net/starlark"
)

// overheadProgram is a configuration-like loop: comparisons, membership,
// arithmetic, string formatting, method calls on lists, dicts and strings.
const overheadProgram = `
def work():
    out = {}
    names = ["cuda_nvcc", "cuda_cudart", "libcublas", "libcufft", "cudnn"]
    for i in range(20000):
        name = names[i % len(names)]
        if name == "cudnn" or i < 10:
            continue
        key = "%s-%d" % (name, i % 7)
        if key not in out:
            out[key] = []
        out[key].append(i + 1)
        if name.startswith("lib") and len(out[key]) > 3:
            out[key] = out[key][-2:]
    return sorted(out.keys())
RESULT = work()
`

// BenchmarkEvalOverhead compares plain go.starlark.net with this package's
// run (budgets, the rewrite's guards) on the same program.
func BenchmarkEvalOverhead(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			th := &sl.Thread{}
			if _, err := sl.ExecFileOptions(fileOptions, th, "x.star", overheadProgram, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cudapkgs", func(b *testing.B) {
		dir := b.TempDir()
		file := filepath.Join(dir, "cudapkgs.star")
		if err := os.WriteFile(file, []byte(overheadProgram), 0o644); err != nil {
			b.Fatal(err)
		}
		in := interp(b, dir)
		for b.Loop() {
			if _, err := in.EvalConfig(context.Background(), file); err != nil {
				b.Fatal(FormatError(err))
			}
		}
	})
}
