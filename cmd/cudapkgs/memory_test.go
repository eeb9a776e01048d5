package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/allocs"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// The reproduction through the command line: an 8 GiB list in
// cudapkgs.star ends at once with the file and line, under the default
// budget and under --starlark-memory, having allocated little.
func TestStarlarkMemoryBudget(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "cudapkgs.star"), []byte("x = [0] * (1 << 29)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--starlark-memory", "64MiB"}} {
		var code int
		var stderr string
		n := allocs.During(func() {
			code, _, stderr = runCLI(t, append([]string{"eval", "--manifests", shared.Manifests(t), "--workspace", ws}, extra...)...)
		})
		if code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s", extra, code, stderr)
		}
		wantOutput(t, "stderr", stderr, "cudapkgs.star:1:9: memory budget exhausted: repeating a list 536870912 times would allocate 8.0 GiB", "--starlark-memory")
		// Refused before it is allocated: the whole run (about 20 MiB,
		// reading the manifests) takes far less than the 8 GiB.
		if n > 128<<20 {
			t.Errorf("%v: allocated %d MiB", extra, n>>20)
		}
	}
	code, _, stderr := runCLI(t, "eval", "--manifests", shared.Manifests(t), "--workspace", ws, "--starlark-memory", "lots")
	if code != 2 {
		t.Errorf("bad --starlark-memory: exit %d\n%s", code, stderr)
	}
	wantOutput(t, "stderr", stderr, `--starlark-memory "lots": expected a positive size`)
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "512MiB": 512 << 20, "64 KiB": 64 << 10, "1000": 1000, "10B": 10} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1MiB", "1TB", "x", "99999999999GiB"} {
		if _, err := parseByteSize(bad); err == nil {
			t.Errorf("parseByteSize(%q) accepted", bad)
		}
	}
}

// The bytes of manifests one run reads are bounded, every source together
// (issue 24: 40 manifests of under 64 MiB each took 4.35 GB): under a
// 1 MiB limit the snapshot's 1.8 MB are refused, naming the limit and the
// flag that raises it.
func TestMaxManifestBytes(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // no download cache: the snapshot alone
	ws := t.TempDir()
	code, _, stderr := runCLI(t, "eval", "--workspace", ws, "--max-manifest-bytes", "1MiB")
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, stderr)
	}
	wantOutput(t, "stderr", stderr, "<snapshot>/", "over the 1 MiB limit for all manifests together: refused (raise it with --max-manifest-bytes)")
	code, _, stderr = runCLI(t, "eval", "--workspace", ws, "--max-manifest-bytes", "lots")
	if code != 2 {
		t.Errorf("bad --max-manifest-bytes: exit %d\n%s", code, stderr)
	}
	wantOutput(t, "stderr", stderr, `--max-manifest-bytes "lots": expected a positive size`)
}
