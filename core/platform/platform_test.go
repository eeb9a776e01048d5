package platform

import (
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/version"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Platform{
		"linux-x86_64": LinuxX86_64, "linux-sbsa": LinuxSBSA, "linux-jetson": LinuxJetson,
		"linux-aarch64": LinuxJetson, "Linux-SBSA": LinuxSBSA, "windows-x86_64": WindowsX86_64,
		"windows-arm64": WindowsARM64, "Windows-ARM64": WindowsARM64,
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v", in, got, err)
		}
	}
	_, err := Parse("linux-riscv64")
	if err == nil || !strings.Contains(err.Error(), `unknown platform "linux-riscv64": expected one of linux-x86_64, linux-sbsa, linux-jetson, linux-ppc64le, windows-x86_64, windows-arm64`) {
		t.Errorf("error = %v", err)
	}
}

func TestKeys(t *testing.T) {
	tests := []struct {
		p       Platform
		cuda    string
		caps    []string
		want    string
		wantErr string
	}{
		{LinuxX86_64, "12.4.1", nil, "linux-x86_64 linux-all source", ""},
		{LinuxSBSA, "13.0.0", nil, "linux-sbsa linux-all source", ""},
		{LinuxJetson, "12.4.1", []string{"8.7"}, "linux-aarch64 linux-all source", ""},
		{LinuxJetson, "11.8.0", []string{"7.2", "8.7"}, "linux-aarch64 linux-all source", ""},
		{LinuxJetson, "13.0.0", []string{"11.0"}, "linux-sbsa linux-all source", ""},
		{LinuxJetson, "13.0.0", []string{"8.7", "11.0"}, "", "CUDA 13.0.0 serves Jetson only as Thor (capability 11.0) through the linux-sbsa archives; capabilities 8.7 (Orin, Xavier) need CUDA 12.x"},
		{WindowsX86_64, "12.4.1", nil, "windows-x86_64 source", ""},
		{WindowsARM64, "13.4.1", nil, "windows-arm64 source", ""},
	}
	for _, tt := range tests {
		keys, err := Keys(tt.p, version.MustParse(tt.cuda), tt.caps)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Keys(%v, %s) error = %v, want %q", tt.p, tt.cuda, err, tt.wantErr)
			}
			continue
		}
		if err != nil || strings.Join(keys, " ") != tt.want {
			t.Errorf("Keys(%v, %s) = %v, %v; want %s", tt.p, tt.cuda, keys, err, tt.want)
		}
	}
}

// The answer must not depend on the machine running the tool: the same call
// gives the same keys whatever GOARCH is, so there is nothing in the package
// that reads runtime.GOARCH. This test pins the whole table for one version.
func TestKeysAllPlatformsStable(t *testing.T) {
	var got []string
	for _, p := range All() {
		keys, err := Keys(p, version.MustParse("12.6.3"), []string{"8.7"})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Name()+"="+strings.Join(keys, ","))
	}
	want := "linux-x86_64=linux-x86_64,linux-all,source linux-sbsa=linux-sbsa,linux-all,source linux-jetson=linux-aarch64,linux-all,source linux-ppc64le=linux-ppc64le,linux-all,source windows-x86_64=windows-x86_64,source windows-arm64=windows-arm64,source"
	if strings.Join(got, " ") != want {
		t.Errorf("got %s", strings.Join(got, " "))
	}
}

// Every platform key a manifest may hold, but for the cross-platform
// linux-all and source, is some platform's own key: a key NVIDIA ships and
// cudapkgs reads must never be one no platform can name (windows-arm64 was,
// before it became a platform).
func TestEveryManifestKeyHasAPlatform(t *testing.T) {
	served := map[string]bool{}
	for _, p := range All() {
		if q, err := Parse(p.Name()); err != nil || q != p {
			t.Errorf("Parse(%q) = %v, %v; want %v", p.Name(), q, err, p)
		}
		for _, cuda := range []string{"12.6.3", "13.4.1"} {
			keys, err := Keys(p, version.MustParse(cuda), nil)
			if err != nil {
				t.Fatal(err)
			}
			served[keys[0]] = true
		}
	}
	for _, k := range manifest.PlatformKeys() {
		if k == manifest.LinuxAll || k == manifest.Source {
			continue
		}
		if !served[k] {
			t.Errorf("manifest key %q is no platform's own key", k)
		}
	}
}
