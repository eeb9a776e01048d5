package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// TestLockAgreesWithListings fails when a wheel of lock.json is not the one
// plugins/internal/wheelfiles/testdata/listings.json records (the project's
// record of NVIDIA's wheels): same name, version and arch, same file and
// sha256.
func TestLockAgreesWithListings(t *testing.T) {
	l, err := LoadLock("lock.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../plugins/internal/wheelfiles/testdata/listings.json")
	if err != nil {
		t.Fatal(err)
	}
	var ls struct {
		Listings []struct {
			Wheel, Version, Arch, File, SHA256 string
		} `json:"listings"`
	}
	if err := json.Unmarshal(data, &ls); err != nil {
		t.Fatal(err)
	}
	wheels := 0
	for _, a := range l.Artifacts {
		if a.Kind != "wheel" {
			continue
		}
		wheels++
		found := false
		for _, w := range ls.Listings {
			if w.Wheel != a.Name || w.Version != a.Version || w.Arch != a.Arch {
				continue
			}
			found = true
			if w.File != a.File || w.SHA256 != a.SHA256 {
				t.Errorf("%s: lock.json has %s sha256 %s, listings.json %s sha256 %s", a.ID, a.File, a.SHA256, w.File, w.SHA256)
			}
		}
		if !found {
			t.Errorf("%s: not in listings.json", a.ID)
		}
	}
	if wheels == 0 {
		t.Fatal("no wheels in lock.json")
	}
}

// TestLockAgreesWithManifests checks every archive of lock.json against
// NVIDIA's real manifests: the version and the archive's name.
func TestLockAgreesWithManifests(t *testing.T) {
	shared := shared.Manifests(t)
	l, err := LoadLock("lock.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range l.Archives {
		ar := &l.Archives[i]
		m, err := readReal(shared, ar.Product, ar.Release)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.checkArchive(ar); err != nil {
			t.Error(err)
		}
	}
}

func TestVersionMatches(t *testing.T) {
	for _, c := range []struct {
		kind, av, v string
		want        bool
	}{
		{"wheel", "13.3.33", "13.3.33", true},
		{"wheel", "12.4.127.post1", "12.4.127", true},
		{"wheel", "2.8.1", "2.8.1.0", true},
		{"wheel", "2.8.1", "2.8.2.0", false},
		{"deb", "12.4.131~12.4.1-8.2+b1", "12.4.131", true},
		{"deb", "12.4.127~12.4.1-8.2+b1", "12.4.131", false},
	} {
		if got := versionMatches(&Artifact{Kind: c.kind, Version: c.av}, c.v); got != c.want {
			t.Errorf("versionMatches(%s %s, %s) = %v", c.kind, c.av, c.v, got)
		}
	}
}

// TestHolds: a wheel whose version leaves out NVIDIA's build number is the
// version its holds says, and only that one; holds must extend the version.
func TestHolds(t *testing.T) {
	a := &Artifact{Kind: "wheel", Version: "0.8.1", Holds: "0.8.1.1", Why: "header"}
	if !versionMatches(a, "0.8.1.1") || versionMatches(a, "0.8.1") || versionMatches(a, "0.8.1.0") {
		t.Errorf("holds 0.8.1.1: versionMatches wrong")
	}
	for _, bad := range []Artifact{
		{Kind: "wheel", Version: "0.8.1", Holds: "0.8.2.1", Why: "x"},
		{Kind: "wheel", Version: "0.8.1", Holds: "0.8.1.1"},
	} {
		bad.ID, bad.Name, bad.Arch, bad.File, bad.SHA256 = "w==0.8.1:x86_64", "w", "x86_64", "w.whl", strings.Repeat("0", 64)
		if err := (&Lock{Artifacts: []Artifact{bad}}).Check(); err == nil || !strings.Contains(err.Error(), "holds") {
			t.Errorf("holds %q why %q: err %v", bad.Holds, bad.Why, err)
		}
	}
}

