package sdk

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/cudapkgs/cudapkgs/internal/pluginpb"
)

// PluginName is the name a host dispenses the fixup service under.
const PluginName = "fixup"

// Handshake is the go-plugin handshake. The magic cookie only keeps a plugin
// binary from being run by hand by mistake; it is not a secret. The protocol
// version is negotiated here: a host speaking another version refuses the
// plugin before any call, with go-plugin's message naming both versions.
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  ProtocolVersion,
		MagicCookieKey:   "CUDAPKGS_PLUGIN",
		MagicCookieValue: "fixup-a1f3c9e2",
	}
}

// Serve runs f as a plugin process: it answers the host over gRPC on
// go-plugin's transport until the host closes it. Logs go to stderr through
// go-hclog, which the host shows when the plugin fails.
func Serve(f Fixer) {
	// A plugin lives for one run and answers in bursts: trade memory for
	// less garbage collection, unless the user set GOGC.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake(),
		Plugins:         PluginSet(f),
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger: hclog.New(&hclog.LoggerOptions{
			Name:       f.Describe().Name,
			Output:     os.Stderr,
			Level:      hclog.Info,
			JSONFormat: true,
		}),
	})
}

// PluginSet is the go-plugin plugin map for a host (f == nil) or a server.
func PluginSet(f Fixer) plugin.PluginSet {
	return plugin.PluginSet{PluginName: &grpcPlugin{impl: f}}
}

type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl Fixer
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterFixupServer(s, &server{impl: p.impl})
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{pb: pb.NewFixupClient(c)}, nil
}

type server struct {
	pb.UnimplementedFixupServer
	impl Fixer
}

func (s *server) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	return descriptionToPB(s.impl.Describe()), nil
}

func (s *server) Fixup(ctx context.Context, req *pb.FixupRequest) (*pb.FixupResponse, error) {
	r, err := s.impl.Fixup(ctx, batchFromPB(req))
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("fixer returned no result")
	}
	return resultToPB(r), nil
}

// Client is the host's side of a plugin.
type Client struct {
	pb pb.FixupClient
}

// Describe asks the plugin who it is.
func (c *Client) Describe(ctx context.Context) (Description, error) {
	d, err := c.pb.Describe(ctx, &pb.DescribeRequest{})
	if err != nil {
		return Description{}, err
	}
	return descriptionFromPB(d), nil
}

// Fixup sends a batch and returns the plugin's answer.
func (c *Client) Fixup(ctx context.Context, b *Batch) (*Result, error) {
	resp, err := c.pb.Fixup(ctx, batchToPB(b), grpc.MaxCallRecvMsgSize(MaxMessage))
	if err != nil {
		return nil, err
	}
	return resultFromPB(resp)
}

// MaxMessage is the largest answer a host accepts (gRPC's default is 4 MiB;
// a whole product's file lists stay well under this). A bigger answer is an
// error, not an allocation the plugin controls.
const MaxMessage = 64 << 20
