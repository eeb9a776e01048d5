package sdk

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"

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
	watchHost()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake(),
		Plugins:         PluginSet(f),
		GRPCServer:      GRPCServer,
		Logger: hclog.New(&hclog.LoggerOptions{
			Name:       f.Describe().Name,
			Output:     os.Stderr,
			Level:      hclog.Info,
			JSONFormat: true,
		}),
	})
}

// GRPCServer is go-plugin's default server with the protocol's limit on
// what it receives: a batch may be as large as an answer, MaxMessage, not
// gRPC's default 4 MiB. (What it sends, the host limits as it receives.)
func GRPCServer(opts []grpc.ServerOption) *grpc.Server {
	return grpc.NewServer(append(opts, grpc.MaxRecvMsgSize(MaxMessage))...)
}

// EnvHostFD names the plugin's descriptor of a pipe whose write end only the
// host holds. When the host ends, however it ends, the pipe reads
// end-of-file, and Serve ends the plugin: no plugin outlives its host.
const EnvHostFD = "CUDAPKGS_PLUGIN_HOST_FD"

// watchHost exits the process when the host's end of the pipe closes.
func watchHost() {
	v := os.Getenv(EnvHostFD)
	os.Unsetenv(EnvHostFD) // not for the plugin's own children
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return
	}
	f := os.NewFile(uintptr(fd), "cudapkgs-host")
	if f == nil {
		return
	}
	go func() {
		var b [64]byte
		for {
			if _, err := f.Read(b[:]); err != nil {
				os.Exit(1)
			}
		}
	}()
}

// PluginSet is the go-plugin plugin map that serves f (Serve uses it; a
// plugin that runs go-plugin itself may).
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

// GRPCClient is the host's, not a plugin's: the host's side of the
// protocol is its own (internal/pluginhost).
func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, fmt.Errorf("the plugin side of the protocol has no client: a host dispenses its own")
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

// MaxMessage is the largest answer a host accepts (gRPC's default is 4 MiB;
// a whole product's file lists stay well under this). A bigger answer is an
// error, not an allocation the plugin controls.
const MaxMessage = 64 << 20

// MaxDescribe is the largest Describe answer a host accepts. A plugin's
// self-description (its name, products, renames and facts) is a few KiB
// (the toolkit's, the largest built-in, is under 1 KiB): 1 MiB leaves room
// for a plugin of hundreds of products, and keeps a plugin from costing
// the host, or `cudapkgs plugins list`, more than that.
const MaxDescribe = 1 << 20
