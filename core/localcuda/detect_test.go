package localcuda_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/localcuda"
)

// hints is what the toolkit's owner (its plugin) would pass: where
// a layout without a version list states the compiler's and the runtime's
// versions. The core itself names no package.
var hints = []localcuda.Hint{
	{Component: "cuda_nvcc", Rel: "bin/nvcc", Kind: localcuda.KindText, Key: ", V"},
	{Component: "cuda_cudart", Rel: "lib", Kind: localcuda.KindName, Key: "libcudart.so."},
	{Component: "cuda_nvrtc", Rel: "lib", Kind: localcuda.KindName, Key: "libnvrtc.so."},
}

// tree writes files under a new temporary root: "dir/" makes a folder,
// "-> target" a symbolic link, anything else a file with that content.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(name, "/")))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(name, "/"):
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(content, "-> "):
			if err := os.Symlink(strings.TrimPrefix(content, "-> "), p); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

const versionJSON = `{
  "cuda": {"name": "CUDA SDK", "version": "12.4.1"},
  "cuda_cudart": {"name": "CUDA Runtime (cudart)", "version": "12.4.127"},
  "cuda_nvcc": {"name": "CUDA NVCC", "version": "12.4.131"},
  "nvidia_driver": {"name": "NVIDIA Linux Driver", "version": "550.54.15"}
}`

func cudaH(v int) string {
	return "#ifndef __cuda_cuda_h__\n#define __cuda_cuda_h__\n#define CUDA_VERSION " + strconv.Itoa(v) + "\n#endif\n"
}

