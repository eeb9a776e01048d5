package fixup

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// The SDK states the file model by name, apart from core/file, so that the
// plugin contract depends on nothing of the core; the names must stay the
// same, or a plugin's answer would be refused (or misread) by the host.
func TestFileModelMatchesSDK(t *testing.T) {
	sk, fk := sdk.Kinds(), file.Kinds()
	if len(sk) != len(fk) {
		t.Fatalf("SDK kinds %v, core kinds %v", sk, fk)
	}
	for i := range sk {
		if string(sk[i]) != string(fk[i]) {
			t.Errorf("kind %d: SDK %q, core %q", i, sk[i], fk[i])
		}
	}
	for _, r := range []struct {
		sdk  sdk.Role
		core file.Role
	}{{sdk.Exec, file.Exec}, {sdk.Target, file.Target}, {sdk.Both, file.Both}} {
		if string(r.sdk) != string(r.core) {
			t.Errorf("role: SDK %q, core %q", r.sdk, r.core)
		}
	}
	got := fileOf(sdk.File{Path: "lib/libx.so.1", Kind: sdk.SharedLib, Role: sdk.Target, SONAME: "libx.so.1"})
	if err := file.Check(got); err != nil || got.Kind != file.SharedLib || got.Role != file.Target {
		t.Errorf("fileOf = %+v, %v", got, err)
	}
	if sdk.RoleOf([]sdk.File{{Role: sdk.Exec}, {Role: sdk.Target}}) != sdk.Both || sdk.RoleOf(nil) != "" {
		t.Error("sdk.RoleOf does not say both for split files")
	}
}
