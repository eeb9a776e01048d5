package localcuda_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/internal/allocs"
)

// A fuzzed tree is written as a txtar-like text: "-- name --" lines start
// entries, the lines up to the next one are the content. A name ending in
// '/' is a folder; content starting "-> " a symbolic link (an absolute
// target is taken inside the tree, so a fuzzed link reads nothing of the
// host's).
func encodeTree(files map[string]string) string {
	var b strings.Builder
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		b.WriteString("-- " + name + " --\n" + files[name] + "\n")
	}
	return b.String()
}

func writeTree(t *testing.T, root, text string) {
	const maxEntries, maxContent = 48, 4 << 10
	var name string
	var body []string
	n := 0
	flush := func() {
		if name == "" || n >= maxEntries {
			return
		}
		n++
		content := strings.Join(body, "\n")
		if len(content) > maxContent {
			content = content[:maxContent]
		}
		rel := strings.TrimSuffix(name, "/")
		if !filepath.IsLocal(rel) || strings.ContainsRune(rel, 0) {
			return
		}
		p := filepath.Join(root, rel)
		if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
			return // a file is in the way: skip the entry
		}
		switch {
		case strings.HasSuffix(name, "/"):
			_ = os.MkdirAll(p, 0o755)
		case strings.HasPrefix(content, "-> "):
			target := strings.TrimPrefix(content, "-> ")
			if filepath.IsAbs(target) {
				target = filepath.Join(root, target)
			}
			if !strings.ContainsRune(target, 0) {
				_ = os.Symlink(target, p)
			}
		default:
			_ = os.WriteFile(p, []byte(content), 0o644)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "-- "); ok && strings.HasSuffix(rest, " --") {
			flush()
			name, body = strings.TrimSuffix(rest, " --"), nil
			continue
		}
		body = append(body, line)
	}
	flush()
}

// maxDetectAlloc bounds what Detect allocates for a fuzzed tree.
const maxDetectAlloc = 16 << 20

// FuzzDetect runs Detect on trees built from fuzz text, seeded with the
// layouts the tests build (NVIDIA's runfile, Debian's split layout, unpacked
// redist archives): it must end quickly with an install or an error, never
// panic, and what it returns names only real components and valid versions.
func FuzzDetect(f *testing.F) {
	for _, triple := range []string{"x86_64-linux", "sbsa-linux", "aarch64-linux", "ppc64le-linux"} {
		f.Add(encodeTree(cudaHome(triple, nil)))
	}
	f.Add(encodeTree(cudaHome("x86_64-linux", map[string]string{"version.json": "{"})))
	for _, triple := range []string{"x86_64-linux-gnu", "aarch64-linux-gnu", "powerpc64le-linux-gnu"} {
		f.Add(encodeTree(debian(triple, nil)))
	}
	for _, platform := range []string{"linux-x86_64", "linux-sbsa", "linux-aarch64"} {
		f.Add(encodeTree(redist(platform, nil)))
	}
	f.Add(encodeTree(map[string]string{"bin/ls": "", "include/stdio.h": "", "lib/x86_64-linux-gnu/libc.so.6": ""}))
	f.Add(encodeTree(map[string]string{"version.json": "-> version.json", "include/cuda.h": "-> /dev/zero"}))
	base, err := os.MkdirTemp("", "fuzz-localcuda-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(base) })
	f.Fuzz(func(t *testing.T, text string) {
		root := filepath.Join(base, "t")
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		writeTree(t, root, text)
		var in *localcuda.Install
		var err error
		n := allocs.During(func() { in, err = localcuda.Detect(root, hints...) })
		// A tree of at most 48 entries of 4 KiB: what Detect reads and
		// builds of it is small, however its links and folders are made.
		if n > maxDetectAlloc {
			t.Fatalf("Detect allocated %d KiB, over %d KiB", n>>10, maxDetectAlloc>>10)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if in.Root != root || in.Layout == "" {
			t.Fatalf("Detect = root %q, layout %q", in.Root, in.Layout)
		}
		for comp, v := range in.Components {
			if v.IsZero() || comp == "" {
				t.Fatalf("component %q with version %q", comp, v)
			}
			if in.From[comp] == "" {
				t.Fatalf("component %q has no source", comp)
			}
		}
		for _, h := range hints {
			_, _ = in.Find(h.Component, h.Rel)
		}
	})
}
