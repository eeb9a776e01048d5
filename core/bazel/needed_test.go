package bazel

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/archives"
)

func TestNeededLinkopts(t *testing.T) {
	shared := func(p string) archives.Lib { return archives.Lib{Path: p, Linked: true} }
	linux := map[string]bool{"linux-x86_64": true, "linux-sbsa": true}
	for _, tc := range []struct {
		name      string
		platforms map[string]bool
		libs      []archives.Lib
		want      []string
	}{
		{"linked shared libraries, sorted, once", linux,
			[]archives.Lib{shared("lib/libcublasLt.so.13"), shared("lib/libcublas.so.13"), shared("lib64/libcublas.so.13")},
			[]string{"-Wl,--push-state,--no-as-needed", "-l:libcublas.so.13", "-l:libcublasLt.so.13", "-Wl,--pop-state"}},
		{"static and exec-role libraries are not named", linux,
			[]archives.Lib{{Path: "lib/libcublas_static.a", Static: true, Linked: true}, {Path: "lib/libnvvm.so.4"}},
			nil},
		// Bazel passes such a file by path, with no -L for -l: to search.
		{"a name that is not lib*.so*", linux,
			[]archives.Lib{shared("lib/nvblas.so"), shared("lib/libfoo.dylib")},
			nil},
		{"Windows: no GNU ld", map[string]bool{"windows-x86_64": true},
			[]archives.Lib{shared("lib/libcublas.so.13")}, nil},
		{"an archive serving Linux and Windows", map[string]bool{"linux-x86_64": true, "windows-x86_64": true},
			[]archives.Lib{shared("lib/libcublas.so.13")}, nil},
		{"no platform", nil, []archives.Lib{shared("lib/libcublas.so.13")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := neededLinkopts(&archives.Archive{Platforms: tc.platforms}, tc.libs)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("neededLinkopts (-want +got):\n%s", diff)
			}
		})
	}
}
