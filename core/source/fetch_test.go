package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/manifest"
)

func TestFetchCachesLocksAndLoads(t *testing.T) {
	s := newTestServer(t)
	cuda := s.serve("nv", "cuda", "12.4.1")
	cudnn := s.serve("nv", "cudnn", "9.12.0")
	cutensor := s.serve("nv", "cutensor", "2.2.0")
	var log syncBuffer
	o := s.options(t, &log)
	o.Releases = map[string][]string{"cuda": {"12.4.1"}, "cudnn": {"9.12.0"}, "cutensor": {"2.2.0"}}

	res, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.LockWritten || len(res.Added) != 3 || len(res.Replaced) != 0 {
		t.Errorf("LockWritten=%v Added=%v Replaced=%v, want a new lock with 3 entries", res.LockWritten, res.Added, res.Replaced)
	}
	// The cache is a manifests folder.
	c, err := manifest.LoadDir(o.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Products(); !cmp.Equal(got, []string{"cuda", "cudnn", "cutensor"}) {
		t.Errorf("cache products = %v", got)
	}
	// The lock file, byte for byte.
	want := fmt.Sprintf(`{
  "version": 1,
  "manifests": {
    "cuda/redistrib_12.4.1.json": {
      "sha256": %q,
      "size": %d
    },
    "cudnn/redistrib_9.12.0.json": {
      "sha256": %q,
      "size": %d
    },
    "cutensor/redistrib_2.2.0.json": {
      "sha256": %q,
      "size": %d
    }
  }
}
`, EntryFor(cuda).SHA256, len(cuda), EntryFor(cudnn).SHA256, len(cudnn), EntryFor(cutensor).SHA256, len(cutensor))
	got, err := os.ReadFile(o.LockFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("lock file (-want +got):\n%s", diff)
	}
	line := fmt.Sprintf("fetched cuda/redistrib_12.4.1.json (58445 bytes) from %s/nv/compute/cuda/redist/redistrib_12.4.1.json\n", s.srv.URL)
	if !strings.Contains(log.String(), line) {
		t.Errorf("progress lacks %q:\n%s", line, log.String())
	}
	if _, err := Verify(o.CacheDir, res.Lock); err != nil {
		t.Errorf("Verify after Fetch: %v", err)
	}

	// Again: everything comes from the cache and the lock file is not rewritten.
	before := s.hitCount(manifestPath("nv", "cuda", "12.4.1"))
	var log2 syncBuffer
	o.Progress = NewProgress(&log2, false)
	res2, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res2.LockWritten || len(res2.Added) != 0 {
		t.Errorf("second fetch: LockWritten=%v Added=%v, want nothing changed", res2.LockWritten, res2.Added)
	}
	if s.hitCount(manifestPath("nv", "cuda", "12.4.1")) != before {
		t.Error("second fetch downloaded again instead of using the cache")
	}
	for _, m := range res2.Manifests {
		if !m.FromCache() {
			t.Errorf("%s not from the cache", m.Key)
		}
	}
	if !strings.Contains(log2.String(), "cached cuda/redistrib_12.4.1.json\n") {
		t.Errorf("progress lacks the cached line:\n%s", log2.String())
	}
}

func TestFetchRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fails    int
		status   int
		attempts int
		wantErr  string
	}{
		{name: "500 twice then ok", fails: 2, attempts: 3},
		{name: "500 more than attempts", fails: 5, attempts: 2, wantErr: "HTTP 500"},
		{name: "429 is retried", status: 429, attempts: 2, wantErr: "(try 2): HTTP 429"},
		{name: "403 is not retried", status: 403, attempts: 3, wantErr: "(try 1): HTTP 403"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t)
			s.serve("nv", "cuda", "12.4.1")
			p := manifestPath("nv", "cuda", "12.4.1")
			s.set(func(s *testServer) { s.fail[p] = tc.fails; s.status[p] = tc.status })
			var log syncBuffer
			o := s.options(t, &log)
			o.Attempts = tc.attempts
			o.Releases = map[string][]string{"cuda": {"12.4.1"}}
			o.Products = []string{"cuda"}
			_, err := Fetch(context.Background(), o)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := s.hitCount(p); got != tc.fails+1 {
					t.Errorf("%d requests, want %d", got, tc.fails+1)
				}
				if !strings.Contains(log.String(), "retrying "+s.srv.URL+p) {
					t.Errorf("progress lacks the retry:\n%s", log.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), fmt.Sprintf("(try %d)", tc.attempts+1)) {
				t.Errorf("more than %d tries: %v", tc.attempts, err)
			}
			if _, err := os.Stat(o.LockFile); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("lock file written after a failed fetch (%v)", err)
			}
		})
	}
}

func TestFetchMirrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		setup    func(s *testServer)
		wantFrom string // base the manifest comes from
		wantErr  []string
		maxHits  map[string]int // base -> requests at most
	}{{
		name:     "404 on the first mirror falls to the second",
		setup:    func(s *testServer) { s.serve("m2", "cuda", "12.4.1"); s.serve("nv", "cuda", "12.4.1") },
		wantFrom: "m2",
		maxHits:  map[string]int{"m1": 1, "nv": 0},
	}, {
		name: "a stalled mirror times out, then the next is used",
		setup: func(s *testServer) {
			s.serve("m1", "cuda", "12.4.1")
			s.stall[manifestPath("m1", "cuda", "12.4.1")] = true
			s.serve("nv", "cuda", "12.4.1")
		},
		wantFrom: "nv",
		// The stall ends each try: two tries, then the next mirror.
		maxHits: map[string]int{"m1": 2},
	}, {
		name: "invalid JSON on a mirror is refused, the next is used",
		setup: func(s *testServer) {
			s.files[manifestPath("m1", "cuda", "12.4.1")] = []byte(`{"release_date": `)
			s.serve("nv", "cuda", "12.4.1")
		},
		wantFrom: "nv",
		maxHits:  map[string]int{"m1": 1},
	}, {
		name: "every URL failing names each URL and why",
		setup: func(s *testServer) {
			s.serve("m2", "cuda", "12.4.1")
			s.stall[manifestPath("m2", "cuda", "12.4.1")] = true
			s.status[manifestPath("nv", "cuda", "12.4.1")] = 503
		},
		wantErr: []string{
			"cuda/redistrib_12.4.1.json: every source failed (3 URLs tried):",
			"/m1/compute/cuda/redist/redistrib_12.4.1.json (try 1): HTTP 404 Not Found",
			"/m2/compute/cuda/redist/redistrib_12.4.1.json (try 2): stalled: no data for 200ms",
			"/nv/compute/cuda/redist/redistrib_12.4.1.json (try 2): HTTP 503 Service Unavailable",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t)
			tc.setup(s) // before any request: no lock needed (serve takes it)
			var log syncBuffer
			o := s.options(t, &log)
			o.Attempts = 2
			o.Sources.Mirrors = []string{s.base("m1"), s.base("m2") + "/"}
			o.Products = []string{"cuda"}
			o.Releases = map[string][]string{"cuda": {"12.4.1"}}
			res, err := Fetch(context.Background(), o)
			for base, n := range tc.maxHits {
				if got := s.hitCount(manifestPath(base, "cuda", "12.4.1")); got > n {
					t.Errorf("%s: %d requests, want at most %d", base, got, n)
				}
			}
			if tc.wantErr != nil {
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q:\n%v", w, err)
					}
				}
				if _, err := os.Stat(filepath.Join(o.CacheDir, "cuda", "redistrib_12.4.1.json")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("cached after a failure (%v)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := s.srv.URL + manifestPath(tc.wantFrom, "cuda", "12.4.1"); res.Manifests[0].URL != want {
				t.Errorf("from %s, want %s", res.Manifests[0].URL, want)
			}
			if !strings.Contains(log.String(), "skipping ") {
				t.Errorf("progress lacks the skipped mirror:\n%s", log.String())
			}
		})
	}
}

