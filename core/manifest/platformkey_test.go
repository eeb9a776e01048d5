package manifest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// withKeys is a manifest of n packages p0..p(n-1), each with a linux-x86_64
// archive and an archive under every key of extra.
func withKeys(n int, extra ...string) string {
	var pkgs []string
	for i := range n {
		archive := func(k string) string {
			return fmt.Sprintf(`%q: {"relative_path": "p%d/%s.tar.xz", "sha256": %q}`, k, i, k, zeroSHA)
		}
		keys := []string{archive(LinuxX86_64)}
		for _, k := range extra {
			keys = append(keys, archive(k))
		}
		pkgs = append(pkgs, fmt.Sprintf(`"p%d": {"version": "1.0", %s}`, i, strings.Join(keys, ", ")))
	}
	return "{" + strings.Join(pkgs, ", ") + "}"
}

// An unknown platform key is one warning for the whole collection, however
// many packages and files carry it, at its first place, saying how many.
func TestUnknownPlatformKeyOncePerCollection(t *testing.T) {
	known := strings.Join(PlatformKeys(), ", ")
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"one package", map[string]string{"cuda/redistrib_13.5.0.json": withKeys(1, "linux-riscv64")},
			[]string{`m/cuda/redistrib_13.5.0.json: $.p0["linux-riscv64"]: unknown platform key "linux-riscv64" ignored (known: ` + known + ")"}},
		{"every package of one file", map[string]string{"cuda/redistrib_13.5.0.json": withKeys(40, "linux-riscv64")},
			[]string{`m/cuda/redistrib_13.5.0.json: $.p0["linux-riscv64"]: unknown platform key "linux-riscv64" ignored in 40 packages of 1 manifest, the first here (known: ` + known + ")"}},
		{"two files, two products", map[string]string{
			"cuda/redistrib_13.5.0.json":  withKeys(30, "linux-riscv64"),
			"cuda/redistrib_13.6.0.json":  withKeys(30, "linux-riscv64"),
			"cudnn/redistrib_9.20.0.json": withKeys(9, "linux-riscv64"),
		}, []string{`m/cuda/redistrib_13.5.0.json: $.p0["linux-riscv64"]: unknown platform key "linux-riscv64" ignored in 69 packages of 3 manifests, the first here (known: ` + known + ")"}},
		{"two keys, in the order found", map[string]string{
			"cuda/redistrib_13.5.0.json":  withKeys(3, "windows-riscv64"),
			"cudnn/redistrib_9.20.0.json": withKeys(2, "linux-riscv64", "windows-riscv64"),
		}, []string{
			`m/cuda/redistrib_13.5.0.json: $.p0["windows-riscv64"]: unknown platform key "windows-riscv64" ignored in 5 packages of 2 manifests, the first here (known: ` + known + ")",
			`m/cudnn/redistrib_9.20.0.json: $.p0["linux-riscv64"]: unknown platform key "linux-riscv64" ignored in 2 packages of 1 manifest, the first here (known: ` + known + ")",
		}},
		{"other warnings stay one each", map[string]string{
			"cuda/redistrib_13.5.0.json": strings.Replace(withKeys(2, "linux-riscv64"), `"version"`, `"package_type": 3, "version"`, 2),
		}, []string{
			`m/cuda/redistrib_13.5.0.json: $.p0["linux-riscv64"]: unknown platform key "linux-riscv64" ignored in 2 packages of 1 manifest, the first here (known: ` + known + ")",
			`m/cuda/redistrib_13.5.0.json: $.p0.package_type: unknown field "package_type" ignored (found a number 3)`,
			`m/cuda/redistrib_13.5.0.json: $.p1.package_type: unknown field "package_type" ignored (found a number 3)`,
		}},
		{"windows-arm64 is known", map[string]string{"cuda/redistrib_13.4.1.json": withKeys(40, WindowsARM64)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, data := range tt.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			c, err := LoadFS(context.Background(), fsys, "m", LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			keys := map[string]int{}
			for _, w := range c.Warnings() {
				got = append(got, w.String())
				if w.PlatformKey != "" {
					keys[w.PlatformKey]++
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("warnings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			for k, n := range keys {
				if n != 1 {
					t.Errorf("%d warnings carry platform key %q, want 1", n, k)
				}
			}
		})
	}
}

// NVIDIA's 13.4.1 toolkit manifest (windows-arm64's first) loads with no
// warning, and keeps its windows-arm64 archives.
func TestWindowsARM64Kept(t *testing.T) {
	file := filepath.Join(shared.Manifests(t), "cuda", "redistrib_13.4.1.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(file, "cuda", "13.4.1", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("warnings: %v", m.Warnings)
	}
	n := 0
	for _, p := range m.Packages {
		if _, ok := p.Archive(WindowsARM64, ""); ok {
			n++
		}
	}
	if want := strings.Count(string(data), `"windows-arm64"`); n != want || n == 0 {
		t.Errorf("%d packages keep a windows-arm64 archive, want %d (one per key in the file)", n, want)
	}
}
