package pluginpb_test

import (
	"testing"

	pb "github.com/cudapkgs/cudapkgs/internal/pluginpb"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Every kind and role of the SDK has a wire value and reads back as itself;
// anything else is unspecified on the wire and "" read back.
func TestNames(t *testing.T) {
	for _, k := range sdk.Kinds() {
		w := pb.KindFromName(string(k))
		if w == pb.Kind_KIND_UNSPECIFIED || w.Name() != string(k) {
			t.Errorf("kind %s: wire %v, read back %q", k, w, w.Name())
		}
	}
	for _, r := range []sdk.Role{sdk.Exec, sdk.Target} {
		w := pb.RoleFromName(string(r))
		if w == pb.Role_ROLE_UNSPECIFIED || w.Name() != string(r) {
			t.Errorf("role %s: wire %v, read back %q", r, w, w.Name())
		}
	}
	if pb.KindFromName("both") != pb.Kind_KIND_UNSPECIFIED || pb.RoleFromName(string(sdk.Both)) != pb.Role_ROLE_UNSPECIFIED ||
		pb.Kind(99).Name() != "" || pb.Role(99).Name() != "" {
		t.Error("an unknown kind or role has a name")
	}
}
