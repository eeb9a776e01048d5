package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The shapes of the 2026 product manifests (nvTIFF, nvCOMP, NVPL): keys of
// a package in any order, platforms on both sides of name/license, and a
// two-part release label. Each case is parsed next to the canonical form
// and must give the same manifest; a defect must be located at its key
// whatever the order.
func TestNewShapes(t *testing.T) {
	sha := func(c string) string { return strings.Repeat(c, 64) }
	arch := func(path, c string) string {
		return `{"relative_path": "` + path + `", "sha256": "` + sha(c) + `", "md5": "` + strings.Repeat(c, 32) + `", "size": "10"}`
	}
	nvtiffCanonical := `{
    "release_date": "2026-07-08",
    "release_label": "0.8.0",
    "release_product": "nvtiff",
    "libnvtiff": {
        "name": "NVIDIA nvTIFF",
        "license": "nvTIFF",
        "license_path": "libnvtiff/LICENSE.txt",
        "version": "0.8.0.82",
        "cuda_variant": ["12", "13"],
        "linux-x86_64": {"cuda12": ` + arch("libnvtiff/linux-x86_64/a12.tar.xz", "a") + `, "cuda13": ` + arch("libnvtiff/linux-x86_64/a13.tar.xz", "b") + `},
        "linux-aarch64": {"cuda12": ` + arch("libnvtiff/linux-aarch64/j12.tar.xz", "c") + `}
    }
}`
	// NVIDIA's order in nvtiff/redistrib_0.8.0.json: version first, a
	// platform, cuda_variant, name/license, then the other platforms.
	nvtiffNVIDIA := `{
    "release_date": "2026-07-08",
    "release_label": "0.8.0",
    "release_product": "nvtiff",
    "libnvtiff": {
        "version": "0.8.0.82",
        "linux-x86_64": {"cuda12": ` + arch("libnvtiff/linux-x86_64/a12.tar.xz", "a") + `, "cuda13": ` + arch("libnvtiff/linux-x86_64/a13.tar.xz", "b") + `},
        "cuda_variant": ["12", "13"],
        "name": "NVIDIA nvTIFF",
        "license": "nvTIFF",
        "license_path": "libnvtiff/LICENSE.txt",
        "linux-aarch64": {"cuda12": ` + arch("libnvtiff/linux-aarch64/j12.tar.xz", "c") + `}
    }
}`
	// The release fields after the packages.
	nvtiffLabelLast := `{
    "libnvtiff": {
        "linux-aarch64": {"cuda12": ` + arch("libnvtiff/linux-aarch64/j12.tar.xz", "c") + `},
        "license_path": "libnvtiff/LICENSE.txt",
        "linux-x86_64": {"cuda13": ` + arch("libnvtiff/linux-x86_64/a13.tar.xz", "b") + `, "cuda12": ` + arch("libnvtiff/linux-x86_64/a12.tar.xz", "a") + `},
        "license": "nvTIFF",
        "cuda_variant": ["12", "13"],
        "name": "NVIDIA nvTIFF",
        "version": "0.8.0.82"
    },
    "release_product": "nvtiff",
    "release_label": "0.8.0",
    "release_date": "2026-07-08"
}`
	nvplCanonical := `{
    "release_date": "2026-05-28",
    "release_label": "26.5",
    "release_product": "nvpl",
    "nvpl_blas": {"name": "NVPL BLAS", "license": "NVPL", "version": "0.6.0", "linux-sbsa": ` + arch("nvpl_blas/linux-sbsa/b.tar.xz", "d") + `},
    "nvpl_common": {"name": "NVPL Common", "license": "NVPL", "version": "0.3.5", "linux-sbsa": ` + arch("nvpl_common/linux-sbsa/c.tar.xz", "e") + `}
}`
	nvplReordered := `{
    "nvpl_common": {"linux-sbsa": ` + arch("nvpl_common/linux-sbsa/c.tar.xz", "e") + `, "version": "0.3.5", "license": "NVPL", "name": "NVPL Common"},
    "release_label": "26.5",
    "nvpl_blas": {"version": "0.6.0", "linux-sbsa": ` + arch("nvpl_blas/linux-sbsa/b.tar.xz", "d") + `, "name": "NVPL BLAS", "license": "NVPL"},
    "release_product": "nvpl",
    "release_date": "2026-05-28"
}`
	tests := []struct {
		name, product, release string
		canonical, variant     string
		packages               []string
		releaseParts           int
	}{
		{"nvTIFF, NVIDIA's order", "nvtiff", "0.8.0", nvtiffCanonical, nvtiffNVIDIA, []string{"libnvtiff"}, 3},
		{"nvTIFF, release fields last", "nvtiff", "0.8.0", nvtiffCanonical, nvtiffLabelLast, []string{"libnvtiff"}, 3},
		{"NVPL, two-part label", "nvpl", "26.5", nvplCanonical, nvplCanonical, []string{"nvpl_blas", "nvpl_common"}, 2},
		{"NVPL, two-part label, any order", "nvpl", "26.5", nvplCanonical, nvplReordered, []string{"nvpl_blas", "nvpl_common"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := Parse("c.json", tt.product, tt.release, []byte(tt.canonical))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse("c.json", tt.product, tt.release, []byte(tt.variant))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Warnings) > 0 {
				t.Errorf("warnings: %v", got.Warnings)
			}
			if got.Release.String() != tt.release || got.Release.Parts() != tt.releaseParts {
				t.Errorf("release %q (%d parts), want %q", got.Release, got.Release.Parts(), tt.release)
			}
			var names []string
			for _, p := range got.Packages {
				names = append(names, p.Name)
			}
			if diff := cmp.Diff(tt.packages, names); diff != "" {
				t.Errorf("packages (-want +got):\n%s", diff)
			}
			// The bytes differ, so the digests do; everything else is equal.
			want.SHA256, got.SHA256 = "", ""
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b interface{ String() string }) bool { return a.String() == b.String() })); diff != "" {
				t.Errorf("the order changed the manifest (-canonical +this order):\n%s", diff)
			}
		})
	}
}

// A defect in a package whose keys are in NVIDIA's nvTIFF order is located
// at its own key: line and column of the sha256 after name/license.
func TestNewShapesLocateErrors(t *testing.T) {
	src := `{
    "release_label": "0.8.0",
    "libnvtiff": {
        "version": "0.8.0.82",
        "linux-x86_64": {"cuda12": {"relative_path": "a/b.tar.xz", "sha256": "` + strings.Repeat("a", 64) + `"}},
        "name": "NVIDIA nvTIFF",
        "license": "nvTIFF",
        "windows-x86_64": {"cuda12": {"relative_path": "a/w.zip",
            "sha256": "zz"}}
    }
}`
	_, err := Parse("nvtiff/redistrib_0.8.0.json", "nvtiff", "0.8.0", []byte(src))
	want := `nvtiff/redistrib_0.8.0.json:9:13: $.libnvtiff["windows-x86_64"].cuda12.sha256: sha256 "zz" is not 64 hex digits`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
	// A label that is not the file name's release, two parts against three.
	_, err = Parse("nvpl/redistrib_26.5.json", "nvpl", "26.5", []byte(`{"release_label": "26.6", "nvpl_blas": {"version": "0.6.0", "linux-sbsa": {"relative_path": "a/b.tar.xz", "sha256": "`+strings.Repeat("a", 64)+`"}}}`))
	if want := `release_label "26.6" does not match the file name's release "26.5"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
}
