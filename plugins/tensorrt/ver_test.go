package tensorrt

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/core/gpu"
)

func TestVer(t *testing.T) {
	for _, bad := range []string{"", "9.x", "9..1", "-1", "9.1a"} {
		if _, err := parseVer(bad); err == nil {
			t.Errorf("parseVer(%q): no error", bad)
		}
	}
	v := mustVer("8.9.7.29")
	if !v.hasPrefix(mustVer("8.9")) || v.hasPrefix(mustVer("8.8")) || mustVer("8").hasPrefix(v) {
		t.Error("hasPrefix")
	}
	if !mustVer("12.4").less(mustVer("12.10")) || mustVer("12.4").cmp(mustVer("12.4.0")) != 0 || v.trunc(2).String() != "8.9" {
		t.Error("cmp, trunc or String")
	}
}

// TestArchNames keeps the plugin's architecture names equal to the GPU table's.
func TestArchNames(t *testing.T) {
	for _, c := range gpu.Capabilities() {
		v, arch, ok := capability(c.Name)
		if !ok || v.major() != c.Major || v.minor() != c.Minor || arch != c.Arch {
			t.Errorf("capability(%q) = %v, %q, %v; the GPU table says %d.%d %s", c.Name, v, arch, ok, c.Major, c.Minor, c.Arch)
		}
	}
	if _, _, ok := capability("sm_90"); ok {
		t.Error("capability(sm_90): the batch names capabilities as 9.0")
	}
}
