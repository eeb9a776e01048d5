package pyindex_test

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pyindex"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the recorded pages")

// index serves testdata/pages/<project>.json at /simple/<project>/ with
// PEP 691's content type, as PyPI does, and counts the requests.
func index(t *testing.T) (*httptest.Server, *int) {
	t.Helper()
	n := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*n++
		if r.Header.Get("Accept") != pyindex.ContentType {
			http.Error(w, "not acceptable", http.StatusNotAcceptable)
			return
		}
		name := strings.Trim(strings.TrimPrefix(r.URL.Path, "/simple/"), "/")
		data, err := os.ReadFile(filepath.Join("testdata", "pages", name+".json"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", pyindex.ContentType)
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, n
}

var nccl = []pyindex.Project{
	{Name: "nvidia-nccl-cu12", CUDAMajor: "12", Package: "nccl", Prefix: "nvidia/nccl"},
	{Name: "nvidia-nccl-cu13", CUDAMajor: "13", Package: "nccl", Prefix: "nvidia/nccl"},
}

// The recorded NCCL pages make one manifest per release, each wheel an
// archive of its platform and CUDA major; the golden files are the bytes.
func TestBuildNCCL(t *testing.T) {
	srv, requests := index(t)
	c := pyindex.Client{Index: srv.URL + "/simple/"}
	pages := map[string]*pyindex.Page{}
	for _, p := range nccl {
		pg, err := c.Project(context.Background(), p.Name)
		if err != nil {
			t.Fatal(err)
		}
		pages[p.Name] = pg
	}
	if *requests != 2 {
		t.Errorf("%d requests, want 2", *requests)
	}
	rels, skipped, err := pyindex.Build("nccl", pyindex.DefaultIndexURL, nccl, pages)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rels {
		names = append(names, r.Release)
	}
	if names[0] != "2.16.2" || names[len(names)-1] != "2.32.6" || len(names) != 31 {
		t.Errorf("releases %v", names)
	}
	for _, s := range skipped {
		if !strings.Contains(s.File, "0.0") {
			t.Errorf("skipped %+v", s)
		}
	}
	byRel := map[string][]byte{}
	for _, r := range rels {
		byRel[r.Release] = r.Data
	}
	// 2.32.3 has both CUDA majors, 2.32.6 CUDA 13 only, 2.25.1 its .post1.
	for _, rel := range []string{"2.32.3", "2.32.6", "2.25.1"} {
		golden := filepath.Join("testdata", "golden", "nccl", manifest.FileName(rel))
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, byRel[rel], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(want), string(byRel[rel])); d != "" {
			t.Errorf("%s (-want +got, go test -update refreshes):\n%s", golden, d)
		}
	}
	m, err := manifest.Parse("x", "nccl", "2.32.3", byRel["2.32.3"])
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.Package("nccl")
	var got []string
	for _, a := range p.Archives {
		got = append(got, a.Platform+"/"+a.Variant+" "+a.StripPrefix)
		if !strings.HasPrefix(a.URL, "https://files.pythonhosted.org/packages/") || a.Size < 100<<20 {
			t.Errorf("archive %+v", a)
		}
	}
	want := []string{"linux-x86_64/cuda12 nvidia/nccl", "linux-x86_64/cuda13 nvidia/nccl", "linux-sbsa/cuda12 nvidia/nccl", "linux-sbsa/cuda13 nvidia/nccl"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("archives (-want +got):\n%s", d)
	}
	m, err = manifest.Parse("x", "nccl", "2.25.1", byRel["2.25.1"])
	if err != nil {
		t.Fatal(err)
	}
	p, _ = m.Package("nccl")
	if a, _ := p.Archive(manifest.LinuxX86_64, "cuda12"); !strings.Contains(a.RelativePath, "2.25.1.post1") {
		t.Errorf("2.25.1 is served by %s, want its .post1 rebuild", a.RelativePath)
	}
}

// The same pages give the same bytes.
func TestBuildDeterministic(t *testing.T) {
	pages := map[string]*pyindex.Page{}
	for _, p := range nccl {
		data, err := os.ReadFile(filepath.Join("testdata", "pages", p.Name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		pg, err := pyindex.ParsePage("https://pypi.org/simple/"+p.Name+"/", p.Name, pyindex.ContentType, data)
		if err != nil {
			t.Fatal(err)
		}
		pages[p.Name] = pg
	}
	a, _, err := pyindex.Build("nccl", pyindex.DefaultIndexURL, nccl, pages)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		b, _, err := pyindex.Build("nccl", pyindex.DefaultIndexURL, nccl, pages)
		if err != nil {
			t.Fatal(err)
		}
		for j := range a {
			if !bytes.Equal(a[j].Data, b[j].Data) {
				t.Fatalf("run %d: %s differs", i, a[j].Release)
			}
		}
	}
}

// cuFFTMp's wheels keep their files under a folder per CUDA major.
func TestBuildPrefixPerMajor(t *testing.T) {
	srv, _ := index(t)
	c := pyindex.Client{Index: srv.URL + "/simple"}
	projects := []pyindex.Project{
		{Name: "nvidia-cufftmp-cu12", CUDAMajor: "12", Package: "libcufftmp", Prefix: "nvidia/cufftmp/cu{major}"},
		{Name: "nvidia-cufftmp-cu13", CUDAMajor: "13", Package: "libcufftmp", Prefix: "nvidia/cufftmp/cu{major}"},
	}
	pages := map[string]*pyindex.Page{}
	for _, p := range projects {
		pg, err := c.Project(context.Background(), p.Name)
		if err != nil {
			t.Fatal(err)
		}
		pages[p.Name] = pg
	}
	rels, skipped, err := pyindex.Build("cufftmp", srv.URL+"/simple/", projects, pages)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		m, err := manifest.Parse("x", "cufftmp", r.Release, r.Data)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := m.Package("libcufftmp")
		for _, a := range p.Archives {
			got = append(got, r.Release+" "+a.Platform+"/"+a.Variant+" "+a.StripPrefix)
		}
	}
	want := []string{
		"11.4.0.6 linux-x86_64/cuda12 nvidia/cufftmp/cu12", "11.4.0.6 linux-sbsa/cuda12 nvidia/cufftmp/cu12",
		"12.1.3.2 linux-x86_64/cuda13 nvidia/cufftmp/cu13", "12.1.3.2 linux-sbsa/cuda13 nvidia/cufftmp/cu13",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// 12.1.3.1's only wheel is yanked: no release, and said so.
	var yanked bool
	for _, s := range skipped {
		yanked = yanked || s.Why == "yanked" && strings.Contains(s.File, "12.1.3.1")
	}
	if !yanked {
		t.Errorf("skipped %+v: want the yanked 12.1.3.1", skipped)
	}
}

// Each bad page is one message naming the URL, the project and what was
// expected.
func TestPageErrors(t *testing.T) {
	sha := strings.Repeat("a", 64)
	file := func(fields string) string {
		return `{"meta": {"api-version": "1.1"}, "name": "p", "files": [{"filename": "p-1.0-py3-none-manylinux2014_x86_64.whl", ` + fields + `}]}`
	}
	for _, tc := range []struct {
		name, ctype, body, want string
	}{
		{"html", "text/html", "<html></html>", `https://i.example/simple/p/ (project p): Content-Type "text/html": expected application/vnd.pypi.simple.v1+json`},
		{"bad json", pyindex.ContentType, `{"files": [`, `(project p): invalid JSON: unexpected end of JSON input`},
		{"api 2", pyindex.ContentType, `{"meta": {"api-version": "2.0"}, "files": []}`, `meta.api-version "2.0": expected 1.x`},
		{"no sha256", pyindex.ContentType, file(`"url": "x.whl", "hashes": {"md5": "00"}`), `files[0] (p-1.0-py3-none-manylinux2014_x86_64.whl): no hashes.sha256: expected every file's sha256`},
		{"short sha256", pyindex.ContentType, file(`"url": "x.whl", "hashes": {"sha256": "abc"}`), `hashes.sha256 "abc": expected 64 hex digits`},
		{"negative size", pyindex.ContentType, file(`"url": "x.whl", "size": -1, "hashes": {"sha256": "` + sha + `"}`), `size -1: expected a non-negative number of bytes`},
		{"no url", pyindex.ContentType, file(`"hashes": {"sha256": "` + sha + `"}`), `url "": expected a URL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pyindex.ParsePage("https://i.example/simple/p/", "p", tc.ctype, []byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "https://i.example/simple/p/ (project p): ") {
				t.Errorf("got %v\nwant containing %q", err, tc.want)
			}
		})
	}
}

// A relative file URL (a mirror's) is resolved against the page's URL.
func TestRelativeFileURL(t *testing.T) {
	body := `{"meta": {"api-version": "1.0"}, "files": [{"filename": "p-1.0-py3-none-manylinux2014_aarch64.whl",
	  "url": "../../packages/p-1.0-py3-none-manylinux2014_aarch64.whl#sha256=x", "hashes": {"sha256": "` + strings.Repeat("B", 64) + `"}}]}`
	pg, err := pyindex.ParsePage("https://mirror.example/root/simple/p/", "p", pyindex.ContentType+"; charset=utf-8", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	f := pg.Files[0]
	if f.URL != "https://mirror.example/root/packages/p-1.0-py3-none-manylinux2014_aarch64.whl" || f.SHA256 != strings.Repeat("b", 64) || f.Size != -1 {
		t.Errorf("file %+v", f)
	}
}

// HTTP failures name the page and the project.
func TestClientErrors(t *testing.T) {
	srv, _ := index(t)
	for _, tc := range []struct{ index, project, want string }{
		{srv.URL + "/simple/", "no-such-project", "/simple/no-such-project/ (project no-such-project): HTTP 404: the index has no such project"},
		{srv.URL + "/simple/", "Nvidia_NCCL.cu12", ""}, // PEP 503 normalisation finds nvidia-nccl-cu12
		{"ftp://x/simple", "p", `index URL "ftp://x/simple": expected an absolute http or https URL`},
	} {
		_, err := pyindex.Client{Index: tc.index}.Project(context.Background(), tc.project)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.project, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.project, err, tc.want)
		}
	}
	// An index that serves only HTML answers PEP 691's Accept with 406.
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusNotAcceptable)
	}))
	defer html.Close()
	_, err := pyindex.Client{Index: html.URL}.Project(context.Background(), "p")
	if err == nil || !strings.Contains(err.Error(), "HTTP 406: the index does not serve PEP 691's JSON API") {
		t.Errorf("406: %v", err)
	}
}

func TestParseWheelName(t *testing.T) {
	for _, tc := range []struct {
		file                   string
		release, platform, err string
		post                   int
	}{
		{file: "nvidia_nccl_cu12-2.25.1.post1-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl", release: "2.25.1", post: 1, platform: "linux-x86_64"},
		{file: "nvidia_nccl_cu13-2.28.3-py3-none-manylinux_2_18_aarch64.whl", release: "2.28.3", platform: "linux-sbsa"},
		{file: "nvidia_cudss_cu12-0.6.0.5-py3-none-win_amd64.whl", release: "0.6.0.5", platform: "windows-x86_64"},
		{file: "nvidia_cufftmp_cu13-0.0.0a0-py2.py3-none-any.whl", release: "", platform: ""},
		{file: "x-1.0-1-py3-none-macosx_11_0_arm64.whl", release: "1.0", platform: ""},
		{file: "x-1.0.whl", err: "expected name-version(-build)-python-abi-platform.whl"},
	} {
		w, err := pyindex.ParseWheelName(tc.file)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.file, err, tc.err)
			}
			continue
		}
		if err != nil || w.Release != tc.release || w.Post != tc.post || w.Platform != tc.platform {
			t.Errorf("%s: %+v %v", tc.file, w, err)
		}
	}
	if got := pyindex.Normalize("Nvidia_NCCL..cu12"); got != "nvidia-nccl-cu12" {
		t.Errorf("Normalize = %q", got)
	}
}
