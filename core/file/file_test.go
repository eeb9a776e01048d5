package file

import (
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	for _, ok := range []string{"include", "lib/libcublas.so.12", "include/cccl", "bin/cudafe++", "lib/stubs/libcuda.so", "nvvm/libdevice/libdevice.10.bc"} {
		if err := CheckPath(ok); err != nil {
			t.Errorf("CheckPath(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "/etc/passwd", "../x", "a/../b", "a/./b", ".", "a//b", "a/", "a b", `a"b`, "a:b", "lib/*.so", "a\\b", "ä"} {
		if err := CheckPath(bad); err == nil {
			t.Errorf("CheckPath(%q) accepted", bad)
		}
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		f    File
		want string // "" for accepted
	}{
		{"shared", File{Path: "lib/libx.so.1", Kind: SharedLib, Role: Target, SONAME: "libx.so.1"}, ""},
		{"tool", File{Path: "bin/tool", Kind: Binary, Role: Exec}, ""},
		{"escapes", File{Path: "../etc/passwd", Kind: Data, Role: Target}, `path "../etc/passwd" escapes the archive`},
		{"unsafe", File{Path: "a b", Kind: Data, Role: Target}, `path "a b" has characters that are not safe in a Bazel label`},
		{"kind", File{Path: "lib", Kind: "library", Role: Target}, `file lib has kind "library": expected one of [headers shared_lib static_lib stub_lib binary data]`},
		{"role", File{Path: "lib", Kind: Data, Role: Both}, `file lib has role "both": expected exec or target`},
		{"soname missing", File{Path: "lib/libx.so", Kind: SharedLib, Role: Target}, "file lib/libx.so: a SONAME is given for shared libraries, and only for them"},
		{"soname extra", File{Path: "lib/libx.a", Kind: StaticLib, Role: Target, SONAME: "libx.a"}, "file lib/libx.a: a SONAME is given for shared libraries, and only for them"},
		{"soname path", File{Path: "lib/libx.so", Kind: SharedLib, Role: Target, SONAME: "lib/libx.so"}, `file lib/libx.so: SONAME "lib/libx.so" is not a plain library file name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.f)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check: %v", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRoleOf(t *testing.T) {
	tests := []struct {
		roles []Role
		want  Role
	}{
		{nil, ""},
		{[]Role{Exec, Exec}, Exec},
		{[]Role{Target}, Target},
		{[]Role{Target, Exec}, Both},
	}
	for _, tt := range tests {
		var fs []File
		for _, r := range tt.roles {
			fs = append(fs, File{Role: r})
		}
		if got := RoleOf(fs); got != tt.want {
			t.Errorf("RoleOf(%v) = %q, want %q", tt.roles, got, tt.want)
		}
	}
}
