// Package shared finds the project's shared test data (../shared next to the
// repository root), which holds NVIDIA's real manifests and reference tables.
// The data is never copied into the repository; tests read it in place.
package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvDir overrides where the shared folder is.
const EnvDir = "CUDAPKGS_SHARED"

// EnvRequire, when set to 1 (as .ci/run does), turns a missing shared folder
// into a test failure instead of a skip, so CI never passes by skipping.
const EnvRequire = "CUDAPKGS_REQUIRE_SHARED"

// Find returns the shared folder, or "" when there is none (EnvDir naming a
// folder without manifests/ is none).
func Find() string {
	if d := os.Getenv(EnvDir); d != "" {
		if _, err := os.Stat(filepath.Join(d, "manifests")); err != nil {
			return ""
		}
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			cand := filepath.Join(filepath.Dir(dir), "shared")
			if _, err := os.Stat(filepath.Join(cand, "manifests")); err == nil {
				return cand
			}
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Dir returns the shared folder, skipping the test when it is absent (or
// failing it when EnvRequire is set).
func Dir(t testing.TB) string {
	t.Helper()
	d := Find()
	if d == "" {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("shared test data not found (set %s or put it at ../shared); %s=1 forbids skipping", EnvDir, EnvRequire)
		}
		t.Skipf("skipped: needs the project's shared test data (NVIDIA's manifests beyond the built-in snapshot, reference tables) at ../shared or %s; CI sets %s=1, which makes this a failure", EnvDir, EnvRequire)
	}
	return d
}

// Manifests returns <shared>/manifests.
func Manifests(t testing.TB) string {
	t.Helper()
	return filepath.Join(Dir(t), "manifests")
}
