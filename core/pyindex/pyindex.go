// Package pyindex reads a Python package index through its JSON Simple API
// (PEP 691, with PEP 700's sizes and versions) and turns a product's wheels
// into manifests in NVIDIA's redistrib_<version>.json shape, so that the
// rest of cudapkgs reads a wheel-only product (NCCL, NVSHMEM) like any
// other.
//
// The package does no I/O beyond the HTTP requests a Client sends; Build is
// a pure function of the pages it is given, so the same pages give the same
// bytes.
package pyindex

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// DefaultIndexURL is PyPI's Simple API, what pip uses without
// --index-url.
const DefaultIndexURL = "https://pypi.org/simple/"

// ContentType is PEP 691's JSON form of a project page, version 1.
const ContentType = "application/vnd.pypi.simple.v1+json"

// MaxPageSize bounds one project page.
const MaxPageSize = 32 << 20

// Doer sends one HTTP request (an *http.Client).
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Client reads project pages from one index.
type Client struct {
	// Index is the index's base URL ("https://pypi.org/simple/"); a
	// project's page is Index + normalised name + "/".
	Index string
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP Doer
}

// Page is one project's page.
type Page struct {
	URL     string // where it was read
	Project string // the name asked for
	// Versions are PEP 700's versions, as the index lists them.
	Versions []string
	Files    []File
}

// File is one distribution file of a project.
type File struct {
	Name   string // "nvidia_nccl_cu12-2.21.5-py3-none-manylinux2014_x86_64.whl"
	URL    string // absolute (a relative URL is resolved against the page's)
	SHA256 string // lower-case hex
	Size   int64  // PEP 700; -1 when the index does not say
	Yanked bool
	// Uploaded is PEP 700's upload-time, "" when the index does not say.
	Uploaded string
}

// PageError is a project page that cannot be used: it names the URL, the
// project and what was expected.
type PageError struct {
	URL, Project string
	Msg          string
}

func (e *PageError) Error() string {
	return fmt.Sprintf("%s (project %s): %s", e.URL, e.Project, e.Msg)
}

// CheckIndexURL checks an index URL as pip's --index-url takes it.
func CheckIndexURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("index URL %q: %v", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("index URL %q: expected an absolute http or https URL such as %q", s, DefaultIndexURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("index URL %q: expected a URL without query or fragment", s)
	}
	return nil
}

// Normalize is PEP 503's normalised project name: lower case, runs of "-",
// "_" and "." one "-".
func Normalize(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		if c == '-' || c == '_' || c == '.' {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(c)
	}
	return b.String()
}

// PageURL is the URL of a project's page on the index.
func PageURL(index, project string) string {
	return strings.TrimRight(index, "/") + "/" + Normalize(project) + "/"
}

// Project reads one project's page.
func (c Client) Project(ctx context.Context, project string) (*Page, error) {
	index := c.Index
	if index == "" {
		index = DefaultIndexURL
	}
	if err := CheckIndexURL(index); err != nil {
		return nil, err
	}
	u := PageURL(index, project)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &PageError{URL: u, Project: project, Msg: err.Error()}
	}
	// PEP 691: ask for JSON only; an index that cannot answer so says 406.
	req.Header.Set("Accept", ContentType)
	req.Header.Set("User-Agent", "cudapkgs")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s (project %s): %w", u, project, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, &PageError{URL: u, Project: project, Msg: "HTTP 404: the index has no such project"}
	case resp.StatusCode == http.StatusNotAcceptable:
		return nil, &PageError{URL: u, Project: project, Msg: "HTTP 406: the index does not serve PEP 691's JSON API (" + ContentType + "); give an index that does"}
	case resp.StatusCode != http.StatusOK:
		return nil, &PageError{URL: u, Project: project, Msg: "HTTP " + resp.Status}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxPageSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s (project %s): %w", u, project, err)
	}
	if len(body) > MaxPageSize {
		return nil, &PageError{URL: u, Project: project, Msg: fmt.Sprintf("page larger than %d bytes", MaxPageSize)}
	}
	final := u
	if resp.Request != nil && resp.Request.URL != nil {
		final = resp.Request.URL.String() // relative file URLs are relative to where the page was served
	}
	return ParsePage(final, project, resp.Header.Get("Content-Type"), body)
}

// ParsePage reads a PEP 691 JSON project page served from pageURL with the
// given Content-Type.
func ParsePage(pageURL, project, contentType string, body []byte) (*Page, error) {
	fail := func(format string, args ...any) error {
		return &PageError{URL: pageURL, Project: project, Msg: fmt.Sprintf(format, args...)}
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt != ContentType {
		return nil, fail("Content-Type %q: expected %s (PEP 691's JSON API; an HTML-only index is not supported)", contentType, ContentType)
	}
	var raw struct {
		Meta struct {
			APIVersion string `json:"api-version"`
		} `json:"meta"`
		Name     string   `json:"name"`
		Versions []string `json:"versions"`
		Files    []struct {
			Filename   string            `json:"filename"`
			URL        string            `json:"url"`
			Hashes     map[string]string `json:"hashes"`
			Size       *int64            `json:"size"`
			Yanked     any               `json:"yanked"`
			UploadTime string            `json:"upload-time"`
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fail("invalid JSON: %v", err)
	}
	if major, _, _ := strings.Cut(raw.Meta.APIVersion, "."); major != "1" {
		return nil, fail("meta.api-version %q: expected 1.x", raw.Meta.APIVersion)
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil, fail("%v", err)
	}
	p := &Page{URL: pageURL, Project: project, Versions: raw.Versions}
	for i, f := range raw.Files {
		at := fmt.Sprintf("files[%d] (%s)", i, f.Filename)
		if f.Filename == "" || strings.ContainsAny(f.Filename, "/\\") {
			return nil, fail("files[%d].filename %q: expected a file name", i, f.Filename)
		}
		sha := strings.ToLower(f.Hashes["sha256"])
		if sha == "" {
			return nil, fail("%s: no hashes.sha256: expected every file's sha256", at)
		}
		if !isHex64(sha) {
			return nil, fail("%s: hashes.sha256 %q: expected 64 hex digits", at, f.Hashes["sha256"])
		}
		ref, err := url.Parse(f.URL)
		if err != nil || f.URL == "" {
			return nil, fail("%s: url %q: expected a URL", at, f.URL)
		}
		abs := base.ResolveReference(ref)
		abs.Fragment = "" // PEP 503's #sha256=… is the hash again
		size := int64(-1)
		if f.Size != nil {
			if *f.Size < 0 {
				return nil, fail("%s: size %d: expected a non-negative number of bytes", at, *f.Size)
			}
			size = *f.Size
		}
		yanked := false
		switch y := f.Yanked.(type) {
		case bool:
			yanked = y
		case string:
			yanked = true // the reason
		}
		p.Files = append(p.Files, File{Name: f.Filename, URL: abs.String(), SHA256: sha, Size: size, Yanked: yanked, Uploaded: f.UploadTime})
	}
	return p, nil
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
