// Package sdktest runs a plugin in-process over real gRPC, for plugin tests.
package sdktest

import (
	"testing"

	"github.com/hashicorp/go-plugin"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Run serves f over real gRPC inside the test process (go-plugin's test
// connection: a real gRPC server and client on a local listener) and returns
// the host's client. The connection closes when the test ends.
func Run(t testing.TB, f sdk.Fixer) *sdk.Client {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, sdk.PluginSet(f))
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(sdk.PluginName)
	if err != nil {
		t.Fatalf("dispensing %s: %v", sdk.PluginName, err)
	}
	return raw.(*sdk.Client)
}