// cudaHome is a /usr/local/cuda as NVIDIA's runfile lays it out.
func cudaHome(triple string, extra map[string]string) map[string]string {
	files := map[string]string{
		"version.json":                          versionJSON,
		"bin/nvcc":                              "#!/bin/sh\n",
		"bin/nvcc.profile":                      "",
		"nvvm/libdevice/libdevice.10.bc":        "",
		"nvvm/bin/cicc":                         "",
		"targets/" + triple + "/include/cuda.h": cudaH(12040),
		"targets/" + triple + "/lib/libcudart.so.12.4.127": "",
		"targets/" + triple + "/lib/libcudart.so.12":       "-> libcudart.so.12.4.127",
		"include": "-> targets/" + triple + "/include",
		"lib64":   "-> targets/" + triple + "/lib",
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

// debian is the split layout of Debian's nvidia-cuda-toolkit under /usr.
func debian(triple string, extra map[string]string) map[string]string {
	files := map[string]string{
		"bin/nvcc":                         "#!/bin/sh\n\nexec /usr/lib/nvidia-cuda-toolkit/bin/nvcc \"$@\"\n",
		"bin/ptxas":                        "",
		"bin/ls":                           "",
		"lib/nvidia-cuda-toolkit/bin/nvcc": "\x00\x00Cuda compilation tools, release 11.8, V11.8.89\x00",
		"lib/nvidia-cuda-toolkit/bin/nvcc.profile":          "-> /etc/nvcc.profile-missing-is-fine",
		"lib/nvidia-cuda-toolkit/bin/cicc":                  "",
		"lib/nvidia-cuda-toolkit/bin/crt/link.stub":         "",
		"lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc": "",
		"include/cuda.h":                          cudaH(11080),
		"include/stdio.h":                         "",
		"include/crt/host_config.h":               "",
		"lib/" + triple + "/libcudart.so.11.8.89": "",
		"lib/" + triple + "/libcudart.so.11.0":    "-> libcudart.so.11.8.89",
		"lib/" + triple + "/libcudart.so":         "-> libcudart.so.11.0",
		"lib/" + triple + "/libc.so.6":            "",
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

// redist is a folder of NVIDIA archives unpacked side by side.
func redist(platform string, extra map[string]string) map[string]string {
	nvcc := "cuda_nvcc-" + platform + "-12.4.131-archive/"
	cudart := "cuda_cudart-" + platform + "-12.4.127-archive/"
	files := map[string]string{
		nvcc + "bin/nvcc":                       "",
		nvcc + "nvvm/libdevice/libdevice.10.bc": "",
		nvcc + "include/crt/host_config.h":      "",
		cudart + "include/cuda.h":               cudaH(12040),
		cudart + "lib/libcudart.so.12.4.127":    "",
		cudart + "lib/libcudart.so.12":          "-> libcudart.so.12.4.127",
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

type find struct {
	component, rel      string
	want                string // relative to the root; "" for not found
	dir, system, merged bool
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		hints      []localcuda.Hint
		layout     string
		platform   string
		cuda       string
		components map[string]string
		finds      []find
	}{
		{
			name:     "cuda-home",
			files:    cudaHome("x86_64-linux", nil),
			hints:    hints,
			layout:   localcuda.CUDAHome,
			platform: "linux-x86_64",
			cuda:     "12.4.1",
			// version.json wins over the hints; the driver entry is kept
			// as stated (matching ignores what manifests do not list).
			components: map[string]string{"cuda_cudart": "12.4.127", "cuda_nvcc": "12.4.131", "nvidia_driver": "550.54.15"},
			finds: []find{
				{component: "cuda_nvcc", rel: "bin/nvcc", want: "bin/nvcc"},
				{component: "cuda_nvcc", rel: "nvvm/libdevice", want: "nvvm/libdevice", dir: true, merged: true},
				{component: "cuda_nvcc", rel: "nvvm/bin/cicc", want: "nvvm/bin/cicc"},
				{component: "cuda_nvcc", rel: "bin/ptxas"},
				{component: "cuda_cudart", rel: "lib/libcudart.so.12", want: "lib64/libcudart.so.12"},
				{component: "cuda_cudart", rel: "include", want: "include", dir: true, merged: true},
				{component: "cuda_cudart", rel: "include/cuda.h", want: "include/cuda.h"},
				{component: "cuda_cudart", rel: "lib/stubs/libcuda.so"},
				{component: "cuda_cudart", rel: "../etc/passwd"},
				{component: "cuda_cudart", rel: "/etc/passwd"},
			},
		},
		{
			// A cross target added to an x86_64 host: lib64 says which
			// triple is the install's own.
			name: "cuda-home with a cross target",
			files: cudaHome("x86_64-linux", map[string]string{
				"targets/sbsa-linux/include/cuda.h":      cudaH(12040),
				"targets/sbsa-linux/lib/libcudart.so.12": "",
			}),
			layout:     localcuda.CUDAHome,
			platform:   "linux-x86_64",
			cuda:       "12.4.1",
			components: map[string]string{"cuda_cudart": "12.4.127", "cuda_nvcc": "12.4.131", "nvidia_driver": "550.54.15"},
		},
		{
			// Older installs: a real lib64 folder, no version.json, so the
			// release comes from cuda.h and no component is stated
			// without hints.
			name: "cuda-home sbsa without version.json",
			files: map[string]string{
				"bin/nvcc":                          "",
				"targets/sbsa-linux/include/cuda.h": cudaH(11000),
				"include":                           "-> targets/sbsa-linux/include",
				"lib64/libcudart.so.11.0":           "",
			},
			layout:     localcuda.CUDAHome,
			platform:   "linux-sbsa",
			cuda:       "11.0",
			components: map[string]string{},
			finds: []find{
				{component: "cuda_cudart", rel: "lib/libcudart.so.11.0", want: "lib64/libcudart.so.11.0"},
			},
		},
		{
			name:       "cuda-home with hints, no version.json",
			files:      cudaHome("x86_64-linux", map[string]string{"version.json": "{}", "bin/nvcc": "Cuda compilation tools, release 12.4, V12.4.131\n"}),
			hints:      hints,
			layout:     localcuda.CUDAHome,
			platform:   "linux-x86_64",
			cuda:       "12.4",
			components: map[string]string{"cuda_cudart": "12.4.127", "cuda_nvcc": "12.4.131"},
		},
		{
			name:       "debian",
			files:      debian("x86_64-linux-gnu", nil),
			hints:      hints,
			layout:     localcuda.Debian,
			platform:   "linux-x86_64",
			cuda:       "11.8",
			components: map[string]string{"cuda_cudart": "11.8.89", "cuda_nvcc": "11.8.89"},
			finds: []find{
				// The real compiler, not /usr/bin's wrapper script.
				{component: "cuda_nvcc", rel: "bin/nvcc", want: "lib/nvidia-cuda-toolkit/bin/nvcc"},
				{component: "cuda_nvcc", rel: "bin/ptxas", want: "bin/ptxas"},
				{component: "cuda_nvcc", rel: "bin/crt", want: "lib/nvidia-cuda-toolkit/bin/crt", dir: true, merged: true},
				{component: "cuda_nvcc", rel: "nvvm/bin/cicc", want: "lib/nvidia-cuda-toolkit/bin/cicc"},
				{component: "cuda_nvcc", rel: "nvvm/libdevice", want: "lib/nvidia-cuda-toolkit/libdevice", dir: true, merged: true},
				{component: "cuda_nvcc", rel: "nvvm/include", want: "include", dir: true, system: true, merged: true},
				{component: "cuda_nvcc", rel: "nvvm/lib64/libnvvm.so.4"},
				{component: "cuda_nvcc", rel: "bin/nvcc.profile"}, // a dangling link is missing
				{component: "cuda_nvcc", rel: "include/crt", want: "include/crt", dir: true, merged: true},
				{component: "cuda_cudart", rel: "include", want: "include", dir: true, system: true, merged: true},
				{component: "cuda_cudart", rel: "include/cuda.h", want: "include/cuda.h"},
				{component: "cuda_cudart", rel: "lib/libcudart.so.11.0", want: "lib/x86_64-linux-gnu/libcudart.so.11.0"},
				{component: "cuda_cudart", rel: "lib", want: "lib/x86_64-linux-gnu", dir: true, system: true, merged: true},
				{component: "cuda_cudart", rel: "lib/libcudart_static.a"},
			},
		},
		{
			// Debian's arm64 packages are NVIDIA's server ARM archives.
			name:       "debian arm64",
			files:      debian("aarch64-linux-gnu", nil),
			layout:     localcuda.Debian,
			platform:   "linux-sbsa",
			cuda:       "11.8",
			components: map[string]string{},
			finds: []find{
				{component: "cuda_cudart", rel: "lib/libcudart.so.11.0", want: "lib/aarch64-linux-gnu/libcudart.so.11.0"},
			},
		},
		{
			name:       "redist",
			files:      redist("linux-x86_64", nil),
			hints:      hints,
			layout:     localcuda.Redist,
			platform:   "linux-x86_64",
			cuda:       "12.4",
			components: map[string]string{"cuda_cudart": "12.4.127", "cuda_nvcc": "12.4.131"},
			finds: []find{
				{component: "cuda_nvcc", rel: "bin/nvcc", want: "cuda_nvcc-linux-x86_64-12.4.131-archive/bin/nvcc"},
				{component: "cuda_nvcc", rel: "include", want: "cuda_nvcc-linux-x86_64-12.4.131-archive/include", dir: true},
				{component: "cuda_nvcc", rel: "bin/ptxas"},
				{component: "cuda_cudart", rel: "lib/libcudart.so.12", want: "cuda_cudart-linux-x86_64-12.4.127-archive/lib/libcudart.so.12"},
				{component: "cuda_cudart", rel: "bin/nvcc"},
				{component: "libcublas", rel: "include"},
			},
		},
		{
			// Without the runtime's archive nothing states the release;
			// the compiler's version still identifies it.
			name: "redist without the runtime",
			files: map[string]string{
				"cuda_nvcc-linux-sbsa-12.4.131-archive/bin/nvcc":           "",
				"cudnn-linux-sbsa-9.1.0.70_cuda12-archive/include/cudnn.h": "",
				"notes.txt": "",
			},
			layout:     localcuda.Redist,
			platform:   "linux-sbsa",
			components: map[string]string{"cuda_nvcc": "12.4.131", "cudnn": "9.1.0.70"},
			finds: []find{
				{component: "cudnn", rel: "include/cudnn.h", want: "cudnn-linux-sbsa-9.1.0.70_cuda12-archive/include/cudnn.h"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, tt.files)
			in, err := localcuda.Detect(root, tt.hints...)
			if err != nil {
				t.Fatal(err)
			}
			if in.Root != root || in.Layout != tt.layout || in.Platform != tt.platform || in.CUDA.String() != tt.cuda {
				t.Errorf("got root %s layout %s platform %s CUDA %q; want %s %s %s %q", in.Root, in.Layout, in.Platform, in.CUDA, root, tt.layout, tt.platform, tt.cuda)
			}
			got := map[string]string{}
			for c, v := range in.Components {
				got[c] = v.String()
				if in.From[c] == "" {
					t.Errorf("%s: no source recorded", c)
				}
			}
			if diff := cmp.Diff(tt.components, got); diff != "" {
				t.Errorf("components (-want +got):\n%s", diff)
			}
			for _, f := range tt.finds {
				m, ok := in.Find(f.component, f.rel)
				var want localcuda.Match
				if f.want != "" {
					want = localcuda.Match{Path: filepath.Join(root, filepath.FromSlash(f.want)), Dir: f.dir, System: f.system, Merged: f.merged}
				}
				if ok != (f.want != "") || m != want {
					t.Errorf("Find(%s, %s) = %+v, %v; want %+v", f.component, f.rel, m, ok, want)
				}
			}
		})
	}
}

func TestDetectErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		root  string // relative to the tree; "" for the tree itself
		want  []string
	}{
		{
			name:  "no layout",
			files: map[string]string{"bin/ls": "", "include/stdio.h": "", "lib/x86_64-linux-gnu/libc.so.6": ""},
			want: []string{"no known layout", "targets/{triple}/include or version.json (cuda-home)",
				"lib/nvidia-cuda-toolkit/bin or lib/{triple}/libcudart.so* (debian)", "*-archive (redist)"},
		},
		{
			name:  "missing root",
			files: map[string]string{},
			root:  "nowhere",
			want:  []string{"nowhere", "no such file"},
		},
		{
			name:  "root is a file",
			files: map[string]string{"cuda": ""},
			root:  "cuda",
			want:  []string{"cuda", "not a folder"},
		},
		{
			name: "debian without cuda.h",
			files: func() map[string]string {
				f := debian("x86_64-linux-gnu", nil)
				delete(f, "include/cuda.h")
				return f
			}(),
			want: []string{"debian layout", "no file states the CUDA release", "include/cuda.h #define CUDA_VERSION"},
		},
		{
			name:  "debian without its library folder",
			files: map[string]string{"lib/nvidia-cuda-toolkit/bin/nvcc": "", "include/cuda.h": cudaH(11080)},
			want:  []string{"debian layout", "lib/{triple}/libcudart.so*", "x86_64-linux-gnu"},
		},
		{
			name:  "cuda.h without a number",
			files: debian("x86_64-linux-gnu", map[string]string{"include/cuda.h": "#define CUDA_VERSION CUDART_VERSION\n"}),
			want:  []string{"include/cuda.h:1", "CUDA_VERSION", "expected an integer"},
		},
		{
			name:  "bad version.json",
			files: cudaHome("x86_64-linux", map[string]string{"version.json": `{"cuda": {"version": "12.x"}}`}),
			want:  []string{"version.json", `"cuda.version"`, "12.x"},
		},
		{
			// Found by FuzzDetect (issue 24): the key "" became a
			// component with no name.
			name:  "version.json component with an empty name",
			files: cudaHome("x86_64-linux", map[string]string{"version.json": `{"cuda": {"version": "12.4.1"}, "": {"version": "0"}}`}),
			want:  []string{"version.json", `key ""`, "not a component name", "the name is empty"},
		},
		{
			name:  "version.json component name with a space",
			files: cudaHome("x86_64-linux", map[string]string{"version.json": `{"cuda": {"version": "12.4.1"}, "cuda nvcc": {"version": "12.4.131"}}`}),
			want:  []string{"version.json", `key "cuda nvcc"`, "not a component name", "character ' ' is not allowed"},
		},
		{
			name: "cuda-home with two targets and no lib64",
			files: map[string]string{
				"targets/x86_64-linux/include/cuda.h": cudaH(12040),
				"targets/sbsa-linux/include/cuda.h":   cudaH(12040),
			},
			want: []string{"holds x86_64-linux, sbsa-linux", "lib64"},
		},
		{
			name:  "redist with two platforms",
			files: redist("linux-x86_64", map[string]string{"libcufile-linux-sbsa-1.9.1.3-archive/include/cufile.h": ""}),
			want:  []string{"linux-sbsa and linux-x86_64", "one platform per folder"},
		},
		{
			name:  "redist with two versions of one component",
			files: redist("linux-x86_64", map[string]string{"cuda_nvcc-linux-x86_64-12.6.85-archive/bin/nvcc": ""}),
			want:  []string{"cuda_nvcc-linux-x86_64-12.4.131-archive and cuda_nvcc-linux-x86_64-12.6.85-archive are both cuda_nvcc"},
		},
		{
			name:  "redist folder with an unreadable name",
			files: redist("linux-x86_64", map[string]string{"patches-archive/x": ""}),
			want:  []string{"patches-archive", "<component>-<platform>-<version>-archive"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, tt.files)
			in, err := localcuda.Detect(filepath.Join(root, tt.root))
			if err == nil {
				t.Fatalf("Detect = %+v, want an error", in)
			}
			msg := err.Error()
			for _, w := range append([]string{root}, tt.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
		})
	}
}
