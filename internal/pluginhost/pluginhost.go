// Package pluginhost is the host's side of the plugin protocol: the gRPC
// client a host dispenses, and its half of the conversion between the
// SDK's types and the wire. Plugin authors never call it: the SDK
// (plugins/sdk) is their side, and keeps only what they use.
package pluginhost

import (
	"context"
	"fmt"
	"regexp"
	"strconv"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "github.com/cudapkgs/cudapkgs/internal/pluginpb"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// PluginSet is the go-plugin plugin map a host dispenses its Client from.
func PluginSet() plugin.PluginSet {
	return plugin.PluginSet{sdk.PluginName: &clientPlugin{}}
}

// Loopback is the plugin map of a host and f in one process, for tests: f
// served as a plugin serves it, the host's Client to it.
func Loopback(f sdk.Fixer) plugin.PluginSet {
	return plugin.PluginSet{sdk.PluginName: &clientPlugin{server: sdk.PluginSet(f)[sdk.PluginName].(plugin.GRPCPlugin)}}
}

type clientPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	server plugin.GRPCPlugin // nil: a host's only
}

func (p *clientPlugin) GRPCServer(b *plugin.GRPCBroker, s *grpc.Server) error {
	if p.server == nil {
		return fmt.Errorf("a host serves no plugin")
	}
	return p.server.GRPCServer(b, s)
}

func (p *clientPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{pb: pb.NewFixupClient(c)}, nil
}

// Client is the host's side of a plugin.
type Client struct {
	pb pb.FixupClient
}

// Describe asks the plugin who it is. An answer over sdk.MaxDescribe is
// refused as it arrives, with its size and the limit.
func (c *Client) Describe(ctx context.Context) (sdk.Description, error) {
	d, err := c.pb.Describe(ctx, &pb.DescribeRequest{}, grpc.MaxCallRecvMsgSize(sdk.MaxDescribe))
	if err != nil {
		return sdk.Description{}, tooLarge(err, -1, "a Describe answer")
	}
	return descriptionFromPB(d), nil
}

// Fixup sends a batch and returns the plugin's answer. A batch or an answer
// over sdk.MaxMessage is an error that says which, its size and the limit.
func (c *Client) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	req := batchToPB(b)
	n := proto.Size(req)
	if n > sdk.MaxMessage {
		return nil, fmt.Errorf("the batch is %s, larger than the %s a message between host and plugin may be (too many or too large packages in one product's manifests)", mib(n), mib(sdk.MaxMessage))
	}
	resp, err := c.pb.Fixup(ctx, req, grpc.MaxCallRecvMsgSize(sdk.MaxMessage))
	if err != nil {
		return nil, tooLarge(err, n, "an answer")
	}
	return resultFromPB(resp)
}

var sizesRE = regexp.MustCompile(`larger than max \((\d+) vs\. (\d+)\)`)

// tooLarge turns gRPC's "message larger than max (A vs. B)", from either
// side, into which message it was, its size and the limit. sent is the size
// of the request, or -1; answer names the kind of answer, for its limit.
func tooLarge(err error, sent int, answer string) error {
	if status.Code(err) != codes.ResourceExhausted {
		return err
	}
	m := sizesRE.FindStringSubmatch(status.Convert(err).Message())
	if m == nil {
		return err
	}
	size, _ := strconv.Atoi(m[1])
	limit, _ := strconv.Atoi(m[2])
	if size == sent {
		return fmt.Errorf("the batch is %s, larger than the %s the plugin accepts (%w)", mib(size), mib(limit), err)
	}
	return fmt.Errorf("its answer is %s, larger than the %s limit for %s (%w)", mib(size), mib(limit), answer, err)
}

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
