package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
)

// manifestServer serves copies of real manifests (read from ../shared at test
// time) on 127.0.0.1 under NVIDIA's layout, below any base path.
type manifestServer struct {
	srv   *httptest.Server
	mu    sync.Mutex
	files map[string][]byte
	hits  map[string]int
}

func newManifestServer(t *testing.T) *manifestServer {
	t.Helper()
	s := &manifestServer{files: map[string][]byte{}, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		body, ok := s.files[r.URL.Path]
		var links []string
		for p := range s.files {
			if rest, found := strings.CutPrefix(p, r.URL.Path); found && strings.HasSuffix(r.URL.Path, "/") && !strings.Contains(rest, "/") {
				links = append(links, `<a href="`+rest+`">`+rest+`</a>`)
			}
		}
		s.mu.Unlock()
		switch {
		case ok:
			_, _ = w.Write(body)
		case len(links) > 0:
			_, _ = w.Write([]byte("<html><body><pre><a href=\"../\">../</a>\n" + strings.Join(links, "\n") + "</pre></body></html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// serve publishes shared/manifests/<product>/redistrib_<release>.json at
// <base>/compute/<product>/redist/ (or body instead, when given).
func (s *manifestServer) serve(t *testing.T, base, product, release string, body []byte) []byte {
	t.Helper()
	if body == nil {
		var err error
		body, err = os.ReadFile(filepath.Join(shared.Manifests(t), product, "redistrib_"+release+".json"))
		if err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files["/"+base+"/compute/"+product+"/redist/redistrib_"+release+".json"] = body
	return body
}

func (s *manifestServer) url(base string) string { return s.srv.URL + "/" + base }

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb, false)
	return code, out.String(), errb.String()
}

func wantOutput(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

func TestManifestsFetchAndVerify(t *testing.T) {
	s := newManifestServer(t)
	s.serve(t, "nv", "cuda", "12.4.1", nil)
	s.serve(t, "m2", "cudnn", "9.12.0", nil)
	dir := t.TempDir()
	cache, lock := filepath.Join(dir, "cache"), filepath.Join(dir, "cudapkgs.lock")
	fetch := []string{"manifests", "fetch", "--base", s.url("nv"), "--mirror", s.url("m1"), "--mirror", s.url("m2"),
		"--cache", cache, "--lock", lock, "--release", "cuda=12.4.1", "--release", "cudnn=9.12.0"}

	code, out, errs := runCLI(t, fetch...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantOutput(t, "stdout", out, "2 manifests in "+cache+" (2 fetched, 0 cached)\n", lock+": 2 added, 0 replaced\n")
	wantOutput(t, "stderr", errs,
		"fetched cuda/redistrib_12.4.1.json (58445 bytes) from "+s.url("nv")+"/compute/cuda/redist/redistrib_12.4.1.json\n",
		"skipping "+s.url("m1")+"/compute/cudnn/redist/redistrib_9.12.0.json: HTTP 404 Not Found; trying "+s.url("m2"),
		"fetched cudnn/redistrib_9.12.0.json (5359 bytes) from "+s.url("m2"))

	code, out, errs = runCLI(t, fetch...)
	if code != 0 {
		t.Fatalf("second fetch: exit %d: %s", code, errs)
	}
	wantOutput(t, "stdout", out, "(0 fetched, 2 cached)", lock+": unchanged")
	wantOutput(t, "stderr", errs, "cached cuda/redistrib_12.4.1.json\n")

	code, out, errs = runCLI(t, "manifests", "verify", "--manifests", cache, "--lock", lock)
	if code != 0 || out != "2 manifests in "+cache+" match "+lock+"\n" {
		t.Fatalf("verify: exit %d, stdout %q, stderr %s", code, out, errs)
	}

	// The cache is a manifests folder query reads.
	if code, _, errs := runCLI(t, "query", "--manifests", cache, "--cuda", "12.4.1", "--platform", "linux-x86_64", "--format", "json"); code != 0 {
		t.Errorf("query on the cache: exit %d: %s", code, errs)
	}

	// A changed file and an extra one: each reported on its own line.
	cudnn := filepath.Join(cache, "cudnn", "redistrib_9.12.0.json")
	data, _ := os.ReadFile(cudnn)
	if err := os.WriteFile(cudnn, append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cache, "cutensor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "cutensor", "redistrib_2.2.0.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "manifests", "verify", "--manifests", cache, "--lock", lock)
	if code != 1 || out != "" {
		t.Fatalf("verify after a change: exit %d, stdout %q", code, out)
	}
	wantOutput(t, "stderr", errs, "cudapkgs: "+cache+" does not match "+lock+": 2 problems\n",
		"\n  cudnn/redistrib_9.12.0.json: sha256 ", "(5360 bytes) does not match "+lock,
		"\n  cutensor/redistrib_2.2.0.json: in "+cache+" but not in "+lock+"\n")
}

func TestManifestsFetchRefusesLockMismatch(t *testing.T) {
	s := newManifestServer(t)
	real := s.serve(t, "nv", "cuda", "12.4.1", nil)
	dir := t.TempDir()
	cache, lock := filepath.Join(dir, "cache"), filepath.Join(dir, "cudapkgs.lock")
	l := source.NewLock(lock)
	l.Manifests["cuda/redistrib_12.4.1.json"] = source.EntryFor(append(append([]byte(nil), real...), '\n'))
	if err := l.Write(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(lock)
	args := []string{"manifests", "fetch", "--base", s.url("nv"), "--cache", cache, "--lock", lock, "--product", "cuda", "--release", "12.4.1"}

	code, out, errs := runCLI(t, args...)
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q, want 1 and nothing", code, out)
	}
	wantOutput(t, "stderr", errs, "cuda/redistrib_12.4.1.json from "+s.url("nv")+"/compute/cuda/redist/redistrib_12.4.1.json: sha256 mismatch: "+lock+" expects "+l.Manifests["cuda/redistrib_12.4.1.json"].SHA256+", got "+source.EntryFor(real).SHA256,
		"--update-lock")
	if after, _ := os.ReadFile(lock); !bytes.Equal(before, after) {
		t.Error("lock file changed")
	}
	if _, err := os.Stat(filepath.Join(cache, "cuda", "redistrib_12.4.1.json")); !os.IsNotExist(err) {
		t.Errorf("refused manifest cached (%v)", err)
	}

	code, out, errs = runCLI(t, append(args, "--update-lock")...)
	if code != 0 {
		t.Fatalf("--update-lock: exit %d: %s", code, errs)
	}
	wantOutput(t, "stdout", out, lock+": 0 added, 1 replaced")
}

func TestManifestsFetchDiscoversAndUsesProductURL(t *testing.T) {
	s := newManifestServer(t)
	s.serve(t, "nv", "cutensor", "2.2.0", nil)
	s.serve(t, "nv", "cutensor", "1.7.0", nil)
	trt, err := os.ReadFile(filepath.Join(shared.Manifests(t), "tensorrt", "redistrib_10.7.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.files["/trt/redistrib_10.7.0.json"] = trt
	s.mu.Unlock()
	dir := t.TempDir()
	code, out, errs := runCLI(t, "manifests", "fetch", "--base", s.url("nv"), "--cache", filepath.Join(dir, "c"), "--lock", filepath.Join(dir, "l"),
		"--product", "cutensor,tensorrt", "--product-url", "tensorrt="+s.url("trt"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantOutput(t, "stdout", out, "3 manifests in")
	wantOutput(t, "stderr", errs, "listed cutensor: 2 releases at "+s.url("nv")+"/compute/cutensor/redist/\n",
		"listed tensorrt: 1 releases at "+s.url("trt")+"/\n", "fetched tensorrt/redistrib_10.7.0.json (1401 bytes) from "+s.url("trt")+"/redistrib_10.7.0.json")
}

func TestManifestsErrors(t *testing.T) {
	s := newManifestServer(t)
	s.serve(t, "nv", "cuda", "12.4.1", []byte(`{"release_date": "2024-04-01"`))
	dir := t.TempDir()
	badLock := filepath.Join(dir, "bad.lock")
	if err := os.WriteFile(badLock, []byte(`{"version": 1, "manifests": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fetch := func(args ...string) []string {
		return append([]string{"manifests", "fetch", "--base", s.url("nv"), "--cache", filepath.Join(dir, "cache"), "--lock", filepath.Join(dir, "cudapkgs.lock")}, args...)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", []string{"manifests"}, 2, "manifests needs a command: fetch or verify"},
		{"unknown command", []string{"manifests", "pull"}, 2, `unknown command "pull"`},
		{"unknown flag", fetch("--products", "cuda"), 2, "unknown flag: --products"},
		{"plain release without one product", fetch("--release", "12.4.1"), 2, `--release "12.4.1": say which product it is (--release cuda=12.4.1)`},
		{"bad release", fetch("--release", "cuda=12.x"), 2, `--release "cuda=12.x": version "12.x"`},
		{"release of another product", fetch("--product", "cuda", "--release", "cudnn=9.1.0"), 2, "cudnn is not among --product cuda"},
		{"bad product", fetch("--product", "CUDA"), 2, `--product: product "CUDA"`},
		{"product twice", fetch("--product", "cuda,cuda"), 2, "--product cuda given twice"},
		{"tensorrt without a URL", fetch("--product", "tensorrt"), 2, "NVIDIA publishes no redistrib manifests for tensorrt; give the folder holding its redistrib_<version>.json files with --product-url tensorrt=URL"},
		{"product URL without =", fetch("--product-url", "tensorrt"), 2, `--product-url "tensorrt": expected product=URL`},
		{"bad product URL", fetch("--product-url", "tensorrt=trt/"), 2, `product URL for tensorrt: "trt/": expected an absolute http or https URL`},
		{"bad mirror", fetch("--mirror", "mirror.example"), 2, `mirror: "mirror.example"`},
		{"bad timeout", fetch("--timeout", "0s"), 2, "--timeout 0s: expected a positive duration"},
		{"bad retries", fetch("--retries", "-1"), 2, "--retries -1: expected 0 or more"},
		{"bad index URL", fetch("--product", "nccl", "--index-url", "ftp://pypi.example/simple"), 2, `--index-url: index URL "ftp://pypi.example/simple": expected an absolute http or https URL`},
		{"invalid manifest", fetch("--release", "cuda=12.4.1"), 1, "invalid JSON"},
		{"missing manifest", fetch("--release", "cuda=12.6.3"), 1, "cuda/redistrib_12.6.3.json: every source failed (1 URL tried):\n  " + s.url("nv") + "/compute/cuda/redist/redistrib_12.6.3.json (try 1): HTTP 404 Not Found"},
		{"bad lock file", fetch("--release", "cuda=12.4.1", "--lock", badLock), 1, badLock + ":1:30: invalid lock file: \"manifests\" is a JSON array, expected an object"},
		{"verify without lock", []string{"manifests", "verify", "--manifests", dir, "--lock", filepath.Join(dir, "none.lock")}, 1, "reading lock file: stat " + filepath.Join(dir, "none.lock")},
		{"verify without folder", []string{"manifests", "verify", "--manifests", filepath.Join(dir, "none"), "--lock", badLock}, 1, badLock + ":1:30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != tc.code || out != "" {
				t.Errorf("exit %d, stdout %q; want exit %d and no output", code, out, tc.code)
			}
			if !strings.HasPrefix(errs, "cudapkgs: ") {
				t.Errorf("stderr does not start with \"cudapkgs: \": %s", errs)
			}
			wantOutput(t, "stderr", errs, tc.want)
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "cudapkgs.lock")); !os.IsNotExist(err) {
		t.Errorf("lock file written by a failed fetch (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cache", "cuda", "redistrib_12.4.1.json")); !os.IsNotExist(err) {
		t.Errorf("invalid manifest cached (%v)", err)
	}
}

// A wheel product's manifests come from the index PIP_INDEX_URL names, as
// pip's; --index-url wins over it.
func TestManifestsFetchWheels(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		name := strings.Trim(strings.TrimPrefix(r.URL.Path, "/simple/"), "/")
		data, err := os.ReadFile(filepath.Join("..", "..", "core", "pyindex", "testdata", "pages", name+".json"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
		_, _ = w.Write(data)
	}))
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("PIP_INDEX_URL", srv.URL+"/simple/")
	code, out, errs := runCLI(t, "manifests", "fetch", "--product", "cufftmp", "--cache", filepath.Join(dir, "cache"), "--lock", filepath.Join(dir, "cudapkgs.lock"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantOutput(t, "stdout", out+errs, "2 manifests in "+filepath.Join(dir, "cache"))
	if got := strings.Join(asked, " "); got != "/simple/nvidia-cufftmp-cu12/ /simple/nvidia-cufftmp-cu13/" {
		t.Errorf("asked %s", got)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cache", "cufftmp", "redistrib_12.1.3.2.json"))
	if err != nil || !strings.Contains(string(data), `"index": "`+srv.URL+`/simple/"`) {
		t.Errorf("the manifest does not name the index: %v\n%s", err, data)
	}
	code, _, errs = runCLI(t, "manifests", "fetch", "--product", "cufftmp", "--index-url", srv.URL+"/none/", "--cache", filepath.Join(dir, "cache2"), "--lock", filepath.Join(dir, "other.lock"))
	if code != 1 || !strings.Contains(errs, "/none/nvidia-cufftmp-cu12/ (project nvidia-cufftmp-cu12): HTTP 404: the index has no such project") {
		t.Errorf("--index-url over PIP_INDEX_URL: exit %d: %s", code, errs)
	}
}

func TestManifestsHelp(t *testing.T) {
	code, out, _ := runCLI(t, "manifests", "fetch", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	wantOutput(t, "help", out, "<base>/compute/<product>/redist/redistrib_<version>.json", "--mirror", "--product-url", "--update-lock", "--retries", "--timeout", "cudapkgs manifests fetch --release cuda=12.4.1")
	code, out, _ = runCLI(t, "manifests", "verify", "--help")
	if code != 0 {
		t.Fatal(code)
	}
	wantOutput(t, "help", out, "--manifests", "--lock", "one per line")
}

// Without --product, fetch takes the built-in products NVIDIA publishes
// manifests for, plus any product given a URL; TensorRT only with one.
func TestFetchedByDefault(t *testing.T) {
	// The built-ins NVIDIA lists, the toolkit first, from plugins/builtin.
	var listed []string
	for _, p := range builtintest.Products(t) {
		if !p.Unlisted {
			listed = append(listed, p.Name)
		}
	}
	if len(listed) < 2 || listed[0] != "cuda" || slices.Contains(listed, "tensorrt") {
		t.Fatalf("listed built-ins = %s", listed)
	}
	byDefault := strings.Join(listed, ",")
	tests := []struct {
		urls map[string]string
		want string
	}{
		{nil, byDefault},
		{map[string]string{"tensorrt": "https://t.example/"}, byDefault + ",tensorrt"},
		{map[string]string{"zz": "https://z.example/", "cuda": "https://c.example/", "aa": "https://a.example/"}, byDefault + ",aa,zz"},
	}
	for _, tt := range tests {
		got := strings.Join(fetchedByDefault(builtintest.Products(t), source.Sources{ProductURLs: tt.urls}), ",")
		if got != tt.want {
			t.Errorf("fetchedByDefault(%v) = %s, want %s", tt.urls, got, tt.want)
		}
	}
	lays, unlisted := layouts(builtintest.Products(t))
	if got := strings.Join(unlisted, ","); got != "tensorrt" {
		t.Errorf("unlisted = %s", got)
	}
	if got := lays["cudnn"]; got != (source.Layout{Base: source.DefaultBase, Path: "compute/cudnn/redist"}) {
		t.Errorf("cudnn's layout = %+v", got)
	}
	// Wheel products have no NVIDIA folder: their manifests are made from
	// the index's pages.
	if _, ok := lays["nccl"]; ok {
		t.Errorf("nccl has a layout: %+v", lays["nccl"])
	}
}

// A third party's product is fetched by the layout its plugin describes:
// fetch learns the products as a run does, from the plugins the
// configuration declares, not from a list of the built-ins.
func TestManifestsFetchThirdPartyProduct(t *testing.T) {
	plugin, _ := buildTool(t, ".", "github.com/cudapkgs/cudapkgs/integration/testplugin", "testplugin")
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "acme-plugin")
	script := "#!/bin/sh\nexec " + plugin + " product acme\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(script))
	star := fmt.Sprintf("plugin(path = %q, sha256 = %q)\n", wrapper, hex.EncodeToString(sum[:]))
	if err := os.WriteFile(filepath.Join(dir, "cudapkgs.star"), []byte(star), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newManifestServer(t)
	body := []byte(`{"release_date": "2026-01-01", "release_label": "1.0.0", "release_product": "acme",
  "libacme": {"name": "Acme solver", "license": "Acme", "version": "1.0.0.7",
    "linux-x86_64": {"relative_path": "libacme/libacme-1.0.0.7-archive.tar.xz", "sha256": "` + strings.Repeat("ab", 32) + `", "md5": "00000000000000000000000000000000", "size": "1024"}}}`)
	s.mu.Lock()
	s.files["/m/pub/acme/redistrib_1.0.0.json"] = body // the plugin's Path under a mirror
	s.mu.Unlock()
	cache, lock := filepath.Join(dir, "cache"), filepath.Join(dir, "cudapkgs.lock")
	code, out, errs := runCLI(t, "manifests", "fetch", "--workspace", dir, "--mirror", s.url("m"), "--cache", cache, "--lock", lock, "--release", "acme=1.0.0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantOutput(t, "stdout", out, "1 manifests in "+cache+" (1 fetched, 0 cached)\n")
	wantOutput(t, "stderr", errs, "fetched acme/redistrib_1.0.0.json")
	if _, err := os.Stat(filepath.Join(cache, "acme", "redistrib_1.0.0.json")); err != nil {
		t.Error(err)
	}
	// Without the configuration, acme is no product: no layout to fetch by.
	code, _, errs = runCLI(t, "manifests", "fetch", "--workspace", t.TempDir(), "--mirror", s.url("m"), "--cache", cache, "--lock", lock, "--release", "acme=1.0.0")
	if code == 0 || !strings.Contains(errs, "acme") {
		t.Errorf("without the plugin: exit %d: %s", code, errs)
	}
}

// cuDSS is offered both ways: --source cudss=wheels makes its manifests from
// the index's real pages (recorded from PyPI on 2026-12-05), one per
// release with a cuda12 and, from 0.7, a cuda13 variant, each archive the
// wheel's URL, sha256, size and prefix.
func TestManifestsFetchSourceWheels(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		name := strings.Trim(strings.TrimPrefix(r.URL.Path, "/simple/"), "/")
		data, err := os.ReadFile(filepath.Join("..", "..", "core", "pyindex", "testdata", "pages", name+".json"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
		_, _ = w.Write(data)
	}))
	defer srv.Close()
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	code, out, errs := runCLI(t, "manifests", "fetch", "--product", "cudss", "--source", "cudss=wheels", "--index-url", srv.URL+"/simple/", "--cache", cache, "--lock", filepath.Join(dir, "cudapkgs.lock"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := strings.Join(asked, " "); got != "/simple/nvidia-cudss-cu12/ /simple/nvidia-cudss-cu13/" {
		t.Errorf("asked %s", got)
	}
	// 0.4.0.2 (its .post1 serving), 0.5.0.16, 0.6.0.5, 0.7.0.20, 0.7.1.4,
	// 0.7.1.6, 0.8.0.10, 1.0.0.35; cu13's 0.0.0a0 placeholder is none.
	wantOutput(t, "stdout", out+errs, "8 manifests in "+cache)
	entries, err := os.ReadDir(filepath.Join(cache, "cudss"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), "redistrib_0.4.0.2.json redistrib_0.5.0.16.json redistrib_0.6.0.5.json redistrib_0.7.0.20.json redistrib_0.7.1.4.json redistrib_0.7.1.6.json redistrib_0.8.0.10.json redistrib_1.0.0.35.json"; got != want {
		t.Errorf("cached %s\nwant %s", got, want)
	}
	var m struct {
		Libcudss map[string]json.RawMessage `json:"libcudss"`
	}
	data, err := os.ReadFile(filepath.Join(cache, "cudss", "redistrib_0.8.0.10.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	type archive struct {
		RelativePath string `json:"relative_path"`
		URL          string `json:"url"`
		SHA256       string `json:"sha256"`
		Size         string `json:"size"`
		StripPrefix  string `json:"strip_prefix"`
		Wheel        struct {
			Index, Project, File string
		} `json:"wheel"`
	}
	var x86 map[string]archive
	if err := json.Unmarshal(m.Libcudss["linux-x86_64"], &x86); err != nil {
		t.Fatalf("linux-x86_64 of 0.8.0.10: %v\n%s", err, data)
	}
	want := archive{
		RelativePath: "nvidia-cudss-cu13/nvidia_cudss_cu13-0.8.0.10-py3-none-manylinux_2_17_x86_64.whl",
		Size:         "80682451",
		StripPrefix:  "nvidia/cu13",
	}
	got := x86["cuda13"]
	if got.RelativePath != want.RelativePath || got.Size != want.Size || got.StripPrefix != want.StripPrefix ||
		!strings.HasPrefix(got.URL, "https://files.pythonhosted.org/") || len(got.SHA256) != 64 ||
		got.Wheel.Index != srv.URL+"/simple/" || got.Wheel.Project != "nvidia-cudss-cu13" {
		t.Errorf("0.8.0.10 linux-x86_64 cuda13 = %+v\nwant %+v", got, want)
	}
	if x86["cuda12"].StripPrefix != "nvidia/cu12" {
		t.Errorf("cuda12's strip_prefix = %q", x86["cuda12"].StripPrefix)
	}
	if _, ok := m.Libcudss["linux-aarch64"]; ok {
		t.Errorf("a wheel gave Jetson's key linux-aarch64")
	}
	// generate --source cudss=wheels builds cuDSS from them: its
	// repositories download the wheel as a zip and strip its prefix, and
	// its static link set fails with the reason.
	cudaJSON, err := os.ReadFile(filepath.Join(shared.Manifests(t), "cuda", "redistrib_12.6.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cache, "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "cuda", "redistrib_12.6.3.json"), cudaJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, "out")
	code, _, errs = runCLI(t, "generate", "--manifests", cache, "--workspace", t.TempDir(), "--source", "cudss=wheels", "--cuda", "12.6.3", "--platform", "linux-x86_64", "--out", gen)
	if code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, errs)
	}
	repos, err := os.ReadFile(filepath.Join(gen, "generated.bzl"))
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, "generated.bzl", string(repos),
		`"strip_prefix": "nvidia/cu12"`, `"type": "zip"`,
		"/nvidia_cudss_cu12-0.4.0.2.post1-py3-none-manylinux_2_17_x86_64.whl\"]", `"component": "libcudss"`,
		`"urls": ["https://files.pythonhosted.org/packages/`)
	unusable, err := os.ReadFile(filepath.Join(gen, "unusable", "BUILD.bazel"))
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, "unusable/BUILD.bazel", string(unusable), `name = "libcudss_static"`, "its wheels carry no static library", "--source cudss=nvidia")

	// A source cuDSS does not offer is refused before the index is asked.
	asked = nil
	code, _, errs = runCLI(t, "manifests", "fetch", "--product", "cudss", "--source", "cudss=pip", "--index-url", srv.URL+"/simple/", "--cache", filepath.Join(dir, "cache2"), "--lock", filepath.Join(dir, "other.lock"))
	if code == 0 || !strings.Contains(errs, `"cudss=pip": unknown source "pip"`) || len(asked) != 0 {
		t.Errorf("--source cudss=pip: exit %d, asked %v: %s", code, asked, errs)
	}
}
