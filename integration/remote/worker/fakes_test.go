package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	bspb "google.golang.org/genproto/googleapis/bytestream"
	rwpb "google.golang.org/genproto/googleapis/devtools/remoteworkers/v1test2"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
)

// fakeCAS is an in-memory CAS and ByteStream server.
type fakeCAS struct {
	repb.UnimplementedContentAddressableStorageServer
	bspb.UnimplementedByteStreamServer

	mu          sync.Mutex
	blobs       map[string][]byte
	reads       map[string]int // by digest key, batch or stream
	streamReads int
	writes      int // ByteStream writes
	// Injected failures: exhaust fails the next unary calls with
	// RESOURCE_EXHAUSTED; breakReads breaks the next ByteStream reads after
	// their first chunk.
	exhaust    int
	breakReads int
}

// fail consumes one injected RESOURCE_EXHAUSTED.
func (f *fakeCAS) fail() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.exhaust > 0 {
		f.exhaust--
		return status.Error(codes.ResourceExhausted, "Concurrent RPC limit exceeded!")
	}
	return nil
}

func newFakeCAS() *fakeCAS {
	return &fakeCAS{blobs: map[string][]byte{}, reads: map[string]int{}}
}

func (f *fakeCAS) put(data []byte) *repb.Digest {
	d := digestOf(data)
	f.mu.Lock()
	f.blobs[key(d)] = append([]byte(nil), data...)
	f.mu.Unlock()
	return d
}

func (f *fakeCAS) putProto(t *testing.T, m proto.Message) *repb.Digest {
	t.Helper()
	data, _, err := digestMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	return f.put(data)
}

func (f *fakeCAS) get(d *repb.Digest) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.blobs[key(d)]
	return b, ok
}

func (f *fakeCAS) FindMissingBlobs(_ context.Context, req *repb.FindMissingBlobsRequest) (*repb.FindMissingBlobsResponse, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	resp := &repb.FindMissingBlobsResponse{}
	for _, d := range req.BlobDigests {
		if _, ok := f.blobs[key(d)]; !ok {
			resp.MissingBlobDigests = append(resp.MissingBlobDigests, d)
		}
	}
	return resp, nil
}

func (f *fakeCAS) BatchReadBlobs(_ context.Context, req *repb.BatchReadBlobsRequest) (*repb.BatchReadBlobsResponse, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	resp := &repb.BatchReadBlobsResponse{}
	for _, d := range req.Digests {
		f.reads[key(d)]++
		r := &repb.BatchReadBlobsResponse_Response{Digest: d, Status: &spb.Status{}}
		if b, ok := f.blobs[key(d)]; ok {
			r.Data = b
		} else {
			r.Status.Code = int32(codes.NotFound)
		}
		resp.Responses = append(resp.Responses, r)
	}
	return resp, nil
}

func (f *fakeCAS) BatchUpdateBlobs(_ context.Context, req *repb.BatchUpdateBlobsRequest) (*repb.BatchUpdateBlobsResponse, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	resp := &repb.BatchUpdateBlobsResponse{}
	for _, r := range req.Requests {
		st := &spb.Status{}
		if key(digestOf(r.Data)) != key(r.Digest) {
			st.Code = int32(codes.InvalidArgument)
		} else {
			f.put(r.Data)
		}
		resp.Responses = append(resp.Responses, &repb.BatchUpdateBlobsResponse_Response{Digest: r.Digest, Status: st})
	}
	return resp, nil
}

func (f *fakeCAS) Read(req *bspb.ReadRequest, stream bspb.ByteStream_ReadServer) error {
	parts := strings.Split(req.ResourceName, "/")
	if len(parts) < 3 || parts[len(parts)-3] != "blobs" {
		return status.Errorf(codes.InvalidArgument, "bad resource %q", req.ResourceName)
	}
	k := parts[len(parts)-2] + "/" + parts[len(parts)-1]
	f.mu.Lock()
	data, ok := f.blobs[k]
	f.reads[k]++
	f.streamReads++
	breakIt := f.breakReads > 0
	if breakIt {
		f.breakReads--
	}
	f.mu.Unlock()
	if !ok {
		return status.Errorf(codes.NotFound, "%s", k)
	}
	if req.ReadOffset > int64(len(data)) {
		return status.Errorf(codes.OutOfRange, "offset %d", req.ReadOffset)
	}
	data = data[req.ReadOffset:]
	for len(data) > 0 { // small chunks, to exercise reassembly
		n := min(len(data), 7)
		if err := stream.Send(&bspb.ReadResponse{Data: data[:n]}); err != nil {
			return err
		}
		data = data[n:]
		if breakIt {
			return status.Error(codes.Unavailable, "connection reset")
		}
	}
	return nil
}

