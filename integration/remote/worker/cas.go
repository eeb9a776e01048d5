package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	bspb "google.golang.org/genproto/googleapis/bytestream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Size limits for CAS traffic. BuildGrid caps a request at about 4 MiB
// (MAX_REQUEST_SIZE), so batches stay well below that and anything bigger than
// byteStreamThreshold goes through ByteStream, which streams in chunks.
const (
	defaultMaxBatchBytes       = 2 << 20
	defaultByteStreamThreshold = 1 << 20
	defaultChunkBytes          = 1 << 20
	// maxDigestsPerCall bounds FindMissingBlobs and BatchReadBlobs requests by
	// count as well as by size: BuildGrid rejects more than 500 (MAX_REQUEST_COUNT).
	maxDigestsPerCall = 500
)

// casClient speaks the REAPI ContentAddressableStorage and ByteStream services
// for one instance name. Digests are SHA-256.
type casClient struct {
	instance string
	cas      repb.ContentAddressableStorageClient
	bs       bspb.ByteStreamClient

	// Tunables, fields so tests can exercise the ByteStream and batching paths
	// with tiny blobs.
	maxBatchBytes       int64
	byteStreamThreshold int64
	chunkBytes          int
	retryDelay          time.Duration // first backoff of retry
}

func newCASClient(conn grpc.ClientConnInterface, instance string) *casClient {
	return &casClient{
		instance:            instance,
		cas:                 repb.NewContentAddressableStorageClient(conn),
		bs:                  bspb.NewByteStreamClient(conn),
		maxBatchBytes:       defaultMaxBatchBytes,
		byteStreamThreshold: defaultByteStreamThreshold,
		chunkBytes:          defaultChunkBytes,
		retryDelay:          250 * time.Millisecond,
	}
}

// retryable reports whether a CAS call may succeed if repeated. BuildGrid
// answers RESOURCE_EXHAUSTED ("Concurrent RPC limit exceeded!") when its
// thread pool is taken, e.g. by long-polling bots and clients' Execute
// streams, and UNAVAILABLE when overloaded or restarting.
func retryable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.ResourceExhausted:
		return true
	}
	return false
}

// retry runs f until it succeeds, fails for good, or about half a minute of
// backoff has passed: failing the lease instead would spend one of the few
// attempts BuildGrid allows a job on a passing overload.
func (c *casClient) retry(ctx context.Context, f func() error) error {
	delay := c.retryDelay
	for attempt := 0; ; attempt++ {
		err := f()
		if err == nil || !retryable(err) || attempt >= 8 {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay = min(2*delay, 8*time.Second)
	}
}

// digestOf returns the SHA-256 digest of data.
func digestOf(data []byte) *repb.Digest {
	sum := sha256.Sum256(data)
	return &repb.Digest{Hash: hex.EncodeToString(sum[:]), SizeBytes: int64(len(data))}
}

// digestMessage serialises m deterministically and returns the bytes with their digest.
func digestMessage(m proto.Message) ([]byte, *repb.Digest, error) {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, nil, fmt.Errorf("marshal %T: %w", m, err)
	}
	return data, digestOf(data), nil
}

// digestFile hashes a file on disk.
func digestFile(path string) (*repb.Digest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, fmt.Errorf("hash %s: %w", path, err)
	}
	return &repb.Digest{Hash: hex.EncodeToString(h.Sum(nil)), SizeBytes: n}, nil
}

// key is the map key for a digest.
func key(d *repb.Digest) string { return fmt.Sprintf("%s/%d", d.GetHash(), d.GetSizeBytes()) }

// checkDigest rejects digests that could escape a path or confuse the cache.
func checkDigest(d *repb.Digest) error {
	if d == nil {
		return errors.New("missing digest")
	}
	if len(d.Hash) != 64 || strings.Trim(d.Hash, "0123456789abcdef") != "" || d.SizeBytes < 0 {
		return fmt.Errorf("invalid SHA-256 digest %q/%d", d.Hash, d.SizeBytes)
	}
	return nil
}

// missingBlobsError reports blobs the CAS does not have. REAPI wants it
// surfaced as FAILED_PRECONDITION with a PreconditionFailure so that the
// client re-uploads them.
type missingBlobsError struct{ digests []*repb.Digest }

func (e *missingBlobsError) Error() string {
	var s []string
	for _, d := range e.digests {
		s = append(s, key(d))
	}
	return "blobs missing from CAS: " + strings.Join(s, ", ")
}