// A lock entry the server's bytes do not match: refused, nothing cached, the
// lock file untouched; with Update the entry is replaced.
func TestFetchLockMismatch(t *testing.T) {
	s := newTestServer(t)
	real := s.serve("nv", "cuda", "12.4.1")
	other := append(append([]byte(nil), real...), '\n') // parses, other sha256
	s.put(manifestPath("nv", "cuda", "12.4.1"), other)
	var log syncBuffer
	o := s.options(t, &log)
	o.Products = []string{"cuda"}
	o.Releases = map[string][]string{"cuda": {"12.4.1"}}

	lock := NewLock(o.LockFile)
	lock.Manifests["cuda/redistrib_12.4.1.json"] = EntryFor(real)
	lock.Manifests["cuda/redistrib_12.3.2.json"] = EntryFor(sharedManifest(t, "cuda", "12.3.2"))
	if err := lock.Write(); err != nil {
		t.Fatal(err)
	}
	lockBefore, _ := os.ReadFile(o.LockFile)

	_, err := Fetch(context.Background(), o)
	var mm *MismatchError
	if !errors.As(err, &mm) {
		t.Fatalf("error = %v, want a *MismatchError", err)
	}
	url := s.srv.URL + manifestPath("nv", "cuda", "12.4.1")
	for _, w := range []string{"cuda/redistrib_12.4.1.json", url, o.LockFile, EntryFor(real).SHA256, EntryFor(other).SHA256} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	cached := filepath.Join(o.CacheDir, "cuda", "redistrib_12.4.1.json")
	if _, err := os.Stat(cached); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("mismatched manifest was cached (%v)", err)
	}
	if after, _ := os.ReadFile(o.LockFile); string(after) != string(lockBefore) {
		t.Error("lock file changed after a refused fetch")
	}

	// A stale cached file is not used either; the refused download leaves it as it was.
	stale := sharedManifest(t, "cuda", "12.4.0")
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cached, stale, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(context.Background(), o); !errors.As(err, &mm) {
		t.Fatalf("error = %v, want a *MismatchError", err)
	}
	if got, _ := os.ReadFile(cached); string(got) != string(stale) {
		t.Error("refused download overwrote the cache")
	}

	// Update replaces the entry deliberately and keeps the others.
	o.Update = true
	res, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(res.Replaced, []string{"cuda/redistrib_12.4.1.json"}) || !res.LockWritten {
		t.Errorf("Replaced = %v, LockWritten = %v", res.Replaced, res.LockWritten)
	}
	l, err := ReadLock(o.LockFile)
	if err != nil {
		t.Fatal(err)
	}
	if l.Manifests["cuda/redistrib_12.4.1.json"] != EntryFor(other) || len(l.Manifests) != 2 {
		t.Errorf("lock after update = %v", l.Manifests)
	}
}

// A cached file that no longer matches the lock is downloaded again.
func TestFetchRefreshesStaleCache(t *testing.T) {
	s := newTestServer(t)
	real := s.serve("nv", "cudnn", "9.12.0")
	var log syncBuffer
	o := s.options(t, &log)
	o.Products = []string{"cudnn"}
	o.Releases = map[string][]string{"cudnn": {"9.12.0"}}
	lock := NewLock(o.LockFile)
	lock.Manifests["cudnn/redistrib_9.12.0.json"] = EntryFor(real)
	if err := lock.Write(); err != nil {
		t.Fatal(err)
	}
	cached := filepath.Join(o.CacheDir, "cudnn", "redistrib_9.12.0.json")
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cached, []byte(`{"broken": `), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Manifests[0].FromCache() || res.LockWritten {
		t.Errorf("FromCache=%v LockWritten=%v, want a download and an unchanged lock", res.Manifests[0].FromCache(), res.LockWritten)
	}
	if got, _ := os.ReadFile(cached); string(got) != string(real) {
		t.Error("cache not refreshed")
	}
}

