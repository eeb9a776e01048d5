// Package sdktest runs a plugin in-process over real gRPC, for plugin tests,
// and gives it golden tests from batch fixtures in its testdata.
package sdktest

import (
	"context"
	"testing"

	"github.com/hashicorp/go-plugin"

	"github.com/cudapkgs/cudapkgs/internal/pluginhost"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Client is the host's side of a served plugin: what the host asks it.
type Client interface {
	Describe(ctx context.Context) (sdk.Description, error)
	Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error)
}

// Run serves f over real gRPC inside the test process (go-plugin's test
// connection: a real gRPC server and client on a local listener) and returns
// the host's client. The connection closes when the test ends.
func Run(t testing.TB, f sdk.Fixer) Client {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, pluginhost.Loopback(f))
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(sdk.PluginName)
	if err != nil {
		t.Fatalf("dispensing %s: %v", sdk.PluginName, err)
	}
	return raw.(*pluginhost.Client)
}