// readBlobs fetches small blobs with BatchReadBlobs. Every digest must be at
// most byteStreamThreshold bytes; use readBlob for anything else.
func (c *casClient) readBlobs(ctx context.Context, digests []*repb.Digest) (map[string][]byte, error) {
	out := make(map[string][]byte, len(digests))
	var missing []*repb.Digest
	for _, batch := range c.batches(digests) {
		var resp *repb.BatchReadBlobsResponse
		err := c.retry(ctx, func() (err error) {
			resp, err = c.cas.BatchReadBlobs(ctx, &repb.BatchReadBlobsRequest{InstanceName: c.instance, Digests: batch})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("BatchReadBlobs (%d blobs): %w", len(batch), err)
		}
		for _, r := range resp.GetResponses() {
			switch code := codes.Code(r.GetStatus().GetCode()); code {
			case codes.OK:
				if got := digestOf(r.Data); key(got) != key(r.Digest) {
					return nil, fmt.Errorf("BatchReadBlobs returned %s for %s", key(got), key(r.Digest))
				}
				out[key(r.Digest)] = r.Data
			case codes.NotFound:
				missing = append(missing, r.Digest)
			default:
				return nil, fmt.Errorf("BatchReadBlobs %s: %s", key(r.Digest), status.FromProto(r.Status).Err())
			}
		}
	}
	if len(missing) > 0 {
		return nil, &missingBlobsError{missing}
	}
	for _, d := range digests {
		if _, ok := out[key(d)]; !ok && d.SizeBytes > 0 {
			return nil, fmt.Errorf("BatchReadBlobs did not return %s", key(d))
		}
		if d.SizeBytes == 0 {
			out[key(d)] = nil
		}
	}
	return out, nil
}

// batches splits digests (skipping empty blobs, which every CAS must treat as
// present) into groups that fit maxBatchBytes and maxDigestsPerCall.
func (c *casClient) batches(digests []*repb.Digest) [][]*repb.Digest {
	var out [][]*repb.Digest
	var cur []*repb.Digest
	var size int64
	seen := map[string]bool{}
	for _, d := range digests {
		if d.SizeBytes == 0 || seen[key(d)] {
			continue
		}
		seen[key(d)] = true
		// 100 bytes of per-entry framing is generous for a digest plus status.
		cost := d.SizeBytes + 100
		if len(cur) > 0 && (size+cost > c.maxBatchBytes || len(cur) >= maxDigestsPerCall) {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, d)
		size += cost
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// readBlob fetches one blob into memory, by batch or ByteStream depending on size.
func (c *casClient) readBlob(ctx context.Context, d *repb.Digest) ([]byte, error) {
	if d.SizeBytes <= c.byteStreamThreshold {
		m, err := c.readBlobs(ctx, []*repb.Digest{d})
		if err != nil {
			return nil, err
		}
		return m[key(d)], nil
	}
	var buf bytes.Buffer
	buf.Grow(int(d.SizeBytes))
	if err := c.readStream(ctx, d, &buf); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if got := digestOf(data); key(got) != key(d) {
		return nil, fmt.Errorf("ByteStream returned %s for %s", key(got), key(d))
	}
	return data, nil
}

// readProto fetches a blob and parses it as m.
func (c *casClient) readProto(ctx context.Context, d *repb.Digest, m proto.Message) error {
	data, err := c.readBlob(ctx, d)
	if err != nil {
		return err
	}
	if err := proto.Unmarshal(data, m); err != nil {
		return fmt.Errorf("parse %T %s: %w", m, key(d), err)
	}
	return nil
}

func (c *casClient) resource(parts ...string) string {
	if c.instance != "" {
		parts = append([]string{c.instance}, parts...)
	}
	return strings.Join(parts, "/")
}

// readStream copies a blob to w with ByteStream.Read, resuming at the
// offset reached if the stream breaks. The caller verifies the digest.
func (c *casClient) readStream(ctx context.Context, d *repb.Digest, w io.Writer) error {
	name := c.resource("blobs", d.Hash, fmt.Sprint(d.SizeBytes))
	var n int64
	err := c.retry(ctx, func() error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stream, err := c.bs.Read(ctx, &bspb.ReadRequest{ResourceName: name, ReadOffset: n})
		if err != nil {
			return err
		}
		for {
			resp, err := stream.Recv()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if _, err := w.Write(resp.Data); err != nil {
				return err
			}
			n += int64(len(resp.Data))
		}
	})
	if status.Code(err) == codes.NotFound {
		return &missingBlobsError{[]*repb.Digest{d}}
	}
	if err != nil {
		return fmt.Errorf("ByteStream.Read %s at offset %d: %w", name, n, err)
	}
	if n != d.SizeBytes {
		return fmt.Errorf("ByteStream.Read %s: got %d bytes", name, n)
	}
	return nil
}

// uploadItem is one blob to upload, either in memory or in a file.
type uploadItem struct {
	digest *repb.Digest
	data   []byte
	path   string
}

func (u uploadItem) bytes() ([]byte, error) {
	if u.path == "" {
		return u.data, nil
	}
	data, err := os.ReadFile(u.path)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != u.digest.SizeBytes {
		return nil, fmt.Errorf("%s changed size while uploading", u.path)
	}
	return data, nil
}

// upload makes sure the CAS has every item: it asks FindMissingBlobs first so
// blobs the server already has (e.g. outputs that were inputs) cost nothing.
// It returns the number of bytes sent.
func (c *casClient) upload(ctx context.Context, items []uploadItem) (int64, error) {
	byKey := map[string]uploadItem{}
	var digests []*repb.Digest
	for _, it := range items {
		if _, ok := byKey[key(it.digest)]; !ok {
			byKey[key(it.digest)] = it
			digests = append(digests, it.digest)
		}
	}
	var missing []*repb.Digest
	for i := 0; i < len(digests); i += maxDigestsPerCall {
		batch := digests[i:min(i+maxDigestsPerCall, len(digests))]
		var resp *repb.FindMissingBlobsResponse
		err := c.retry(ctx, func() (err error) {
			resp, err = c.cas.FindMissingBlobs(ctx, &repb.FindMissingBlobsRequest{InstanceName: c.instance, BlobDigests: batch})
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("FindMissingBlobs: %w", err)
		}
		missing = append(missing, resp.GetMissingBlobDigests()...)
	}
	// Upload small blobs first in as few batches as possible.
	sort.Slice(missing, func(i, j int) bool { return missing[i].SizeBytes < missing[j].SizeBytes })
	var sent int64
	var batch []*repb.BatchUpdateBlobsRequest_Request
	var batchSize int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var resp *repb.BatchUpdateBlobsResponse
		err := c.retry(ctx, func() (err error) {
			resp, err = c.cas.BatchUpdateBlobs(ctx, &repb.BatchUpdateBlobsRequest{InstanceName: c.instance, Requests: batch})
			return err
		})
		if err != nil {
			return fmt.Errorf("BatchUpdateBlobs (%d blobs): %w", len(batch), err)
		}
		for _, r := range resp.GetResponses() {
			if r.GetStatus().GetCode() != int32(codes.OK) {
				return fmt.Errorf("BatchUpdateBlobs %s: %s", key(r.Digest), status.FromProto(r.Status).Err())
			}
		}
		sent += batchSize
		batch, batchSize = nil, 0
		return nil
	}
	for _, d := range missing {
		it, ok := byKey[key(d)]
		if !ok {
			return sent, fmt.Errorf("FindMissingBlobs returned unrequested digest %s", key(d))
		}
		if d.SizeBytes > c.byteStreamThreshold {
			if err := c.writeStream(ctx, it); err != nil {
				return sent, err
			}
			sent += d.SizeBytes
			continue
		}
		if batchSize+d.SizeBytes+100 > c.maxBatchBytes || len(batch) >= maxDigestsPerCall {
			if err := flush(); err != nil {
				return sent, err
			}
		}
		data, err := it.bytes()
		if err != nil {
			return sent, err
		}
		batch = append(batch, &repb.BatchUpdateBlobsRequest_Request{Digest: d, Data: data})
		batchSize += d.SizeBytes
	}
	return sent, flush()
}

// writeStream uploads one blob with ByteStream.Write in chunks, streaming
// from disk so that huge outputs are never held in memory. A broken upload
// starts over under a new upload name.
func (c *casClient) writeStream(ctx context.Context, it uploadItem) error {
	return c.retry(ctx, func() error { return c.writeStreamOnce(ctx, it) })
}

func (c *casClient) writeStreamOnce(ctx context.Context, it uploadItem) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	name := c.resource("uploads", newUUID(), "blobs", it.digest.Hash, fmt.Sprint(it.digest.SizeBytes))
	var r io.Reader
	if it.path != "" {
		f, err := os.Open(it.path)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	} else {
		r = bytes.NewReader(it.data)
	}
	stream, err := c.bs.Write(ctx)
	if err != nil {
		return fmt.Errorf("ByteStream.Write %s: %w", name, err)
	}
	buf := make([]byte, c.chunkBytes)
	var off int64
	for {
		n, rerr := io.ReadFull(r, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return fmt.Errorf("read %s: %w", it.path, rerr)
		}
		last := off+int64(n) >= it.digest.SizeBytes
		req := &bspb.WriteRequest{WriteOffset: off, Data: buf[:n], FinishWrite: last}
		if off == 0 {
			req.ResourceName = name
		}
		if err := stream.Send(req); err != nil {
			// io.EOF means the server ended the stream early, e.g. because it
			// already has the blob; CloseAndRecv tells which.
			if err == io.EOF {
				break
			}
			return fmt.Errorf("ByteStream.Write %s at offset %d: %w", name, off, err)
		}
		off += int64(n)
		if last || n == 0 {
			break
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		if status.Code(err) == codes.AlreadyExists {
			return nil
		}
		return fmt.Errorf("ByteStream.Write %s: %w", name, err)
	}
	// A committed size of -1 or the full size both mean the server has the blob.
	if cs := resp.GetCommittedSize(); cs != it.digest.SizeBytes && cs != -1 {
		return fmt.Errorf("ByteStream.Write %s: server committed %d of %d bytes", name, cs, it.digest.SizeBytes)
	}
	return nil
}

// newUUID returns a random version 4 UUID for ByteStream upload names.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
