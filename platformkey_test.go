package cudapkgs_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/warning"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// withPlatformKeys is NVIDIA's 13.4.1 toolkit manifest (which has
// windows-arm64) with an archive under each of keys added to every package
// that has a linux-x86_64 one; it returns the folder and that count.
func withPlatformKeys(t *testing.T, keys ...string) (string, int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(shared.Manifests(t), "cuda", "redistrib_13.4.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range m {
		pkg, ok := v.(map[string]any)
		if !ok || pkg["linux-x86_64"] == nil {
			continue
		}
		for _, k := range keys {
			pkg[k] = pkg["linux-x86_64"]
		}
		n++
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "cuda", "redistrib_13.4.1.json"), string(out))
	return dir, n
}

// An unknown platform key is one warning for the run, however many packages
// carry it; Strict fails on it unless AllowPlatformKeys names it, and still
// fails on a key it does not name. windows-arm64 is never a warning.
func TestUnknownPlatformKeys(t *testing.T) {
	riscv, n := withPlatformKeys(t, "linux-riscv64")
	two, _ := withPlatformKeys(t, "linux-riscv64", "windows-riscv64")
	if n < 30 {
		t.Fatalf("only %d packages carry the made-up key", n)
	}
	tests := []struct {
		name      string
		manifests string
		allow     []string
		warnings  []string // the keys warned about, one warning each
	}{
		{"unknown key", riscv, nil, []string{"linux-riscv64"}},
		{"allowed", riscv, []string{"linux-riscv64"}, nil},
		{"allowed, another not", two, []string{"linux-riscv64"}, []string{"windows-riscv64"}},
		{"both allowed", two, []string{"windows-riscv64", "linux-riscv64"}, nil},
		{"a known key allowed", riscv, []string{"windows-arm64"}, []string{"linux-riscv64"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var told []string
			run, err := cudapkgs.Evaluate(context.Background(), cudapkgs.Inputs{
				Manifests: tt.manifests,
				Workspace: t.TempDir(),
				Layers: []config.Layer{config.Literal{From: "test", Options: config.Options{
					CUDA: []string{"13.4.1"}, Targets: []string{"linux-x86_64", "windows-arm64"}}}},
				Strict:            true,
				AllowPlatformKeys: tt.allow,
				Warn:              func(msg string) { told = append(told, msg) },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer run.Close()
			if len(told) != len(tt.warnings) {
				t.Fatalf("%d warnings, want %d:\n  %s", len(told), len(tt.warnings), strings.Join(told, "\n  "))
			}
			for i, k := range tt.warnings {
				if !strings.Contains(told[i], `unknown platform key "`+k+`" ignored in `+strconv.Itoa(n)+" packages of 1 manifest") {
					t.Errorf("warning %d: %s\nwant one for %s in %d packages", i, told[i], k, n)
				}
			}
			err = run.CheckWarnings()
			var strict *warning.Strict
			switch {
			case len(tt.warnings) == 0 && err != nil:
				t.Errorf("strict: %v", err)
			case len(tt.warnings) > 0 && (!errors.As(err, &strict) || len(strict.Warnings) != len(tt.warnings)):
				t.Errorf("strict: %v, want %d warnings", err, len(tt.warnings))
			}
		})
	}
}
