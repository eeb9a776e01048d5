package source

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFolders(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s       Sources
		product string
		want    []string
		wantErr string
	}{
		{"NVIDIA by default", Sources{Layouts: testLayouts()}, "cuda", []string{"https://developer.download.nvidia.com/compute/cuda/redist/"}, ""},
		{"mirrors first, in order, then the base", Sources{Layouts: testLayouts(), Mirrors: []string{"https://a.example/nv/", "http://b.example"}, Base: "https://c.example"}, "cudnn",
			[]string{"https://a.example/nv/compute/cudnn/redist/", "http://b.example/compute/cudnn/redist/", "https://c.example/compute/cudnn/redist/"}, ""},
		{"a product URL replaces the layout", Sources{Layouts: testLayouts(), Mirrors: []string{"https://a.example"}, ProductURLs: map[string]string{"cutensor": "https://t.example/ct"}}, "cutensor",
			[]string{"https://t.example/ct/"}, ""},
		{"tensorrt needs a product URL", Sources{Layouts: testLayouts(), Mirrors: []string{"https://a.example"}, Unlisted: []string{"tensorrt"}}, "tensorrt", nil, "NVIDIA publishes no redistrib manifests for tensorrt"},
		{"tensorrt with one", Sources{Layouts: testLayouts(), ProductURLs: map[string]string{"tensorrt": "https://t.example/trt/"}}, "tensorrt", []string{"https://t.example/trt/"}, ""},
		{"bad product", Sources{Layouts: testLayouts()}, "CUDA", nil, `product "CUDA"`},
		{"a product no plugin describes", Sources{Layouts: testLayouts()}, "nccl", nil, "nccl: no plugin describes where its manifests are published"},
		{"a plugin's own base and path", Sources{Layouts: map[string]Layout{"x": {Base: "https://x.example/", Path: "/pub/x/"}}}, "x", []string{"https://x.example/pub/x/"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.s.Folders(tc.product)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	urls, err := Sources{Layouts: testLayouts(), Mirrors: []string{"https://a.example"}}.ManifestURLs("cuda", "12.4.1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://a.example/compute/cuda/redist/redistrib_12.4.1.json", "https://developer.download.nvidia.com/compute/cuda/redist/redistrib_12.4.1.json"}; !cmp.Equal(urls, want) {
		t.Errorf("ManifestURLs = %v", urls)
	}
	if _, err := (Sources{Layouts: testLayouts()}).ManifestURLs("cuda", "../../x"); err == nil {
		t.Error("a release that is not a version was accepted")
	}
}

func TestParseIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		page string
		want []string
	}{
		{"apache listing", string(apacheIndex("/compute/cuda/redist/", []string{"redistrib_12.9.0.json", "redistrib_12.10.0.json", "redistrib_11.8.0.json"})),
			[]string{"11.8.0", "12.9.0", "12.10.0"}},
		{"quotes, paths, duplicates, junk", `<a href='redistrib_9.1.0.json'>x</a> <A HREF=redistrib_8.9.7.json>y</A>
			<a href="/compute/cudnn/redist/redistrib_9.1.0.json">again</a> <a href="redistrib_9.1.0_beta.json">b</a>
			<a href="feature_9.1.0.json">f</a> <a href="redistrib_.json">e</a> <a href="redistrib_9.10.json">`,
			[]string{"8.9.7", "9.1.0", "9.10"}},
		{"nothing", "<html>empty</html>", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseIndex([]byte(tc.page)); !cmp.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLockRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), LockFileName)
	l, err := ReadLock(path) // missing: empty
	if err != nil || len(l.Manifests) != 0 {
		t.Fatalf("ReadLock(missing) = %v, %v", l, err)
	}
	if got := string(l.Marshal()); got != "{\n  \"version\": 1,\n  \"manifests\": {}\n}\n" {
		t.Errorf("empty lock = %q", got)
	}
	l.Manifests["cudnn/redistrib_9.12.0.json"] = LockEntry{SHA256: strings.Repeat("b", 64), Size: 5359}
	l.Manifests["cuda/redistrib_12.4.1.json"] = LockEntry{SHA256: strings.Repeat("a", 64), Size: 58445}
	if err := l.Write(); err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "manifests": {
    "cuda/redistrib_12.4.1.json": {
      "sha256": "` + strings.Repeat("a", 64) + `",
      "size": 58445
    },
    "cudnn/redistrib_9.12.0.json": {
      "sha256": "` + strings.Repeat("b", 64) + `",
      "size": 5359
    }
  }
}
`
	got, _ := os.ReadFile(path)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	back, err := ReadLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(back.Manifests, l.Manifests) || !bytes.Equal(back.Marshal(), got) {
		t.Errorf("round trip changed the lock: %v", back.Manifests)
	}
}

// TestParseLockWholeNumbers: a version or size written as any JSON number
// with a whole value is that value (issue 24: "version": 1.0 got "expected
// a number").
func TestParseLockWholeNumbers(t *testing.T) {
	sha := strings.Repeat("0", 64)
	for _, tc := range []struct {
		version, size string
		want          int64
	}{
		{"1", "58445", 58445},
		{"1.0", "58445.0", 58445},
		{"1e0", "58.445e3", 58445},
		{"10e-1", "5844500e-2", 58445},
		{"1.000", "0.58445E+5", 58445},
	} {
		text := `{"version": ` + tc.version + `, "manifests": {"cuda/redistrib_1.json": {"sha256": "` + sha + `", "size": ` + tc.size + `}}}`
		l, err := ParseLock("x.lock", []byte(text))
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if got := l.Manifests["cuda/redistrib_1.json"].Size; got != tc.want {
			t.Errorf("%s: size %d, want %d", text, got, tc.want)
		}
	}
}

func TestParseLockErrors(t *testing.T) {
	sha := strings.Repeat("0", 64)
	for _, tc := range []struct {
		name, text, want string
	}{
		{"syntax", "{\n  \"version\": 1,\n  \"manifests\": {,}\n}\n", "x.lock:3:17: invalid lock file: invalid character ','"},
		{"truncated", `{"version": 1, "manifests": {`, "x.lock: invalid lock file: unexpected end of input"},
		{"empty", ``, "x.lock: invalid lock file: unexpected end of input"},
		{"wrong type", `{"version": "1", "manifests": {}}`, `x.lock:1:13: invalid lock file: "version" is a JSON string, expected a number`},
		// JSON has one number type: 1.0 and 1e0 are the version 1 (issue
		// 24), 1.5 is not a whole number.
		{"fractional version", `{"version": 1.5, "manifests": {}}`, `x.lock: "version": 1.5 is not a whole number: expected "version": 1`},
		{"version a hair above 1", `{"version": 1.0000000000000001, "manifests": {}}`, `"version": 1.0000000000000001 is not a whole number`},
		{"huge version", `{"version": 1e999999999999, "manifests": {}}`, `"version": 1e999999999999 is out of range`},
		{"fractional size", `{"version": 1, "manifests": {"cuda/redistrib_1.json": {"sha256": "` + sha + `", "size": 1.5}}}`, `manifests["cuda/redistrib_1.json"].size: 1.5 is not a whole number: expected a byte count`},
		{"string size", `{"version": 1, "manifests": {"cuda/redistrib_1.json": {"sha256": "` + sha + `", "size": "1"}}}`, `x.lock:1:142: invalid lock file: "size" of an entry of "manifests" is a JSON string, expected a number`},
		{"integral version, not 1", `{"version": 2.0, "manifests": {}}`, "lock file version 2.0 is not supported: this cudapkgs reads version 1"},
		{"wrong entry type", `{"version": 1, "manifests": {"cuda/redistrib_1.json": []}}`, `x.lock:1:56: invalid lock file: an entry of "manifests" is a JSON array, expected an object`},
		{"unknown field", `{"version": 1, "manifests": {}, "extra": 1}`, `x.lock: invalid lock file: json: unknown field "extra"`},
		{"trailing data", `{"version": 1, "manifests": {}} {}`, "data after the top-level object"},
		{"no version", `{"manifests": {}}`, `x.lock: no "version": expected "version": 1`},
		{"future version", `{"version": 2, "manifests": {}}`, "lock file version 2 is not supported: this cudapkgs reads version 1"},
		{"no manifests", `{"version": 1}`, `no "manifests" object`},
		{"bad key", `{"version": 1, "manifests": {"cuda/12.4.1.json": {"sha256": "` + sha + `", "size": 1}}}`, `manifests: "cuda/12.4.1.json": expected <product>/redistrib_<version>.json`},
		{"nested key", `{"version": 1, "manifests": {"a/cuda/redistrib_1.json": {"sha256": "` + sha + `", "size": 1}}}`, `expected <product>/redistrib_<version>.json`},
		{"bad version in key", `{"version": 1, "manifests": {"cuda/redistrib_12.x.json": {"sha256": "` + sha + `", "size": 1}}}`, `"cuda/redistrib_12.x.json": version "12.x"`},
		{"bad sha", `{"version": 1, "manifests": {"cuda/redistrib_1.json": {"sha256": "ABC", "size": 1}}}`, `manifests["cuda/redistrib_1.json"].sha256: "ABC" is not 64 lower-case hex digits`},
		{"no sha", `{"version": 1, "manifests": {"cuda/redistrib_1.json": {"size": 1}}}`, `manifests["cuda/redistrib_1.json"]: no "sha256"`},
		{"no size", `{"version": 1, "manifests": {"cuda/redistrib_1.json": {"sha256": "` + sha + `"}}}`, `no "size"`},
		{"zero size", `{"version": 1, "manifests": {"cuda/redistrib_1.json": {"sha256": "` + sha + `", "size": 0}}}`, `.size: 0 is not a positive byte count`},
		// encoding/json matches field names ignoring case: found by FuzzParseLock.
		{"field in another case", `{"version":1,"mAnifests":{}}`, `unknown field "mAnifests": expected "version" and "manifests" (field names are case-sensitive)`},
		{"sha256 twice in two cases", `{"version": 1, "manifests": {"cuda/redistrib_1.json": {"sha256": "` + sha + `", "SHA256": "` + strings.Repeat("1", 64) + `", "size": 1}}}`, `manifests["cuda/redistrib_1.json"]: unknown field "SHA256"`},
		{"unknown entry field", `{"version": 1, "manifests": {"cuda/redistrib_1.json": {"sha256": "` + sha + `", "size": 1, "md5": ""}}}`, `unknown field "md5"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLock("x.lock", []byte(tc.text))
			var le *LockError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want a *LockError containing %q", err, tc.want)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	write := func(key string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cuda := sharedManifest(t, "cuda", "12.4.1")
	cudnn := sharedManifest(t, "cudnn", "9.12.0")
	write("cuda/redistrib_12.4.1.json", cuda)
	write("cudnn/redistrib_9.12.0.json", cudnn)
	write("cuda/features/feature_12.4.1.json", []byte("{}")) // ignored
	write(".lock", nil)                                      // ignored
	lock := NewLock("cudapkgs.lock")
	lock.Manifests["cuda/redistrib_12.4.1.json"] = EntryFor(cuda)
	lock.Manifests["cudnn/redistrib_9.12.0.json"] = EntryFor(cudnn)
	if n, err := Verify(dir, lock); err != nil || n != 2 {
		t.Fatalf("Verify = %d, %v; want 2, nil", n, err)
	}

	write("cudnn/redistrib_9.12.0.json", append(cudnn, '\n'))
	write("cutensor/redistrib_2.2.0.json", []byte("{}"))
	lock.Manifests["cuda/redistrib_12.3.2.json"] = EntryFor([]byte("x"))
	n, err := Verify(dir, lock)
	var ve *VerifyError
	if !errors.As(err, &ve) || n != 1 {
		t.Fatalf("Verify = %d, %v; want 1 and a *VerifyError", n, err)
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.String())
	}
	want := []string{
		"cuda/redistrib_12.3.2.json: listed in cudapkgs.lock but missing from " + dir,
		"cudnn/redistrib_9.12.0.json: sha256 " + EntryFor(append(cudnn, '\n')).SHA256 + " (5360 bytes) does not match cudapkgs.lock, which expects " + EntryFor(cudnn).SHA256 + " (5359 bytes)",
		"cutensor/redistrib_2.2.0.json: in " + dir + " but not in cudapkgs.lock",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(err.Error(), dir+" does not match cudapkgs.lock: 3 problems\n  cuda/") {
		t.Errorf("error = %v", err)
	}
}

func TestProgress(t *testing.T) {
	var plain bytes.Buffer
	p := NewProgress(&plain, false)
	p.Start(2)
	p.Report(Event{Kind: Fetched, File: "cuda/redistrib_12.4.1.json", Size: 58445, URL: "https://x/redistrib_12.4.1.json"})
	p.Report(Event{Kind: Cached, File: "cudnn/redistrib_9.12.0.json"})
	p.Finish()
	want := "fetched cuda/redistrib_12.4.1.json (58445 bytes) from https://x/redistrib_12.4.1.json\ncached cudnn/redistrib_9.12.0.json\n"
	if plain.String() != want {
		t.Errorf("plain progress = %q, want %q", plain.String(), want)
	}

	var bar bytes.Buffer
	p = NewProgress(&bar, true)
	p.Report(Event{Kind: Waiting, File: "/c/.lock"})
	p.Start(2)
	p.Report(Event{Kind: Cached, File: "cudnn/redistrib_9.12.0.json"})
	p.Report(Event{Kind: Skipped, URL: "https://m/x", Next: "https://n/x", Err: errors.New("HTTP 404 Not Found")})
	p.Report(Event{Kind: Fetched, File: "cuda/redistrib_12.4.1.json"})
	p.Finish()
	out := bar.String()
	for _, w := range []string{"waiting for another cudapkgs run to release /c/.lock\n", "skipping https://m/x: HTTP 404 Not Found; trying https://n/x\n", "1/2", "manifests"} {
		if !strings.Contains(out, w) {
			t.Errorf("bar output lacks %q: %q", w, out)
		}
	}
	NewProgress(nil, true).Report(Event{}) // discards
}
