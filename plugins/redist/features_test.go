package redist

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// difference is a place where the plugin knowingly disagrees with nixpkgs'
// scan of the archives (features/feature_<cuda>.json). pkg and platform may
// be "*"; output is "lib", "static", "bin", "dev", or "*" for a platform the
// plugin marks unusable (it then claims no files there, so nothing is
// compared). since and until bound the CUDA releases (inclusive prefixes).
type difference struct {
	pkg, platform, output string
	since, until          string
	reason                string
}

// Outputs as nixpkgs' scanner detects them: "lib" is a shared library in lib/
// (stubs included), "static" a .a in lib/, "bin" an executable in bin/, "dev"
// an include/ folder.
var differences = []difference{
	{"*", windows, "*", "", "", "Windows archives are unusable until the emission supports Windows, so no Windows file is claimed"},
	{"cuda_nvcc", "*", "lib", "", "12", "libNVVM (nvvm/lib64/libnvvm.so.4) is a shared library, but not in lib/, which is all the scan looks at"},
	{"cuda_nvml_dev", "*", "lib", "", "", "lib/stubs/libnvidia-ml.so is a link stub, listed as stub_lib; the real library comes with the driver"},
	{"cuda_compat", linuxJetson, "lib", "", "", "the forward-compatibility libraries are in compat/, not lib/"},
	{"nsight_compute", "*", "*", "", "", "unusable: archive layout not modelled"},
	{"nvidia_driver", "*", "*", "", "", "unusable: part of the driver"},
	{"fabricmanager", "*", "*", "", "", "unusable: driver-side service"},
	{"libnvidia_nscq", "*", "*", "", "", "unusable: driver-side library"},
	{"nvidia_fs", "*", "*", "", "", "unusable: kernel module"},
	{"cuda_documentation", "*", "*", "", "", "unusable: not a build input"},
	{"libnvvm_samples", "*", "*", "", "", "unusable: not a build input"},
	{"cuda_nsight", "*", "*", "", "", "unusable: not a build input"},
}

func (d difference) matches(cuda ver, pkg, platform, output string) bool {
	return (d.pkg == "*" || d.pkg == pkg) && (d.platform == "*" || d.platform == platform) &&
		d.output == output && within(cuda, d.since, d.until)
}

type featureOutputs struct {
	Bin, Dev, Lib, Static bool
}

// TestFeatures compares the plugin's files with nixpkgs' scans of the real
// archives: lib ⇔ a shared_lib, static ⇔ a static_lib, bin ⇒ a binary,
// dev ⇒ headers. Every disagreement must be in differences, and every entry
// of differences must still be needed.
func TestFeatures(t *testing.T) {
	dir := filepath.Join(shared.Manifests(t), "cuda", "features")
	fs, err := filepath.Glob(filepath.Join(dir, "feature_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 {
		t.Fatalf("no feature manifests in %s", dir)
	}
	used := make([]bool, len(differences))
	allow := func(cuda ver, pkg, platform, output string) bool {
		for i, d := range differences {
			if d.matches(cuda, pkg, platform, output) {
				used[i] = true
				return true
			}
		}
		return false
	}
	for _, file := range fs {
		release := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "feature_"), ".json")
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var feats map[string]map[string]struct {
			Outputs featureOutputs `json:"outputs"`
		}
		if err := json.Unmarshal(raw, &feats); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		cuda, err := parseVer(release)
		if err != nil {
			t.Fatal(err)
		}
		f := fix(t, release)
		var names []string
		for name := range feats {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			pr, ok := f.res[name]
			if !ok {
				t.Errorf("CUDA %s: features list %s, which the batch does not have", release, name)
				continue
			}
			for key, o := range feats[name] {
				platform := key
				if key == "linux-aarch64" {
					platform = linuxJetson // before 13.0, the Jetson archives
				}
				where := "CUDA " + release + " " + name + " on " + platform
				pl, ok := pr.Platforms[platform]
				if !ok {
					t.Errorf("%s: no answer, but nixpkgs scanned an archive", where)
					continue
				}
				if len(pl.Unusable) > 0 {
					if !allow(cuda, name, platform, "*") {
						t.Errorf("%s: unusable (%v), and no difference entry says why nothing is compared", where, pl.Unusable)
					}
					continue
				}
				ours := outputsOf(pl.Files)
				for _, c := range []struct {
					output    string
					nix, ours bool
					ok        bool
				}{
					{"lib", o.Outputs.Lib, ours.Lib, o.Outputs.Lib == ours.Lib},
					{"static", o.Outputs.Static, ours.Static, o.Outputs.Static == ours.Static},
					{"bin", o.Outputs.Bin, ours.Bin, !o.Outputs.Bin || ours.Bin},
					{"dev", o.Outputs.Dev, ours.Dev, !o.Outputs.Dev || ours.Dev},
				} {
					if !c.ok && !allow(cuda, name, platform, c.output) {
						t.Errorf("%s: nixpkgs says %s=%v, the plugin %v (files %v)", where, c.output, c.nix, c.ours, paths(pl.Files))
					}
				}
			}
		}
	}
	for i, d := range differences {
		if !used[i] {
			t.Errorf("difference %+v is not needed any more: remove it", d)
		}
	}
}

func outputsOf(fs []sdk.File) featureOutputs {
	var o featureOutputs
	for _, f := range fs {
		switch f.Kind {
		case sdk.SharedLib:
			o.Lib = true
		case sdk.StaticLib:
			o.Static = true
		case sdk.Binary:
			o.Bin = true
		case sdk.Headers:
			o.Dev = true
		}
	}
	return o
}
