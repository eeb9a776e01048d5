package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestCASClient(t *testing.T) {
	big := []byte(strings.Repeat("large blob ", 40)) // 440 bytes
	tests := []struct {
		name string
		// inject sets up failures; op runs the client and checks the outcome.
		inject func(f *fakeCAS)
		op     func(t *testing.T, e *testEnv) error
	}{
		{
			name:   "batch read survives RESOURCE_EXHAUSTED",
			inject: func(f *fakeCAS) { f.exhaust = 3 },
			op: func(t *testing.T, e *testEnv) error {
				d := e.cas.put([]byte("small"))
				got, err := e.cc.readBlobs(context.Background(), []*repb.Digest{d})
				if err == nil && string(got[key(d)]) != "small" {
					t.Errorf("got %q", got[key(d)])
				}
				return err
			},
		},
		{
			name:   "ByteStream read resumes where the stream broke",
			inject: func(f *fakeCAS) { f.breakReads = 2 },
			op: func(t *testing.T, e *testEnv) error {
				d := e.cas.put(big)
				var buf bytes.Buffer
				err := e.cc.readStream(context.Background(), d, &buf)
				if err == nil && !bytes.Equal(buf.Bytes(), big) {
					t.Errorf("got %d bytes, want the %d uploaded", buf.Len(), len(big))
				}
				return err
			},
		},
		{
			name: "upload: batches, ByteStream for large blobs, nothing twice",
			op: func(t *testing.T, e *testEnv) error {
				e.cc.byteStreamThreshold, e.cc.chunkBytes, e.cc.maxBatchBytes = 100, 64, 300
				have := e.cas.put([]byte("already there"))
				items := []uploadItem{{digest: have, data: []byte("already there")}, {digest: digestOf(big), data: big}}
				for i := 0; i < 5; i++ {
					data := []byte(strings.Repeat(string(rune('a'+i)), 90))
					items = append(items, uploadItem{digest: digestOf(data), data: data})
				}
				items = append(items, items[2]) // duplicate
				sent, err := e.cc.upload(context.Background(), items)
				if err != nil {
					return err
				}
				if want := int64(len(big) + 5*90); sent != want {
					t.Errorf("sent %d bytes, want %d", sent, want)
				}
				if e.cas.writes != 1 {
					t.Errorf("%d ByteStream writes, want 1", e.cas.writes)
				}
				for _, it := range items {
					if _, ok := e.cas.get(it.digest); !ok {
						t.Errorf("%s not uploaded", key(it.digest))
					}
				}
				return nil
			},
		},
		{
			name: "missing blob by ByteStream",
			op: func(t *testing.T, e *testEnv) error {
				err := e.cc.readStream(context.Background(), digestOf([]byte("absent")), &bytes.Buffer{})
				if _, ok := err.(*missingBlobsError); !ok {
					t.Errorf("err = %v, want missingBlobsError", err)
				}
				return nil
			},
		},
		{
			name:   "persistent overload gives up",
			inject: func(f *fakeCAS) { f.exhaust = 100 },
			op: func(t *testing.T, e *testEnv) error {
				_, err := e.cc.readBlobs(context.Background(), []*repb.Digest{e.cas.put([]byte("x"))})
				if status.Code(err) != codes.ResourceExhausted {
					t.Errorf("err = %v, want RESOURCE_EXHAUSTED", err)
				}
				return nil
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			if tc.inject != nil {
				tc.inject(e.cas)
			}
			if err := tc.op(t, e); err != nil {
				t.Fatal(err)
			}
		})
	}
}
