package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/pyindex"
)

// TestSlimWheels runs the tool on a lock with a slim wheel (a wheel made
// here, already in the cache) twice into two caches: the slim wheels are
// byte-identical, hold only what keep names at the wheel's own paths, and
// the index pages parse with core/pyindex and give their sha256 and size,
// an index_empty project included.
func TestSlimWheels(t *testing.T) {
	dir := t.TempDir()
	whl := makeZip(t, map[string]string{
		"nvidia/nccl/include/nccl.h":           "int ncclGetVersion(int *);\n",
		"nvidia/nccl/include/nccl_device/x.h":  "device\n",
		"nvidia/nccl/lib/libnccl.so.2":         "not really a library\n",
		"nvidia/nccl/lib/libnccl_device.bc":    "bitcode\n",
		"nvidia_nccl_cu13-2.0.0.dist-info/WHL": "x\n",
	})
	file := "nvidia_nccl_cu13-2.0.0-py3-none-manylinux_2_27_x86_64.whl"
	lock := filepath.Join(dir, "lock.json")
	write(t, lock, fmt.Sprintf(`{
  "drop": [],
  "artifacts": [{"id": "nvidia-nccl-cu13==2.0.0:x86_64", "kind": "wheel", "name": "nvidia-nccl-cu13", "version": "2.0.0",
    "arch": "x86_64", "file": %q, "sha256": %q}],
  "archives": [],
  "wheels": [{"set": "wheels", "artifact": "nvidia-nccl-cu13==2.0.0:x86_64",
    "keep": ["nvidia/nccl/include/nccl.h", "nvidia/nccl/lib/"]}],
  "index_empty": ["nvidia-nccl-cu12"]
}`, file, sum(whl)))
	var got [][]byte
	for i := 0; i < 2; i++ {
		cache, out := filepath.Join(dir, fmt.Sprint("cache", i)), filepath.Join(dir, fmt.Sprint("out", i))
		write(t, filepath.Join(cache, "downloads", file), string(whl))
		var log bytes.Buffer
		s, err := Run(Options{Lock: lock, Shared: filepath.Join(dir, "none"), Out: out, Cache: cache}, &log)
		if err != nil {
			t.Fatalf("%v\n%s", err, log.String())
		}
		if want := []string{"www/pypi/files/" + file}; !slices.Equal(s.Wheels, want) {
			t.Fatalf("wheels %v, want %v", s.Wheels, want)
		}
		got = append(got, read(t, filepath.Join(out, "www/pypi/files", file)))
		page := read(t, filepath.Join(out, "www/pypi/simple/nvidia-nccl-cu13/index.html"))
		p, err := pyindex.ParsePage("http://127.0.0.1:1/pypi/simple/nvidia-nccl-cu13/", "nvidia-nccl-cu13", pyindex.ContentType, page)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Files) != 1 || p.Files[0].URL != "http://127.0.0.1:1/pypi/files/"+file ||
			p.Files[0].SHA256 != sum(got[i]) || p.Files[0].Size != int64(len(got[i])) {
			t.Errorf("page files %+v", p.Files)
		}
		empty := read(t, filepath.Join(out, "www/pypi/simple/nvidia-nccl-cu12/index.html"))
		if p, err := pyindex.ParsePage("http://127.0.0.1:1/pypi/simple/nvidia-nccl-cu12/", "nvidia-nccl-cu12", pyindex.ContentType, empty); err != nil || len(p.Files) != 0 {
			t.Errorf("index_empty page: %v %+v", err, p)
		}
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Errorf("the slim wheels of two runs differ")
	}
	z, err := zip.NewReader(bytes.NewReader(got[0]), int64(len(got[0])))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
		if f.Name == "nvidia/nccl/lib/libnccl.so.2" {
			r, _ := f.Open()
			b, _ := io.ReadAll(r)
			if string(b) != "not really a library\n" {
				t.Errorf("libnccl.so.2: %q", b)
			}
		}
	}
	want := []string{"nvidia/nccl/include/nccl.h", "nvidia/nccl/lib/libnccl.so.2", "nvidia/nccl/lib/libnccl_device.bc"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("slim wheel holds %v, want %v", names, want)
	}
}

// TestSlimWheelRefused: a keep entry matching nothing, and an ELF file of
// another machine than the wheel's arch, fail naming it; no file is left.
func TestSlimWheelRefused(t *testing.T) {
	elfHead := func(machine byte) string {
		h := make([]byte, 64)
		copy(h, "\x7fELF\x02\x01\x01")
		h[16], h[18] = 3, machine // ET_DYN, e_machine (little-endian)
		return string(h)
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		keep  []string
		want  string
	}{
		{"keep matches nothing", map[string]string{"nvidia/nccl/include/nccl.h": "x"},
			[]string{"nvidia/nccl/include/nccl.h", "nvidia/nccl/lib/"}, `keep "nvidia/nccl/lib/" matches nothing`},
		{"aarch64 library in an x86_64 wheel", map[string]string{"nvidia/nccl/lib/libnccl.so.2": elfHead(183)},
			[]string{"nvidia/nccl/lib/"}, "nvidia/nccl/lib/libnccl.so.2 is EM_AARCH64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			whl := makeZip(t, c.files)
			a := &Artifact{ID: "w==1:x86_64", Kind: "wheel", Name: "w", Version: "1", Arch: "x86_64", File: "w-1-py3-none-manylinux_2_27_x86_64.whl", SHA256: sum(whl)}
			f := &Fetcher{Cache: dir}
			write(t, f.Path(a), string(whl))
			_, err := Slim(&SlimWheel{Set: "s", Artifact: a.ID, Keep: c.keep}, a, f)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "repacked", "*", "*.whl*"))
			if len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestLockWheelsChecked: the lock's wheels are checked before anything is
// downloaded.
func TestLockWheelsChecked(t *testing.T) {
	base := Lock{Artifacts: []Artifact{{ID: "w==1:x86_64", Kind: "wheel", Name: "w", Version: "1", Arch: "x86_64", File: "w.whl", SHA256: strings.Repeat("a", 64)}}}
	for _, c := range []struct {
		w     SlimWheel
		empty []string
		want  string
	}{
		{SlimWheel{Set: "s", Artifact: "nope", Keep: []string{"a"}}, nil, "unknown artifact"},
		{SlimWheel{Set: "s", Artifact: "w==1:x86_64"}, nil, "keep is empty"},
		{SlimWheel{Set: "s", Artifact: "w==1:x86_64", Keep: []string{"../a"}}, nil, "not a clean relative path"},
		{SlimWheel{Set: "S", Artifact: "w==1:x86_64", Keep: []string{"a"}}, nil, "bad set"},
		{SlimWheel{Set: "s", Artifact: "w==1:x86_64", Keep: []string{"a"}}, []string{"Nvidia_NCCL"}, "normalized project name"},
	} {
		l := base
		l.Wheels, l.IndexEmpty = []SlimWheel{c.w}, c.empty
		if err := l.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %v: err %v, want %q", c.w, c.empty, err, c.want)
		}
	}
}
