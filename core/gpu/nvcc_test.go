package gpu

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/version"
)

// nvccObservations is testdata/nvcc.json: what NVIDIA's nvcc of each release
// accepts, observed in NVIDIA's wheels (the file's "method" says how).
type nvccObservations struct {
	HostConfig map[string]struct {
		GCCMax   int `json:"gccMax"`
		ClangMax int `json:"clangMax"`
	} `json:"hostConfig"`
	Targets map[string][]string `json:"targets"`
}

func readObservations(t *testing.T) nvccObservations {
	t.Helper()
	b, err := os.ReadFile("testdata/nvcc.json")
	if err != nil {
		t.Fatalf("reading observations: %v", err)
	}
	var obs nvccObservations
	if err := json.Unmarshal(b, &obs); err != nil {
		t.Fatalf("parsing testdata/nvcc.json: %v", err)
	}
	if len(obs.HostConfig) == 0 || len(obs.Targets) == 0 {
		t.Fatal("testdata/nvcc.json: no observations")
	}
	return obs
}

// TestHostCompilerMaximaMatchNvcc checks each observed release's maxima
// against its row (not a stand-in: every observed release has one).
func TestHostCompilerMaximaMatchNvcc(t *testing.T) {
	for cuda, want := range readObservations(t).HostConfig {
		h, ext, err := LookupHostCompilers(version.MustParse(cuda))
		if err != nil || ext.Extrapolated() {
			t.Errorf("LookupHostCompilers(%s) = %+v, %v: want a row of its own", cuda, ext, err)
			continue
		}
		if h.GCCMax != want.GCCMax || h.ClangMax != want.ClangMax {
			t.Errorf("CUDA %s: table has gcc max %d, clang max %d; nvcc's host_config.h has %d, %d", cuda, h.GCCMax, h.ClangMax, want.GCCMax, want.ClangMax)
		}
	}
}

// TestCapabilitiesMatchNvcc checks that for each observed release the
// capabilities the table supports are exactly the targets nvcc accepts, less
// those the table leaves out on purpose.
func TestCapabilitiesMatchNvcc(t *testing.T) {
	// sm_88: no product a package set targets (see the package doc).
	omitted := map[string]bool{"sm_88": true}
	obs := readObservations(t)
	var newest version.Version
	for cuda, accepted := range obs.Targets {
		v := version.MustParse(cuda)
		if newest.Less(v.MajorMinor()) {
			newest = v.MajorMinor()
		}
		var want []string
		for _, sm := range accepted {
			if !omitted[sm] {
				want = append(want, sm)
			}
		}
		var got []string
		for _, c := range capabilityTable {
			if c.SupportedBy(v) {
				got = append(got, c.SM())
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("CUDA %s: table supports %v; nvcc accepts %v (less %v)", cuda, got, want, omitted)
		}
	}
	// The capability table claims to cover what was checked, no more and no
	// less, so that CapabilitiesExtrapolation warns from the first release
	// nobody checked.
	if !newest.Equal(TableCapabilities.Newest()) {
		t.Errorf("capability table claims to cover CUDA %s; testdata/nvcc.json checks it through %s", TableCapabilities.Newest(), newest)
	}
	// Both tables are written through the same release; a warning for one
	// and not the other would puzzle users.
	if !TableHostCompilers.Newest().Equal(TableCapabilities.Newest()) {
		t.Errorf("host-compiler table ends at %s, capability table at %s", TableHostCompilers.Newest(), TableCapabilities.Newest())
	}
}
