package fixup

import "testing"

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
