package source_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pyindex"
	"github.com/cudapkgs/cudapkgs/core/source"
)

// wheelIndex serves core/pyindex's recorded cuFFTMp pages, page replacing
// one of them when set.
func wheelIndex(t *testing.T, page map[string][]byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.Trim(strings.TrimPrefix(r.URL.Path, "/simple/"), "/")
		data, ok := page[name]
		if !ok {
			var err error
			if data, err = os.ReadFile(filepath.Join("..", "pyindex", "testdata", "pages", name+".json")); err != nil {
				http.NotFound(w, r)
				return
			}
		}
		w.Header().Set("Content-Type", pyindex.ContentType)
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var cufftmp = map[string][]pyindex.Project{"cufftmp": {
	{Name: "nvidia-cufftmp-cu12", CUDAMajor: "12", Package: "libcufftmp", Prefix: "nvidia/cufftmp/cu{major}"},
	{Name: "nvidia-cufftmp-cu13", CUDAMajor: "13", Package: "libcufftmp", Prefix: "nvidia/cufftmp/cu{major}"},
}}

// A wheel product's releases are made from the index's pages, cached as
// <cache>/<product>/redistrib_<release>.json and locked like NVIDIA's; a
// page that changes a locked release is refused until --update.
func TestFetchWheels(t *testing.T) {
	dir := t.TempDir()
	cache, lock := filepath.Join(dir, "cache"), filepath.Join(dir, "cudapkgs.lock")
	pages := map[string][]byte{}
	srv := wheelIndex(t, pages)
	opts := source.Options{Products: []string{"cufftmp"}, Wheels: cufftmp, IndexURL: srv.URL + "/simple/",
		CacheDir: cache, LockFile: lock, Attempts: 1}
	res, err := source.Fetch(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range res.Manifests {
		keys = append(keys, m.Key)
	}
	if got := strings.Join(keys, " "); got != "cufftmp/redistrib_11.4.0.6.json cufftmp/redistrib_12.1.3.2.json" {
		t.Errorf("manifests %s", got)
	}
	if strings.Join(res.Added, " ") != strings.Join(keys, " ") || !res.LockWritten {
		t.Errorf("added %v, lock written %t", res.Added, res.LockWritten)
	}
	coll, err := manifest.LoadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	ms := coll.Releases("cufftmp")
	if len(ms) != 2 {
		t.Fatalf("%d cufftmp manifests in the cache", len(ms))
	}
	p, _ := ms[1].Package("libcufftmp")
	if a, ok := p.Archive(manifest.LinuxSBSA, "cuda13"); !ok || a.StripPrefix != "nvidia/cufftmp/cu13" || !strings.HasPrefix(a.URL, "https://files.pythonhosted.org/") {
		t.Errorf("12.1.3.2 sbsa: %+v", a)
	}
	first, err := os.ReadFile(filepath.Join(cache, "cufftmp", "redistrib_12.1.3.2.json"))
	if err != nil {
		t.Fatal(err)
	}

	// The index now lists another sha256 for 12.1.3.2's x86_64 wheel.
	page, err := os.ReadFile(filepath.Join("..", "pyindex", "testdata", "pages", "nvidia-cufftmp-cu13.json"))
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(page, []byte("9caf70206b4f558d5ee3c3899ada2e416f02341957a19612cc1fe9ac61a6df93"), []byte(strings.Repeat("0", 64)), 1)
	if bytes.Equal(changed, page) {
		t.Fatal("the recorded page lacks the sha256 the test changes")
	}
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	// The same index: the manifests name it, so another index is another
	// manifest (docs/wheels.md).
	pages["nvidia-cufftmp-cu13"] = changed
	_, err = source.Fetch(context.Background(), opts)
	var mm *source.MismatchError
	if !errors.As(err, &mm) || mm.File != "cufftmp/redistrib_12.1.3.2.json" {
		t.Fatalf("changed page: %v, want a lock mismatch of 12.1.3.2", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "cufftmp", "redistrib_12.1.3.2.json")); !os.IsNotExist(err) {
		t.Errorf("the refused manifest was cached: %v", err)
	}
	opts.Update = true
	res, err = source.Fetch(context.Background(), opts)
	if err != nil || strings.Join(res.Replaced, " ") != "cufftmp/redistrib_12.1.3.2.json" {
		t.Fatalf("update: %v, replaced %v", err, res)
	}
	now, _ := os.ReadFile(filepath.Join(cache, "cufftmp", "redistrib_12.1.3.2.json"))
	if bytes.Equal(now, first) || !bytes.Contains(now, []byte(strings.Repeat("0", 64))) {
		t.Error("the updated manifest does not carry the new sha256")
	}
}

// Named releases must exist; a bad page names its URL and project.
func TestFetchWheelsErrors(t *testing.T) {
	srv := wheelIndex(t, map[string][]byte{"nvidia-cufftmp-cu13": []byte(`{"files": [`)})
	for _, tc := range []struct {
		name string
		opts source.Options
		want string
	}{
		{"bad page", source.Options{Products: []string{"cufftmp"}, Wheels: cufftmp, IndexURL: srv.URL + "/simple/"},
			"/simple/nvidia-cufftmp-cu13/ (project nvidia-cufftmp-cu13): invalid JSON"},
		{"release not there", source.Options{Products: []string{"cufftmp"}, Wheels: map[string][]pyindex.Project{"cufftmp": cufftmp["cufftmp"][:1]},
			Releases: map[string][]string{"cufftmp": {"11.9"}}, IndexURL: srv.URL + "/simple/"},
			"cufftmp 11.9: no wheel of that release on "},
		{"bad index", source.Options{Products: []string{"cufftmp"}, Wheels: cufftmp, IndexURL: "file:///x"},
			`index URL "file:///x": expected an absolute http or https URL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.CacheDir = t.TempDir()
			_, err := source.Fetch(context.Background(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant containing %q", err, tc.want)
			}
		})
	}
}