func (f *fakeCAS) Write(stream bspb.ByteStream_WriteServer) error {
	var name string
	var data []byte
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if name == "" {
			name = req.ResourceName
		}
		if req.WriteOffset != int64(len(data)) {
			return status.Errorf(codes.InvalidArgument, "offset %d, have %d", req.WriteOffset, len(data))
		}
		data = append(data, req.Data...)
		if req.FinishWrite {
			break
		}
	}
	parts := strings.Split(name, "/")
	if len(parts) < 5 || parts[len(parts)-5] != "uploads" || parts[len(parts)-3] != "blobs" {
		return status.Errorf(codes.InvalidArgument, "bad resource %q", name)
	}
	if got := key(digestOf(data)); got != parts[len(parts)-2]+"/"+parts[len(parts)-1] {
		return status.Errorf(codes.InvalidArgument, "data hashes to %s, name says %s", got, name)
	}
	f.put(data)
	f.mu.Lock()
	f.writes++
	f.mu.Unlock()
	return stream.SendAndClose(&bspb.WriteResponse{CommittedSize: int64(len(data))})
}

// fakeBots hands out queued leases one at a time and records what the bot
// reports.
type fakeBots struct {
	rwpb.UnimplementedBotsServer

	mu        sync.Mutex
	queue     []*rwpb.Lease
	drop      map[string]bool // lease ids to drop from the session (server-side cancel)
	created   []*rwpb.BotSession
	updates   int
	active    map[string]bool // lease ids reported ACTIVE at least once
	completed chan *rwpb.Lease
}

func newFakeBots() *fakeBots {
	return &fakeBots{drop: map[string]bool{}, active: map[string]bool{}, completed: make(chan *rwpb.Lease, 10)}
}

func (f *fakeBots) CreateBotSession(_ context.Context, req *rwpb.CreateBotSessionRequest) (*rwpb.BotSession, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := proto.Clone(req.BotSession).(*rwpb.BotSession)
	s.Name = fmt.Sprintf("%s/session-%d", req.Parent, len(f.created))
	f.created = append(f.created, proto.Clone(s).(*rwpb.BotSession))
	return s, nil
}

func (f *fakeBots) UpdateBotSession(ctx context.Context, req *rwpb.UpdateBotSessionRequest) (*rwpb.BotSession, error) {
	f.mu.Lock()
	f.updates++
	s := proto.Clone(req.BotSession).(*rwpb.BotSession)
	s.Leases = nil
	for _, l := range req.BotSession.Leases {
		switch {
		case l.State == rwpb.LeaseState_COMPLETED:
			f.completed <- l
		case f.drop[l.Id]:
		default:
			if l.State == rwpb.LeaseState_ACTIVE {
				f.active[l.Id] = true
			}
			s.Leases = append(s.Leases, l)
		}
	}
	if len(s.Leases) == 0 && len(f.queue) > 0 {
		s.Leases = append(s.Leases, f.queue[0])
		f.queue = f.queue[1:]
		f.mu.Unlock()
		return s, nil
	}
	f.mu.Unlock()
	// A short long-poll, so an idle bot does not spin.
	select {
	case <-time.After(50 * time.Millisecond):
	case <-ctx.Done():
	}
	return s, nil
}

func (f *fakeBots) enqueue(l *rwpb.Lease) {
	f.mu.Lock()
	f.queue = append(f.queue, l)
	f.mu.Unlock()
}

// testEnv is a fake server reached over an in-memory connection.
type testEnv struct {
	cas   *fakeCAS
	bots  *fakeBots
	conn  *grpc.ClientConn
	cc    *casClient
	cache *fileCache
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	e := &testEnv{cas: newFakeCAS(), bots: newFakeBots()}
	srv := grpc.NewServer()
	repb.RegisterContentAddressableStorageServer(srv, e.cas)
	bspb.RegisterByteStreamServer(srv, e.cas)
	rwpb.RegisterBotsServer(srv, e.bots)
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	e.conn = conn
	e.cc = newCASClient(conn, "inst")
	e.cc.retryDelay = time.Millisecond
	e.cache, err = newFileCache(filepath.Join(t.TempDir(), "cache"), e.cc)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// runner returns a runner without chroot whose exec dirs live in the cache dir.
func (e *testEnv) runner(t *testing.T, props ...property) *runner {
	t.Helper()
	base := filepath.Join(e.cache.dir, "exec")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	ps := properties{}
	for _, p := range props {
		ps[p.name] = append(ps[p.name], p.value)
	}
	return &runner{
		botName: "test-bot", execBase: base, cas: e.cc, cache: e.cache, props: ps,
		ignoreProps: map[string]bool{}, logf: t.Logf,
	}
}

// file and dir help build input trees.
func file(name string, d *repb.Digest, exec bool) *repb.FileNode {
	return &repb.FileNode{Name: name, Digest: d, IsExecutable: exec}
}

func dirNode(name string, d *repb.Digest) *repb.DirectoryNode {
	return &repb.DirectoryNode{Name: name, Digest: d}
}