// A cached file that the lock file does not list but Known pins to other
// bytes (an edited copy of a snapshot release) is downloaded again, never
// locked as it is (issue 24); one with Known's bytes, or one Known does not
// list, is used as cached.
func TestFetchKnownPinsCache(t *testing.T) {
	s := newTestServer(t)
	real := s.serve("nv", "cudnn", "9.12.0")
	edited := bytes.Replace(real, []byte(`"release_date": "`), []byte(`"release_date": "x`), 1)
	path := manifestPath("nv", "cudnn", "9.12.0")
	for _, tc := range []struct {
		name      string
		cached    []byte
		known     bool
		wantHits  int
		wantBytes []byte
	}{
		{"edited, Known pins the real bytes", edited, true, 1, real},
		{"real bytes, Known pins them", real, true, 0, real},
		{"edited, no Known", edited, false, 0, edited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log syncBuffer
			o := s.options(t, &log)
			o.Products = []string{"cudnn"}
			o.Releases = map[string][]string{"cudnn": {"9.12.0"}}
			if tc.known {
				o.Known = NewLock("snapshot")
				o.Known.Manifests["cudnn/redistrib_9.12.0.json"] = EntryFor(real)
			}
			cached := filepath.Join(o.CacheDir, "cudnn", "redistrib_9.12.0.json")
			if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cached, tc.cached, 0o644); err != nil {
				t.Fatal(err)
			}
			before := s.hitCount(path)
			res, err := Fetch(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if n := s.hitCount(path) - before; n != tc.wantHits {
				t.Errorf("%d downloads, want %d", n, tc.wantHits)
			}
			if res.Lock.Manifests["cudnn/redistrib_9.12.0.json"] != EntryFor(tc.wantBytes) {
				t.Errorf("locked %v, want %v", res.Lock.Manifests, EntryFor(tc.wantBytes))
			}
			if got, _ := os.ReadFile(cached); !bytes.Equal(got, tc.wantBytes) {
				t.Error("cache holds other bytes")
			}
		})
	}
}

