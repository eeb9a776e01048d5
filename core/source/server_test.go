package source

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// testServer is an HTTP server on 127.0.0.1 serving copies of real manifests
// (read from ../shared at test time) under any number of base paths, with
// programmable failures.
type testServer struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	files   map[string][]byte // URL path -> body
	fail    map[string]int    // URL path -> how many more 500s
	status  map[string]int    // URL path -> status to answer with (each time)
	stall   map[string]bool   // URL path -> send half the body, then nothing
	delay   time.Duration     // before answering any manifest
	hits    map[string]int
	stopped chan struct{}
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	s := &testServer{
		t:       t,
		files:   map[string][]byte{},
		fail:    map[string]int{},
		status:  map[string]int{},
		stall:   map[string]bool{},
		hits:    map[string]int{},
		stopped: make(chan struct{}),
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(func() {
		close(s.stopped)
		s.srv.Close()
	})
	return s
}

// base is the URL of a base path, such as "/nv" for a fake NVIDIA server.
func (s *testServer) base(name string) string { return s.srv.URL + "/" + name }

// manifestPath is a manifest's URL path under NVIDIA's layout.
func manifestPath(base, product, release string) string {
	return "/" + base + "/compute/" + product + "/redist/" + manifest.FileName(release)
}

// serve publishes a real manifest under a base path and returns its bytes.
func (s *testServer) serve(base, product, release string) []byte {
	data := sharedManifest(s.t, product, release)
	s.put(manifestPath(base, product, release), data)
	return data
}

func (s *testServer) put(path string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = data
}

func (s *testServer) set(f func(s *testServer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func (s *testServer) hitCount(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *testServer) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p := r.URL.Path
	s.hits[p]++
	body, ok := s.files[p]
	status := s.status[p]
	failing := s.fail[p] > 0
	if failing {
		s.fail[p]--
	}
	stall, delay := s.stall[p], s.delay
	var listing []string
	if strings.HasSuffix(p, "/") {
		for f := range s.files {
			if rest, ok := strings.CutPrefix(f, p); ok && !strings.Contains(rest, "/") {
				listing = append(listing, rest)
			}
		}
	}
	s.mu.Unlock()

	switch {
	case status != 0:
		http.Error(w, http.StatusText(status), status)
	case failing:
		http.Error(w, "try again", http.StatusInternalServerError)
	case stall && ok:
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		_, _ = w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-s.stopped:
		case <-time.After(10 * time.Second):
		}
	case ok:
		if delay > 0 {
			time.Sleep(delay)
		}
		_, _ = w.Write(body)
	case len(listing) > 0:
		sort.Strings(listing)
		_, _ = w.Write(apacheIndex(p, listing))
	default:
		http.NotFound(w, r)
	}
}

// apacheIndex renders a folder listing the way NVIDIA's server does, with the
// parent link and sub-folders it also shows.
func apacheIndex(dir string, files []string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<html>\n<head><title>Index of %s</title></head>\n<body>\n<h1>Index of %s</h1><hr><pre><a href=\"../\">../</a>\n", dir, dir)
	b.WriteString("<a href=\"cuda_cccl/\">cuda_cccl/</a>                                         05-Apr-2024 17:36       -\n")
	for _, f := range files {
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>                              05-Apr-2024 17:36    58445\n", f, f)
	}
	b.WriteString("<a href=\"redistrib_12.4.1.json.md5\">redistrib_12.4.1.json.md5</a>     05-Apr-2024 17:36      56\n")
	b.WriteString("</pre><hr></body>\n</html>\n")
	return b.Bytes()
}

// sharedManifest reads a real manifest from ../shared/manifests.
func sharedManifest(t *testing.T, product, release string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(shared.Manifests(t), product, manifest.FileName(release)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// syncBuffer is a bytes.Buffer safe for the progress writer.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// options are fast options for the server: 200ms stall timeout, retries a
// few milliseconds apart, a fresh cache and lock file.
func (s *testServer) options(t *testing.T, log *syncBuffer) Options {
	dir := t.TempDir()
	return Options{
		Sources:       Sources{Base: s.base("nv"), Unlisted: []string{"tensorrt"}, Layouts: testLayouts()},
		CacheDir:      filepath.Join(dir, "cache"),
		LockFile:      filepath.Join(dir, LockFileName),
		Client:        s.srv.Client(),
		Timeout:       3 * time.Second,
		StallTimeout:  200 * time.Millisecond,
		Attempts:      3,
		RetryDelay:    2 * time.Millisecond,
		MaxRetryDelay: 10 * time.Millisecond,
		Progress:      NewProgress(log, false),
		Products:      []string{"cuda", "cudnn", "cutensor"},
	}
}

// testLayouts are the layouts the built-in plugins describe for the products
// these tests fetch.
func testLayouts() map[string]Layout {
	out := map[string]Layout{}
	for _, p := range []string{"cuda", "cudnn", "cutensor"} {
		out[p] = Layout{Base: DefaultBase, Path: "compute/" + p + "/redist"}
	}
	return out
}
