package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// madeUpKeys writes NVIDIA's 12.9.0 and 13.4.1 toolkit manifests into a
// folder with an archive under each of keys added to every package that has
// a linux-x86_64 one, as NVIDIA's next platform would be; it returns the
// folder and how many packages carry the keys.
func madeUpKeys(t *testing.T, keys ...string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, release := range []string{"12.9.0", "13.4.1"} {
		name := "redistrib_" + release + ".json"
		data, err := os.ReadFile(filepath.Join(shared.Manifests(t), "cuda", name))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for _, v := range m {
			if pkg, ok := v.(map[string]any); ok && pkg["linux-x86_64"] != nil {
				for _, k := range keys {
					pkg[k] = pkg["linux-x86_64"]
				}
				n++
			}
		}
		out, err := json.MarshalIndent(m, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cuda", name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, n
}

// An unknown platform key in every package of two manifests is one warning
// for the run, on every command, naming the key and how many packages carry
// it; --strict fails on it unless --allow-platform-key names it, and still
// fails on a key it does not name.
func TestUnknownPlatformKeyOnce(t *testing.T) {
	one, n := madeUpKeys(t, "linux-riscv64")
	two, _ := madeUpKeys(t, "linux-riscv64", "windows-riscv64")
	freshHome(t) // after: it leaves the folder ../shared is found from
	warned := func(key string) string {
		return `^warning: .*/cuda/redistrib_12\.9\.0\.json: \$\.[a-z_0-9]+\["` + key + `"\]: unknown platform key "` + key +
			`" ignored in ` + strconv.Itoa(n) + ` packages of 2 manifests, the first here \(known: linux-x86_64, .*windows-arm64, linux-all, source\)$`
	}
	out := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		warn []string // the keys warned about, one line each
		err  string   // the error line, "" for none
	}{
		{"query", []string{"query", "--manifests", one, "--package", "cuda_cudart"}, exitOK, []string{"linux-riscv64"}, ""},
		{"query one version", []string{"query", "--manifests", one, "--cuda", "13.4.1", "--package", "cuda_cudart"}, exitOK, []string{"linux-riscv64"}, ""},
		{"eval", []string{"eval", "--manifests", one}, exitOK, []string{"linux-riscv64"}, ""},
		{"generate", []string{"generate", "--manifests", one, "--cuda", "12.9.0", "--platform", "linux-x86_64", "--out", filepath.Join(out, "g")}, exitOK, []string{"linux-riscv64"}, ""},
		{"report", []string{"report", "--manifests", one, "--format", "markdown"}, exitOK, []string{"linux-riscv64"}, ""},
		{"two keys", []string{"query", "--manifests", two, "--package", "cuda_cudart"}, exitOK, []string{"linux-riscv64", "windows-riscv64"}, ""},
		{"strict", []string{"query", "--manifests", one, "--strict"}, exitInput, []string{"linux-riscv64"},
			`^cudapkgs: --strict: 1 warning, and --strict makes them errors:$`},
		{"strict, allowed", []string{"query", "--manifests", one, "--strict", "--allow-platform-key", "linux-riscv64"}, exitOK, nil, ""},
		{"allowed without strict", []string{"eval", "--manifests", one, "--allow-platform-key", "linux-riscv64"}, exitOK, nil, ""},
		{"strict, one of two allowed", []string{"query", "--manifests", two, "--strict", "--allow-platform-key", "linux-riscv64"}, exitInput, []string{"windows-riscv64"},
			`^cudapkgs: --strict: 1 warning, and --strict makes them errors:$`},
		{"strict, both allowed, comma list", []string{"generate", "--manifests", two, "--strict", "--cuda", "13.4.1", "--platform", "linux-x86_64", "--allow-platform-key", "windows-riscv64,linux-riscv64", "--out", filepath.Join(out, "g2")}, exitOK, nil, ""},
		{"strict, both allowed, repeated", []string{"eval", "--manifests", two, "--strict", "--allow-platform-key", "windows-riscv64", "--allow-platform-key", "linux-riscv64"}, exitOK, nil, ""},
		{"a known key allowed", []string{"query", "--manifests", one, "--strict", "--allow-platform-key", "windows-arm64"}, exitInput, []string{"linux-riscv64"},
			`^cudapkgs: --strict: 1 warning`},
		{"empty key", []string{"query", "--manifests", one, "--allow-platform-key", ""}, exitUsage, nil,
			`^cudapkgs: --allow-platform-key "": expected a manifest platform key such as linux-riscv64 \(letters, digits, '-', '_' and '\.'\)$`},
		{"key with a space", []string{"query", "--manifests", one, "--allow-platform-key", "linux-x86_64, linux-riscv64"}, exitUsage, nil,
			`^cudapkgs: --allow-platform-key " linux-riscv64": expected a manifest platform key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runAt(t, time.Time{}, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, stderr)
			}
			var warnings []string
			for _, line := range strings.Split(stderr, "\n") {
				if strings.HasPrefix(line, "warning: ") {
					warnings = append(warnings, line)
				}
			}
			if len(warnings) != len(tt.warn) {
				t.Fatalf("%d warnings, want %d:\n%s", len(warnings), len(tt.warn), stderr)
			}
			for i, k := range tt.warn {
				if !regexp.MustCompile(warned(k)).MatchString(warnings[i]) {
					t.Errorf("warning %d:\n  %s\nwant matching\n  %s", i, warnings[i], warned(k))
				}
			}
			if tt.err != "" && !regexp.MustCompile(`(?m)`+tt.err).MatchString(stderr) {
				t.Errorf("stderr:\n%s\nwant a line matching %s", stderr, tt.err)
			}
			if tt.err == "" && strings.Contains(stderr, "cudapkgs: ") {
				t.Errorf("error on stderr: %s", stderr)
			}
			// The strict error lists each warning once, only the keys not
			// allowed.
			if strings.Contains(stderr, "--strict: ") {
				for _, k := range []string{"linux-riscv64", "windows-riscv64"} {
					want := 0
					for _, w := range tt.warn {
						if w == k {
							want = 2 // the warning and its line in the error
						}
					}
					if got := strings.Count(stderr, `unknown platform key "`+k+`"`); got != want {
						t.Errorf("%s named %d times, want %d:\n%s", k, got, want, stderr)
					}
				}
			}
		})
	}
}
