package localcuda_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// identify is the caller's list of components that pin a release.
var identify = []string{"cuda_nvcc", "cuda_cudart"}

// release builds a toolkit manifest with the given package versions.
func release(rel string, pkgs ...string) *manifest.Manifest {
	m := &manifest.Manifest{Product: "cuda", Release: version.MustParse(rel)}
	for i := 0; i < len(pkgs); i += 2 {
		m.Packages = append(m.Packages, manifest.Package{Name: pkgs[i], Version: version.MustParse(pkgs[i+1])})
	}
	return m
}

func TestRelease(t *testing.T) {
	releases := []*manifest.Manifest{
		release("11.4.3", "cuda_cudart", "11.4.148", "cuda_nvcc", "11.4.152", "libcublas", "11.6.5.2"),
		release("11.4.4", "cuda_cudart", "11.4.148", "cuda_nvcc", "11.4.152", "libcublas", "11.6.6.1"),
		release("11.7.1", "cuda_cudart", "11.7.99", "cuda_nvcc", "11.7.99"),
		release("11.8.0", "cuda_cudart", "11.8.89", "cuda_nvcc", "11.8.89"),
		release("12.0.0", "cuda_cudart", "12.0.107", "cuda_nvcc", "12.0.76"),
	}
	tests := []struct {
		name       string
		cuda       string // cuda.h's CUDA_VERSION, 0 for none
		components map[string]string
		want       string   // the release, or "" for an error
		errs       []string // what the error says
	}{
		{name: "compiler and runtime", cuda: "11080", components: map[string]string{"cuda_nvcc": "11.8.89", "cuda_cudart": "11.8.89"}, want: "11.8.0"},
		{name: "runtime alone", cuda: "11080", components: map[string]string{"cuda_cudart": "11.8.89"}, want: "11.8.0"},
		{name: "compiler alone, no release stated", components: map[string]string{"cuda_nvcc": "12.0.76"}, want: "12.0.0"},
		{name: "reissue told apart by another library", cuda: "11040", components: map[string]string{"cuda_nvcc": "11.4.152", "cuda_cudart": "11.4.148", "libcublas": "11.6.6.1"}, want: "11.4.4"},
		{
			name: "reissue not told apart", cuda: "11040", components: map[string]string{"cuda_nvcc": "11.4.152", "nvidia_fs": "2.9.5"},
			errs: []string{"cuda_nvcc 11.4.152", "match releases 11.4.3, 11.4.4 alike", "pin"},
		},
		{
			name: "compiler from no release", cuda: "11080", components: map[string]string{"cuda_nvcc": "11.8.90", "cuda_cudart": "11.8.89"},
			errs: []string{"CUDA 11.8, cuda_cudart 11.8.89, cuda_nvcc 11.8.90 match no release", "nearest: 11.8.0 (cuda_nvcc 11.8.89, cuda_cudart 11.8.89); 12.0.0 (cuda_nvcc 12.0.76, cuda_cudart 12.0.107)"},
		},
		{
			name: "release and components disagree", cuda: "12000", components: map[string]string{"cuda_nvcc": "11.8.89"},
			errs: []string{"CUDA 12.0, cuda_nvcc 11.8.89 match no release", "nearest: 11.7.1 (cuda_nvcc 11.7.99); 11.8.0 (cuda_nvcc 11.8.89)"},
		},
		{
			name: "nothing identifying stated", cuda: "11080", components: map[string]string{"libcublas": "11.11.3.6"},
			errs: []string{"states no version of cuda_nvcc or cuda_cudart", "libcublas 11.11.3.6"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := install(t, tt.cuda, tt.components)
			m, err := in.Release(releases, identify)
			if tt.want != "" {
				if err != nil {
					t.Fatal(err)
				}
				if m.Release.String() != tt.want {
					t.Fatalf("Release = %s, want %s", m.Release, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Release = %s, want an error", m.Release)
			}
			for _, w := range append([]string{in.Root}, tt.errs...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// install detects an unpacked-archives folder stating exactly these
// versions: the release through the runtime's cuda.h (when cuda is not ""),
// each component through its archive's name.
func install(t *testing.T, cuda string, components map[string]string) *localcuda.Install {
	t.Helper()
	files := map[string]string{}
	for c, v := range components {
		files[c+"-linux-x86_64-"+v+"-archive/LICENSE"] = ""
	}
	if cuda != "" {
		files["headers-linux-x86_64-1.0.0-archive/include/cuda.h"] = "#define CUDA_VERSION " + cuda + "\n"
	}
	in, err := localcuda.Detect(tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	delete(in.Components, "headers")
	return in
}

// The Debian install of this machine, when it has one.
func TestRealDebian(t *testing.T) {
	if _, err := os.Stat("/usr/lib/nvidia-cuda-toolkit"); err != nil {
		t.Skip("no Debian nvidia-cuda-toolkit here")
	}
	in, err := localcuda.Detect("/usr", hints...)
	if err != nil {
		t.Fatal(err)
	}
	if in.Layout != localcuda.Debian || in.Platform != "linux-x86_64" || in.CUDA.String() != "11.8" {
		t.Errorf("got layout %s platform %s CUDA %s; want debian linux-x86_64 11.8", in.Layout, in.Platform, in.CUDA)
	}
	if v := in.Components["cuda_nvcc"]; v.String() != "11.8.89" {
		t.Errorf("cuda_nvcc %q, want 11.8.89 (from %s)", v, in.From["cuda_nvcc"])
	}
	for _, f := range []struct{ component, rel, want string }{
		{"cuda_nvcc", "bin/nvcc", "/usr/lib/nvidia-cuda-toolkit/bin/nvcc"},
		{"cuda_nvcc", "bin/ptxas", "/usr/bin/ptxas"},
		{"cuda_nvcc", "nvvm/bin/cicc", "/usr/lib/nvidia-cuda-toolkit/bin/cicc"},
		{"cuda_nvcc", "nvvm/libdevice", "/usr/lib/nvidia-cuda-toolkit/libdevice"},
		{"cuda_cudart", "lib/libcudart.so.11.0", "/usr/lib/x86_64-linux-gnu/libcudart.so.11.0"},
	} {
		m, ok := in.Find(f.component, f.rel)
		if !ok || m.Path != f.want {
			t.Errorf("Find(%s, %s) = %+v, %v; want %s", f.component, f.rel, m, ok, f.want)
		}
	}
	if m, ok := in.Find("cuda_cudart", "include"); !ok || m.Path != "/usr/include" || !m.System {
		t.Errorf("Find(cuda_cudart, include) = %+v, %v; want /usr/include, System", m, ok)
	}
	coll, err := manifest.LoadDir(shared.Manifests(t))
	if err != nil {
		t.Fatal(err)
	}
	m, err := in.Release(coll.Releases("cuda"), identify)
	if err != nil {
		t.Fatal(err)
	}
	if m.Release.String() != "11.8.0" {
		t.Errorf("Release = %s (%s), want 11.8.0", m.Release, filepath.Base(m.File))
	}
}
