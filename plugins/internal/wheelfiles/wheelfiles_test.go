package wheelfiles

import (
	_ "embed"
	"regexp"
	"strings"
	"testing"
)

//go:embed wheels.txt
var specsText string

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// TestListingsMatchSpecs: listings.json holds exactly the wheels of
// wheels.txt, each pinned and with its origin, and no Python packaging.
func TestListingsMatchSpecs(t *testing.T) {
	specs, err := ParseSpecs(specsText)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]Listing{}
	for _, l := range ls {
		k := SpecKey(l.Wheel, l.Version, l.Arch)
		if _, dup := byKey[k]; dup {
			t.Errorf("%s listed twice", k)
		}
		byKey[k] = l
		switch {
		case !sha256RE.MatchString(l.SHA256):
			t.Errorf("%s: sha256 %q", k, l.SHA256)
		case !strings.HasPrefix(l.URL, "https://") || !strings.HasSuffix(l.URL, "/"+l.File):
			t.Errorf("%s: URL %q is not the wheel %s", k, l.URL, l.File)
		case !strings.HasSuffix(l.File, ".whl") || !strings.Contains(l.File, "-"+l.Version+"-"):
			t.Errorf("%s: file %q is not a wheel of that version", k, l.File)
		case !strings.Contains(l.File, l.Arch):
			t.Errorf("%s: file %q is not for %s", k, l.File, l.Arch)
		case len(l.Files) == 0:
			t.Errorf("%s: no files", k)
		}
		for _, f := range l.Files {
			if !Kept(f) {
				t.Errorf("%s: %s should have been left out", k, f)
			}
		}
	}
	for _, s := range specs {
		k := SpecKey(s.Wheel, s.Version, s.Arch)
		l, ok := byKey[k]
		if !ok {
			t.Errorf("wheels.txt has %s, listings.json does not: run go run ./plugins/internal/wheelfiles/refresh", k)
			continue
		}
		delete(byKey, k)
		if l.Product != s.Product || l.Release != s.Release || l.CUDA != s.CUDA || strings.Join(l.Packages, ",") != strings.Join(s.Packages, ",") {
			t.Errorf("%s: listing says %s %s@%s %v, wheels.txt %s %s@%s %v", k, l.Product, l.Release, l.CUDA, l.Packages, s.Product, s.Release, s.CUDA, s.Packages)
		}
	}
	for k := range byKey {
		t.Errorf("listings.json has %s, which wheels.txt does not name", k)
	}
}

func TestParseSpecs(t *testing.T) {
	got, err := ParseSpecs("# comment\n\ncudnn 9.1.1@12.4.1 aarch64 nvidia-cudnn-cu12==9.1.1.17 cudnn\n")
	if err != nil || len(got) != 1 {
		t.Fatalf("ParseSpecs: %v, %v", got, err)
	}
	if s := got[0]; s.Product != "cudnn" || s.Release != "9.1.1" || s.CUDA != "12.4.1" || s.Arch != "aarch64" ||
		s.Wheel != "nvidia-cudnn-cu12" || s.Version != "9.1.1.17" || len(s.Packages) != 1 {
		t.Errorf("ParseSpecs: %+v", s)
	}
	got, err = ParseSpecs("cuda 13.0.1,13.0.2,13.0.3 x86_64 nvidia-cuda-nvcc==13.0.88 cuda_nvcc\ncuda 13.0.0 x86_64 nvidia-cuda-nvcc==13.0.48 cuda_nvcc\n")
	if err != nil || len(got) != 2 || got[0].Release != "13.0.1" || strings.Join(got[0].Also, ",") != "13.0.2,13.0.3" || got[1].Also != nil {
		t.Errorf("ParseSpecs(release list): %+v, %v", got, err)
	}
	for _, bad := range []string{"cuda 12.4.1 x86_64 nvidia-cublas-cu12 libcublas", "cuda 12.4.1 ppc64le a==1 b", "cuda 12.4.1 x86_64 a==1",
		"cuda 13.0.1,13.0.1 x86_64 a==1 b", "cuda 13.0.1, x86_64 a==1 b"} {
		if _, err := ParseSpecs(bad); err == nil {
			t.Errorf("ParseSpecs(%q) accepted", bad)
		}
	}
}

func TestKeptAndRoot(t *testing.T) {
	for p, want := range map[string]bool{
		"nvidia/cublas/lib/libcublas.so.12":            true,
		"nvidia/cublas/lib/__init__.py":                false,
		"nvidia_cublas_cu12-12.4.5.8.dist-info/RECORD": false,
		"nvidia/cu13/":             false,
		"nvidia/__pycache__/x.pyc": false,
	} {
		if got := Kept(p); got != want {
			t.Errorf("Kept(%q) = %v", p, got)
		}
	}
	for p, want := range map[string]string{
		"nvidia/cublas/lib/libcublas.so.12": "nvidia/cublas",
		"nvidia/cu13/bin/tileiras":          "nvidia/cu13",
		"tensorrt_libs/libnvinfer.so.10":    "tensorrt_libs",
	} {
		if got := RootOf(p); got != want {
			t.Errorf("RootOf(%q) = %q, want %q", p, got, want)
		}
	}
}