func TestFetchInvalidManifestNotCached(t *testing.T) {
	s := newTestServer(t)
	s.put(manifestPath("nv", "cutensor", "2.2.0"), []byte(`{"release_date": "2025-01-01", "libcutensor": [1]}`))
	var log syncBuffer
	o := s.options(t, &log)
	o.Products = []string{"cutensor"}
	o.Releases = map[string][]string{"cutensor": {"2.2.0"}}
	_, err := Fetch(context.Background(), o)
	if err == nil || !manifest.IsManifestError(err) || !strings.Contains(err.Error(), "refused; not cached") {
		t.Fatalf("error = %v, want a refused manifest", err)
	}
	if _, err := os.Stat(filepath.Join(o.CacheDir, "cutensor", "redistrib_2.2.0.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("invalid manifest cached (%v)", err)
	}
	if _, err := os.Stat(o.LockFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file written (%v)", err)
	}
}

func TestFetchDiscovers(t *testing.T) {
	s := newTestServer(t)
	for _, r := range []string{"12.9.0", "11.8.0", "12.4.1"} {
		s.serve("nv", "cuda", r)
	}
	var log syncBuffer
	o := s.options(t, &log)
	o.Products = []string{"cuda"}
	res, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Manifests {
		got = append(got, m.Release)
	}
	if want := []string{"11.8.0", "12.4.1", "12.9.0"}; !cmp.Equal(got, want) {
		t.Errorf("releases = %v, want %v", got, want)
	}
	if !strings.Contains(log.String(), "listed cuda: 3 releases at "+s.srv.URL+"/nv/compute/cuda/redist/") {
		t.Errorf("progress lacks the listing:\n%s", log.String())
	}

	// A listing with no manifests is an error naming the folder.
	o.Products = []string{"cudnn"}
	s.put("/nv/compute/cudnn/redist/readme.txt", []byte("hi"))
	_, err = Fetch(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "cudnn release list") || !strings.Contains(err.Error(), "links to no redistrib_<version>.json") {
		t.Errorf("error = %v", err)
	}
}

func TestFetchTensorRT(t *testing.T) {
	s := newTestServer(t)
	var log syncBuffer
	o := s.options(t, &log)
	o.Products = []string{"cuda", "tensorrt"}
	_, err := Fetch(context.Background(), o)
	var np *NoProductURLError
	if !errors.As(err, &np) || !strings.Contains(err.Error(), "NVIDIA publishes no redistrib manifests for tensorrt") {
		t.Fatalf("error = %v, want a *NoProductURLError", err)
	}

	// With a folder URL (and no product list) tensorrt joins the defaults and
	// its folder is listed.
	data := sharedManifest(t, "tensorrt", "10.7.0")
	s.put("/trt/redistrib_10.7.0.json", data)
	o.Products = []string{"tensorrt"}
	o.Sources.ProductURLs = map[string]string{"tensorrt": s.base("trt")}
	res, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if want := s.base("trt") + "/redistrib_10.7.0.json"; res.Manifests[0].URL != want {
		t.Errorf("URL = %s, want %s", res.Manifests[0].URL, want)
	}
	// Which products are fetched is the caller's choice: none is an error.
	if _, err := newFetcher(Options{Sources: o.Sources, CacheDir: "x"}); err == nil || err.Error() != "no products to fetch" {
		t.Errorf("error = %v, want no products to fetch", err)
	}
}

// Two fetches into one cache wait for each other: the second finds what the
// first cached instead of downloading it again.
func TestConcurrentFetchesShareTheCache(t *testing.T) {
	s := newTestServer(t)
	s.serve("nv", "cuda", "12.4.1")
	s.serve("nv", "cudnn", "9.12.0")
	s.set(func(s *testServer) { s.delay = 50 * time.Millisecond })
	var log syncBuffer
	base := s.options(t, &log)
	base.Products = []string{"cuda", "cudnn"}
	base.Releases = map[string][]string{"cuda": {"12.4.1"}, "cudnn": {"9.12.0"}}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		o := base
		o.LockFile = filepath.Join(t.TempDir(), LockFileName)
		wg.Go(func() { _, errs[i] = Fetch(context.Background(), o) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{manifestPath("nv", "cuda", "12.4.1"), manifestPath("nv", "cudnn", "9.12.0")} {
		if n := s.hitCount(p); n != 1 {
			t.Errorf("%s downloaded %d times, want once", p, n)
		}
	}
	if _, err := manifest.LoadDir(base.CacheDir); err != nil {
		t.Error(err)
	}
}

// A held cache lock blocks a fetch until its context ends.
func TestFetchWaitsForTheCacheLock(t *testing.T) {
	s := newTestServer(t)
	s.serve("nv", "cuda", "12.4.1")
	var log syncBuffer
	o := s.options(t, &log)
	o.Products = []string{"cuda"}
	o.Releases = map[string][]string{"cuda": {"12.4.1"}}
	unlock, err := LockCache(context.Background(), o.CacheDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err = Fetch(ctx, o)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "another cudapkgs run holds it") {
		t.Fatalf("error = %v, want a deadline while waiting for the lock", err)
	}
	// It waited until the context ended, not less.
	if ctx.Err() == nil {
		t.Error("gave up before the context ended")
	}
	if !strings.Contains(log.String(), "waiting for another cudapkgs run to release "+filepath.Join(o.CacheDir, ".lock")) {
		t.Errorf("progress lacks the wait:\n%s", log.String())
	}
	if s.hitCount(manifestPath("nv", "cuda", "12.4.1")) != 0 {
		t.Error("downloaded without the lock")
	}
	// Released: the next fetch goes through.
	done := make(chan error, 1)
	go func() { _, err := Fetch(context.Background(), o); done <- err }()
	time.Sleep(50 * time.Millisecond)
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Cancelling the context stops retries at once.
func TestFetchCancelDuringBackoff(t *testing.T) {
	s := newTestServer(t)
	s.serve("nv", "cuda", "12.4.1")
	s.set(func(s *testServer) { s.status[manifestPath("nv", "cuda", "12.4.1")] = 500 })
	var log syncBuffer
	o := s.options(t, &log)
	o.Products = []string{"cuda"}
	o.Releases = map[string][]string{"cuda": {"12.4.1"}}
	o.Attempts, o.RetryDelay, o.MaxRetryDelay = 10, time.Minute, time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Fetch(ctx, o)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want the context's", err)
	}
	// The cancel came in the first minute-long backoff: no second try.
	if n := s.hitCount(manifestPath("nv", "cuda", "12.4.1")); n > 1 {
		t.Errorf("%d requests, want at most 1", n)
	}
}

func TestFetchOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"bad mirror", Options{Sources: Sources{Mirrors: []string{"ftp://x"}}}, `mirror: "ftp://x": expected an absolute http or https URL`},
		{"bad base", Options{Sources: Sources{Base: "developer.download.nvidia.com"}}, "base: "},
		{"bad product", Options{Products: []string{"../etc"}}, `product "../etc"`},
		{"release of another product", Options{Products: []string{"cuda"}, Releases: map[string][]string{"cudnn": {"9.1.0"}}}, "releases given for cudnn, which is not among the products"},
		{"bad release", Options{Products: []string{"cuda"}, Releases: map[string][]string{"cuda": {"12.x"}}}, `cuda release: version "12.x"`},
		{"product twice", Options{Products: []string{"cuda", "cuda"}}, "product cuda named twice"},
		{"no products", Options{Products: []string{}}, "no products"},
		{"a product no plugin describes", Options{Products: []string{"nccl"}}, "nccl: no plugin describes where its manifests are published"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.CacheDir = t.TempDir()
			tc.o.Sources.Layouts = testLayouts()
			_, err := Fetch(context.Background(), tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

// NVIDIA's listing holding a manifest this cudapkgs refuses (here, corrupted)
// delivers and locks every other one; the refused one is reported, not cached.
// Asked for by name, the same file fails the fetch.
func TestFetchListingWithARefusedManifest(t *testing.T) {
	s := newTestServer(t)
	for _, r := range []string{"12.4.1", "13.3.0"} {
		s.serve("nv", "cuda", r)
	}
	s.put(manifestPath("nv", "cuda", "12.9.0"), []byte(`{"cuda_cccl": {"version": "12.9.27", "linux-x86_64": {"relative_path": "a", "sha256": "abc"}}}`))
	var log syncBuffer
	o := s.options(t, &log)
	o.Products = []string{"cuda"}
	res, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Manifests {
		got = append(got, m.Release)
	}
	if want := []string{"12.4.1", "13.3.0"}; !cmp.Equal(got, want) {
		t.Errorf("releases = %v, want %v", got, want)
	}
	if len(res.Refused) != 1 || !strings.Contains(res.Refused[0].Error(), `redistrib_12.9.0.json`) || !strings.Contains(res.Refused[0].Error(), `sha256 "abc" is not 64 hex digits`) {
		t.Errorf("refused = %v", res.Refused)
	}
	lock, err := ReadLock(o.LockFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lock.Manifests["cuda/redistrib_13.3.0.json"]; !ok || len(lock.Manifests) != 2 {
		t.Errorf("lock = %v", lock.Manifests)
	}
	if _, err := os.Stat(filepath.Join(o.CacheDir, "cuda", "redistrib_12.9.0.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused manifest cached (%v)", err)
	}

	o.Releases = map[string][]string{"cuda": {"12.9.0"}}
	if _, err := Fetch(context.Background(), o); err == nil || !manifest.IsManifestError(err) {
		t.Errorf("by name: error = %v, want the manifest's", err)
	}
}

// Only a file that every source served and the parser refused is skipped:
// a mirror's broken answer next to NVIDIA's outage, or next to bytes that do
// not match the lock, fails the fetch as before.
func TestFetchRefusalIsNotAnOutage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(s *testServer, o *Options)
	}{
		{"mirror broken, NVIDIA down", func(s *testServer, o *Options) {
			s.set(func(s *testServer) { s.status[manifestPath("nv", "cuda", "12.9.0")] = 503 })
		}},
		{"mirror broken, NVIDIA's bytes not the locked ones", func(s *testServer, o *Options) {
			l := NewLock(o.LockFile)
			l.Manifests["cuda/redistrib_12.9.0.json"] = EntryFor([]byte("other bytes"))
			if err := l.Write(); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t)
			s.serve("nv", "cuda", "12.4.1")
			s.serve("nv", "cuda", "12.9.0")
			s.serve("m1", "cuda", "12.4.1")
			s.put(manifestPath("m1", "cuda", "12.9.0"), []byte("<html>not found</html>"))
			// The listing comes from NVIDIA's folder; the mirror has none.
			var log syncBuffer
			o := s.options(t, &log)
			o.Products = []string{"cuda"}
			o.Sources.Mirrors = []string{s.base("m1")}
			o.Attempts = 1
			tc.setup(s, &o)
			if res, err := Fetch(context.Background(), o); err == nil {
				t.Fatalf("fetch succeeded, refused %v; want it to fail", res.Refused)
			}
		})
	}
}

// TestFetchPartialMirror: a mirror that holds (and lists) 2 of NVIDIA's
// releases, on a server of its own, does not narrow the fetch: the listings
// are merged, the mirror serves what it has and NVIDIA the rest.
func TestFetchPartialMirror(t *testing.T) {
	nvidia, mirror := newTestServer(t), newTestServer(t)
	all := []string{"11.8.0", "12.4.1", "12.6.3", "12.9.0"}
	for _, r := range all {
		nvidia.serve("nv", "cuda", r)
	}
	for _, r := range []string{"12.4.1", "12.9.0"} {
		mirror.serve("m", "cuda", r)
	}
	var log syncBuffer
	o := nvidia.options(t, &log)
	o.Products = []string{"cuda"}
	o.Sources.Mirrors = []string{mirror.base("m")}
	res, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	from := map[string]string{}
	var got []string
	for _, m := range res.Manifests {
		got = append(got, m.Release)
		from[m.Release] = strings.TrimSuffix(m.URL, "/compute/cuda/redist/"+manifest.FileName(m.Release))
	}
	if !cmp.Equal(got, all) {
		t.Errorf("releases = %v, want %v", got, all)
	}
	for r, want := range map[string]string{"11.8.0": nvidia.base("nv"), "12.4.1": mirror.base("m"), "12.6.3": nvidia.base("nv"), "12.9.0": mirror.base("m")} {
		if from[r] != want {
			t.Errorf("%s fetched from %s, want %s", r, from[r], want)
		}
	}
	for _, want := range []string{"listed cuda: 2 releases at " + mirror.base("m") + "/compute/cuda/redist/",
		"listed cuda: 4 releases at " + nvidia.base("nv") + "/compute/cuda/redist/"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, log.String())
		}
	}

	// A source whose listing fails is reported; the others' listings serve.
	o = nvidia.options(t, &log)
	o.Products = []string{"cuda"}
	o.Sources.Mirrors = []string{mirror.base("gone")}
	res, err = Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Manifests) != len(all) {
		t.Errorf("%d manifests, want %d", len(res.Manifests), len(all))
	}
	if !strings.Contains(log.String(), "not listed cuda at one source, the others' listings serve: cuda release list") {
		t.Errorf("progress lacks the failed listing:\n%s", log.String())
	}
}