// TestExactMapBeatsLockDrop: a map entry naming one file takes it though the
// lock's drop patterns match it (a license in .dist-info); a prefix entry
// does not, and a source's own drop still wins.
func TestExactMapBeatsLockDrop(t *testing.T) {
	l := &Lock{Drop: []string{"*.dist-info"}}
	lic := "w-1.dist-info/licenses/LICENSE.txt"
	s := &Source{Map: []Move{{From: lic, To: "LICENSE"}, {From: "w-1.dist-info/", To: "x/"}}}
	if dst, ok, err := l.mapPath(s, lic); dst != "LICENSE" || !ok || err != nil {
		t.Errorf("exact: %q %v %v", dst, ok, err)
	}
	if _, ok, err := l.mapPath(s, "w-1.dist-info/RECORD"); ok || err != nil {
		t.Errorf("prefix: %v %v", ok, err)
	}
	s.Drop = []string{"LICENSE.txt"}
	if _, ok, _ := l.mapPath(s, lic); ok {
		t.Errorf("the source's drop should win")
	}
}

// TestRepackSynthetic runs the tool on a tiny lock whose artifacts (a wheel
// zip and a deb made here) are already in the cache, twice into two caches,
// and checks the archives are byte-identical, laid out as the map says,
// and that the manifests parse with core/manifest.
func TestRepackSynthetic(t *testing.T) {
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("xz is not installed")
	}
	dir := t.TempDir()
	whl := makeZip(t, map[string]string{
		"nvidia/foo/include/foo.h":          "int foo(void);\n",
		"nvidia/foo/lib/libfoo.so.1":        "not really a library\n",
		"nvidia/foo/__init__.py":            "",
		"nvidia/__init__.py":                "",
		"nvidia_foo-1.2.3.dist-info/RECORD": "x\n",
	})
	deb := makeDeb(t, map[string]string{
		"./usr/bin/footool":             "#!/bin/sh\necho foo\n",
		"./usr/share/doc/foo/copyright": "c\n",
	})
	lockJSON := fmt.Sprintf(`{
  "drop": ["*.dist-info", "__init__.py", "__pycache__"],
  "artifacts": [
    {"id": "nvidia-foo==1.2.3:x86_64", "kind": "wheel", "name": "nvidia-foo", "version": "1.2.3", "arch": "x86_64",
     "file": "nvidia_foo-1.2.3-py3-none-manylinux2014_x86_64.whl", "sha256": %q},
    {"id": "foo-tools==1.2.3-1:amd64", "kind": "deb", "name": "foo-tools", "version": "1.2.3-1", "arch": "amd64",
     "file": "foo-tools_1.2.3-1_amd64.deb", "sha256": %q}
  ],
  "archives": [
    {"set": "one", "product": "cuda", "release": "9.9.0", "package": "foo", "platform": "linux-x86_64", "version": "1.2.3",
     "sources": [
       {"artifact": "nvidia-foo==1.2.3:x86_64", "map": [{"from": "nvidia/foo/", "to": ""}]},
       {"artifact": "foo-tools==1.2.3-1:amd64", "map": [{"from": "usr/bin/footool", "to": "bin/footool"}], "rest": "drop"}
     ],
     "written": [
       {"path": "lib/libfoo.so", "link": "libfoo.so.1", "origin": "written, not NVIDIA's"},
       {"path": "bin/foo.profile", "content": "TOP = $(_HERE_)/..\n", "origin": "written, not NVIDIA's"}
     ]},
    {"set": "two", "product": "bar", "release": "1.0.0", "package": "libbar", "platform": "linux-x86_64", "variant": "cuda13", "version": "1.2.3.0",
     "sources": [{"artifact": "nvidia-foo==1.2.3:x86_64", "map": [{"from": "nvidia/foo/include/", "to": "include/"}], "drop": ["nvidia/foo/lib/"]}]}
  ]
}`, sum(whl), sum(deb))
	lock := filepath.Join(dir, "lock.json")
	write(t, lock, lockJSON)
	shared := filepath.Join(dir, "shared")
	write(t, filepath.Join(shared, "cuda/redistrib_9.9.0.json"), `{
    "release_date": "2030-01-01", "release_label": "9.9.0", "release_product": "cuda",
    "foo": {"name": "Foo", "license": "CUDA Toolkit", "license_path": "foo/LICENSE.txt", "version": "1.2.3",
        "linux-x86_64": {"relative_path": "foo/linux-x86_64/foo-linux-x86_64-1.2.3-archive.tar.xz", "sha256": "`+strings.Repeat("0", 64)+`", "md5": "`+strings.Repeat("0", 32)+`", "size": "1"}},
    "other": {"name": "Other", "license": "CUDA Toolkit", "version": "1"}
}`)
	write(t, filepath.Join(shared, "bar/redistrib_1.0.0.json"), `{
    "release_date": "2030-01-02", "release_label": "1.0.0", "release_product": "bar",
    "libbar": {"name": "Bar", "license": "bar", "license_path": "libbar/LICENSE.txt", "version": "1.2.3.0",
        "linux-x86_64": {"cuda13": {"relative_path": "libbar/linux-x86_64/libbar-linux-x86_64-1.2.3.0_cuda13-archive.tar.xz", "sha256": "`+strings.Repeat("0", 64)+`", "md5": "`+strings.Repeat("0", 32)+`", "size": "1"}},
        "cuda_variant": ["12", "13"]}
}`)
	var outs []string
	for i := 0; i < 2; i++ {
		cache, out := filepath.Join(dir, fmt.Sprint("cache", i)), filepath.Join(dir, fmt.Sprint("out", i))
		write(t, filepath.Join(cache, "downloads", "nvidia_foo-1.2.3-py3-none-manylinux2014_x86_64.whl"), string(whl))
		write(t, filepath.Join(cache, "downloads", "foo-tools_1.2.3-1_amd64.deb"), string(deb))
		var log bytes.Buffer
		s, err := Run(Options{Lock: lock, Shared: shared, Out: out, Cache: cache}, &log)
		if err != nil {
			t.Fatalf("%v\n%s", err, log.String())
		}
		if s.Downloaded != 0 || len(s.Archives) != 2 {
			t.Fatalf("downloaded %d, archives %v", s.Downloaded, s.Archives)
		}
		outs = append(outs, out)
	}
	rels := []string{
		"www/compute/cuda/redist/foo/linux-x86_64/foo-linux-x86_64-1.2.3-archive.tar.xz",
		"www/compute/bar/redist/libbar/linux-x86_64/libbar-linux-x86_64-1.2.3.0_cuda13-archive.tar.xz",
		"www/compute/cuda/redist/redistrib_9.9.0.json",
		"www/compute/bar/redist/redistrib_1.0.0.json",
		"manifests/cuda/redistrib_9.9.0.json",
		"manifests/bar/redistrib_1.0.0.json",
	}
	for _, rel := range rels {
		a, b := read(t, filepath.Join(outs[0], rel)), read(t, filepath.Join(outs[1], rel))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", rel)
		}
	}
	got := listTarXZ(t, filepath.Join(outs[0], rels[0]))
	want := strings.Join([]string{
		"foo-linux-x86_64-1.2.3-archive/ dir 755",
		"foo-linux-x86_64-1.2.3-archive/bin/ dir 755",
		"foo-linux-x86_64-1.2.3-archive/bin/foo.profile file 644",
		"foo-linux-x86_64-1.2.3-archive/bin/footool file 755",
		"foo-linux-x86_64-1.2.3-archive/include/ dir 755",
		"foo-linux-x86_64-1.2.3-archive/include/foo.h file 644",
		"foo-linux-x86_64-1.2.3-archive/lib/ dir 755",
		"foo-linux-x86_64-1.2.3-archive/lib/libfoo.so link libfoo.so.1",
		"foo-linux-x86_64-1.2.3-archive/lib/libfoo.so.1 file 644",
	}, "\n")
	if got != want {
		t.Errorf("archive:\n%s\nwant:\n%s", got, want)
	}
	// The manifests parse, and carry the archives' real sums.
	col, err := manifest.LoadDir(filepath.Join(outs[0], "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	if len(col.All()) != 2 {
		t.Fatalf("%d manifests", len(col.All()))
	}
	for _, m := range col.All() {
		if len(m.Warnings) > 0 {
			t.Errorf("%s: warnings %v", m.File, m.Warnings)
		}
		for _, p := range m.Packages {
			if len(p.Archives) != 1 {
				t.Fatalf("%s: %d archives", p.Name, len(p.Archives))
			}
			a := p.Archives[0]
			data := read(t, filepath.Join(outs[0], "www/compute", m.Product, "redist", a.RelativePath))
			if s := sum(data); a.SHA256 != s || a.Size != int64(len(data)) {
				t.Errorf("%s: manifest says %s %d, the archive is %s %d", a.RelativePath, a.SHA256, a.Size, s, len(data))
			}
		}
	}
	cudaM := string(read(t, filepath.Join(outs[0], rels[4])))
	if strings.Contains(cudaM, "other") || !strings.Contains(cudaM, `"release_date": "2030-01-01"`) || !strings.Contains(cudaM, `"license_path": "foo/LICENSE.txt"`) {
		t.Errorf("cuda manifest:\n%s", cudaM)
	}
	barM := string(read(t, filepath.Join(outs[0], rels[5])))
	if !strings.Contains(barM, "\"cuda13\": {") || !strings.Contains(barM, "\"cuda_variant\": [\n            \"13\"\n        ]") {
		t.Errorf("bar manifest:\n%s", barM)
	}

	// A version NVIDIA did not publish is refused before anything else.
	barFile := filepath.Join(shared, "bar/redistrib_1.0.0.json")
	barReal := string(read(t, barFile))
	write(t, barFile, strings.Replace(barReal, `"version": "1.2.3.0"`, `"version": "1.2.4.0"`, 1))
	if _, err := Run(Options{Lock: lock, Shared: shared, Out: filepath.Join(dir, "out9"), Cache: filepath.Join(dir, "cache0")}, io.Discard); err == nil || !strings.Contains(err.Error(), "NVIDIA's manifest") {
		t.Errorf("wrong version: err %v", err)
	}
	write(t, barFile, barReal)
	// A cached artifact whose sha256 is wrong is deleted, and named.
	cache := filepath.Join(dir, "cache0")
	whlPath := filepath.Join(cache, "downloads", "nvidia_foo-1.2.3-py3-none-manylinux2014_x86_64.whl")
	write(t, whlPath, "corrupt")
	_, err = Run(Options{Lock: lock, Shared: shared, Out: filepath.Join(dir, "out9"), Cache: cache}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "nvidia-foo==1.2.3:x86_64") {
		t.Errorf("corrupt download: err %v", err)
	}
	if _, serr := os.Stat(whlPath); !os.IsNotExist(serr) {
		t.Errorf("corrupt download not deleted: %v", serr)
	}
	// A file the map says nothing about is an error.
	write(t, whlPath, string(whl))
	unmapped := strings.Replace(lockJSON, `"map": [{"from": "nvidia/foo/", "to": ""}]`, `"map": [{"from": "nvidia/foo/include/", "to": "include/"}]`, 1)
	write(t, lock, unmapped)
	if _, err := Run(Options{Lock: lock, Shared: shared, Out: filepath.Join(dir, "out9"), Cache: cache}, io.Discard); err == nil || !strings.Contains(err.Error(), "nvidia/foo/lib/libfoo.so.1") {
		t.Errorf("unmapped file: err %v", err)
	}
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func makeZip(t *testing.T, files map[string]string) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, name := range sortedKeys(files) {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(0o644)
		w, err := z.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, files[name])
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// makeDeb writes an ar archive with debian-binary, control.tar.gz and
// data.tar.gz, as dpkg-deb does.
func makeDeb(t *testing.T, files map[string]string) []byte {
	var data bytes.Buffer
	gz := gzip.NewWriter(&data)
	tw := tar.NewWriter(gz)
	for _, name := range sortedKeys(files) {
		mode := int64(0o644)
		if strings.Contains(name, "/bin/") {
			mode = 0o755
		}
		tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		io.WriteString(tw, files[name])
	}
	tw.Close()
	gz.Close()
	var b bytes.Buffer
	b.WriteString("!<arch>\n")
	member := func(name string, body []byte) {
		fmt.Fprintf(&b, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "100644", len(body))
		b.Write(body)
		if len(body)%2 == 1 {
			b.WriteByte('\n')
		}
	}
	member("debian-binary", []byte("2.0\n"))
	member("control.tar.gz", []byte("x"))
	member("data.tar.gz", data.Bytes())
	return b.Bytes()
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func listTarXZ(t *testing.T, p string) string {
	t.Helper()
	out, err := exec.Command("xz", "-dc", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(out))
	var lines []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.ModTime.Unix() != 0 || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: mtime %v owner %d:%d %q:%q", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			lines = append(lines, fmt.Sprintf("%s dir %o", h.Name, h.Mode))
		case tar.TypeSymlink:
			lines = append(lines, fmt.Sprintf("%s link %s", h.Name, h.Linkname))
		default:
			lines = append(lines, fmt.Sprintf("%s file %o", h.Name, h.Mode))
		}
	}
	return strings.Join(lines, "\n")
}
