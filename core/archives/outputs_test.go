package archives

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

func TestOutputs(t *testing.T) {
	tests := []struct {
		name     string
		files    []pkgset.File
		reserved []string
		want     Outputs
	}{
		{name: "empty"},
		{
			name: "every kind",
			files: []pkgset.File{
				{Path: "include", Kind: file.Headers, Role: file.Target},
				{Path: "include/one.h", Kind: file.Headers, Role: file.Target},
				{Path: "lib/libx.so.1", Kind: file.SharedLib, Role: file.Target, SONAME: "libx.so.1"},
				{Path: "lib/libx_static.a", Kind: file.StaticLib, Role: file.Target},
				{Path: "lib/stubs/libdrv.so", Kind: file.StubLib, Role: file.Target},
				{Path: "bin/tool", Kind: file.Binary, Role: file.Exec},
				{Path: "share/tables", Kind: file.Data, Role: file.Exec},
				{Path: "future", Kind: "kind_of_tomorrow", Role: file.Target},
			},
			want: Outputs{HeaderFiles: []string{"include/one.h"}, HeaderDirs: []string{"include"},
				Libs: []Lib{
					{Name: "libx", Path: "lib/libx.so.1", SONAME: "libx.so.1", Linked: true},
					{Name: "libx_static", Path: "lib/libx_static.a", Static: true, Linked: true},
				},
				Stubs: []string{"lib/stubs/libdrv.so"}, Binaries: []string{"bin/tool"}, Data: []string{"future", "share/tables"}},
		},
		{
			// Names are handed out in file order, around the reserved ones:
			// both emitters must name a library alike.
			name: "names",
			files: []pkgset.File{
				{Path: "lib/libx.a", Kind: file.StaticLib, Role: file.Target},
				{Path: "lib/libx.so", Kind: file.SharedLib, Role: file.Target},
				{Path: "lib64/libx.so", Kind: file.SharedLib, Role: file.Exec},
				{Path: "nvvm/lib/headers.so", Kind: file.SharedLib, Role: file.Exec, SONAME: "headers.so"},
			},
			reserved: []string{"headers"},
			want: Outputs{Libs: []Lib{
				{Name: "libx", Path: "lib/libx.a", Static: true, Linked: true},
				{Name: "libx_shared", Path: "lib/libx.so", Linked: true},
				{Name: "libx_shared2", Path: "lib64/libx.so"},
				{Name: "headers_shared", Path: "nvvm/lib/headers.so", SONAME: "headers.so"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Archive{Files: map[pkgset.File]bool{}}
			for _, f := range tt.files {
				a.Files[f] = true
			}
			got := a.Outputs(tt.reserved...)
			if d := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("Outputs (-want +got):\n%s", d)
			}
		})
	}
}
