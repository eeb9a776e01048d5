package file

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzCheckPath checks that no path CheckPath accepts escapes: joined to a
// root it stays under the root, it has no ".." segment, it is not absolute,
// and it is clean (the same after filepath.Clean).
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"include/cuda.h", "lib/libcudart.so.12", "lib/stubs/libcuda.so", "bin/nvcc",
		"targets/x86_64-linux/include/crt/host_config.h", "nvvm/libdevice/libdevice.10.bc", "libcudart.so.12.4.127",
		"include/cccl/cuda/std/__cccl/version.h", "..", "../x", "a/../b", "./a", "a/.", "/abs", "a//b", "a/", "",
		`a\b`, "a:b", "a b", "*.h", "...", ".hidden", "a/..b", "C:/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if CheckPath(p) != nil {
			return
		}
		const root = "/archive/root"
		j := filepath.Join(root, filepath.FromSlash(p))
		if !strings.HasPrefix(j, root+string(filepath.Separator)) {
			t.Fatalf("CheckPath accepts %q, which joined to %s is %s", p, root, j)
		}
		if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
			t.Fatalf("CheckPath accepts the absolute path %q", p)
		}
		if slices.Contains(strings.Split(p, "/"), "..") || slices.Contains(strings.Split(filepath.FromSlash(p), string(filepath.Separator)), "..") {
			t.Fatalf("CheckPath accepts %q, which has a \"..\" segment", p)
		}
		if filepath.ToSlash(filepath.Clean(filepath.FromSlash(p))) != p {
			t.Fatalf("CheckPath accepts %q, which is not clean (%q)", p, filepath.Clean(p))
		}
		for _, r := range p {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_.+-/", r)) {
				t.Fatalf("CheckPath accepts %q, which holds %q, unsafe in a Bazel label", p, r)
			}
		}
	})
}
