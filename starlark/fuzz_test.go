package starlark

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Budgets for fuzzing: small, so that every input ends quickly.
const (
	fuzzSteps  = 20_000
	fuzzMemory = 8 << 20
	// fuzzHang ends an evaluation the budgets did not stop: a backstop
	// against a hang, far past what the budgets let any input run.
	fuzzHang = time.Minute
)

var codeBlock = regexp.MustCompile("(?s)```python\n(.*?)```")

// starSeeds are the configurations of docs/starlark.md and starlark/testdata.
func starSeeds(f *testing.F) {
	if doc, err := os.ReadFile(filepath.Join("..", "docs", "starlark.md")); err == nil {
		for _, m := range codeBlock.FindAllSubmatch(doc, -1) {
			f.Add(string(m[1]), "")
		}
	}
	policy, _ := os.ReadFile(filepath.Join("testdata", "ws", "tools", "cuda", "policy.star"))
	_ = filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".star") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		main := string(data)
		f.Add(main, "")
		if strings.Contains(main, "//tools/cuda:policy.star") {
			f.Add(strings.ReplaceAll(main, "//tools/cuda:policy.star", "lib.star"), string(policy))
		}
		return nil
	})
	f.Add(`load("lib.star", "X")`+"\ncuda_versions(X)\n", `X = ["12.4"]`)
	f.Add("x = [0] * (1 << 29)\n", "")
	f.Add("def f():\n    for i in range(1 << 40):\n        pass\nf()\n", "")
	f.Add("s = \"a\"\nfor i in range(64):\n    s += s\n", "")
	f.Add("l = []\nfor i in range(1 << 30):\n    l.append([i])\n", "")
	// The bombs of issue 24: work inside builtins, printing deep values,
	// allocations the separator or the format string do not show, long
	// integers.
	f.Add("def f():\n    x = []\n    for i in range(1000000):\n        x = [x]\n    return str(x)\nf()\n", "")
	f.Add("x = list(range(100000))\nfor i in range(1000):\n    sorted(x)\n", "")
	f.Add("x = list(range(100000))\nfor i in range(1000):\n    if -1 in x:\n        pass\n", "")
	f.Add("s = \"a\" * 1000000\nfor i in range(1000):\n    s.count(\"b\")\n", "")
	f.Add("s = \"a\" * 100000\nt = \"\".join([s] * 100000)\n", "")
	f.Add("s = \"\\x00\" * 1000000\nt = \"%r\" % s\n", "")
	f.Add("s = \"a\" * 1000000\nt = s.split(\"a\")\n", "")
	f.Add("x = int(\"9\" * 400000)\n", "")
	f.Add("def f():\n    x = 3\n    for i in range(40):\n        x = x * x\nf()\n", "")
	f.Add("a = [1]\na.append(a)\nd = {\"a\": a}\nd[\"d\"] = d\nprint(a, d)\nfail(\"%s %r {}\".format(a) % (d, a))\n", "")
}

// FuzzEvalConfig evaluates a configuration (cudapkgs.star, which may load
// lib.star) under small step and memory budgets: it must end, with an error
// or not, without a panic and quickly.
func FuzzEvalConfig(f *testing.F) {
	starSeeds(f)
	ws, err := os.MkdirTemp("", "fuzz-star-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(ws) })
	in, err := NewInterp(ws)
	if err != nil {
		f.Fatal(err)
	}
	in.MaxSteps = fuzzSteps
	in.MaxMemory = fuzzMemory
	main, lib := filepath.Join(ws, DefaultConfigFile), filepath.Join(ws, "lib.star")
	f.Fuzz(func(t *testing.T, mainSrc, libSrc string) {
		if err := os.WriteFile(main, []byte(mainSrc), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lib, []byte(libSrc), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeoutCause(context.Background(), fuzzHang, errFuzzTimeout)
		defer cancel()
		file, err := in.EvalConfig(ctx, main)
		if ctx.Err() != nil {
			t.Fatalf("the budgets did not stop the evaluation (error %v)", err)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		// What was accepted can be read without a panic.
		_ = file.Options()
		_ = file.Name()
	})
}

var errFuzzTimeout = fuzzTimeoutError{}

type fuzzTimeoutError struct{}

func (fuzzTimeoutError) Error() string { return "fuzz: evaluation ran past the deadline" }
