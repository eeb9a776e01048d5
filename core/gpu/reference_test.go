package gpu

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/shared"
)

// difference is one deliberate disagreement with nixpkgs' tables. Field
// "present" means the row exists on one side only.
type difference struct {
	key, field, ours, theirs, why string
}

func (d difference) String() string {
	return fmt.Sprintf("%s %s: ours %q, nixpkgs %q", d.key, d.field, d.ours, d.theirs)
}

// capabilityDifferences lists every way our capability table differs from
// gpus.json `current`. The test fails on any difference not listed here and
// on any listed difference that no longer exists.
var capabilityDifferences = []difference{
	{"8.0", "minCuda", "11.0", "11.2", "CUDA 11.0 release notes add GA100 (sm_80); nixpkgs starts at 11.2"},
	{"8.6", "minCuda", "11.1", "11.2", "CUDA 11.1 release notes add GA10x (sm_86); nixpkgs starts at 11.2"},
	{"10.0", "minCuda", "12.8", "12.7", "there was no CUDA 12.7; sm_100 first shipped in 12.8"},
	{"10.0a", "minCuda", "12.8", "12.7", "there was no CUDA 12.7; sm_100a first shipped in 12.8"},
	{"10.1", "minCuda", "12.8", "12.7", "there was no CUDA 12.7; sm_101 first shipped in 12.8"},
	{"10.1a", "minCuda", "12.8", "12.7", "there was no CUDA 12.7; sm_101a first shipped in 12.8"},
	{"5.3", "present", "yes", "no", "Jetson TX1/Nano is in NVIDIA's capability table; JetPack 4 gives it CUDA 10.0-10.2, so Lookup/Check can explain instead of calling it unknown"},
	{"6.2", "present", "yes", "no", "Jetson TX2, as for 5.3"},
	{"10.7", "present", "yes", "no", "Rubin arrived in CUDA 13.4; gpus.json `current` (nixpkgs 55d5788b) predates it"},
	{"10.7a", "present", "yes", "no", "as for 10.7"},
	{"10.7f", "present", "yes", "no", "as for 10.7"},
}

// hostCompilerDifferences is the same for nvcc-compat.json `current`.
var hostCompilerDifferences = []difference{
	{"11.4", "gcc.max", "11", "10", "NVIDIA added GCC 11 in CUDA 11.4; nixpkgs holds 10 until 11.6 to dodge a glibc/GCC 11 build failure"},
	{"11.5", "gcc.max", "11", "10", "as for 11.4"},
	{"13.1", "present", "yes", "no", "nvcc-compat.json `current` (nixpkgs c3885292) ends at CUDA 13.0; our rows come from nvcc's own host_config.h (testdata/nvcc.json)"},
	{"13.2", "present", "yes", "no", "as for 13.1"},
	{"13.3", "present", "yes", "no", "as for 13.1"},
	{"13.4", "present", "yes", "no", "as for 13.1"},
	{"13.5", "present", "yes", "no", "as for 13.1"},
}

func TestCapabilitiesMatchNixpkgs(t *testing.T) {
	var doc struct {
		Semantics map[string]string `json:"semantics"`
		Current   struct {
			Capabilities []struct {
				CudaCapability                        string  `json:"cudaCapability"`
				ArchName                              string  `json:"archName"`
				IsJetson                              bool    `json:"isJetson"`
				IsArchitectureSpecific                bool    `json:"isArchitectureSpecific"`
				IsFamilySpecific                      bool    `json:"isFamilySpecific"`
				MinCudaMajorMinorVersion              string  `json:"minCudaMajorMinorVersion"`
				MaxCudaMajorMinorVersion              *string `json:"maxCudaMajorMinorVersion"`
				DontDefaultAfterCudaMajorMinorVersion *string `json:"dontDefaultAfterCudaMajorMinorVersion"`
			} `json:"capabilities"`
		} `json:"current"`
	}
	readJSON(t, "gpus.json", &doc)
	if len(doc.Current.Capabilities) == 0 {
		t.Fatal("gpus.json: no current capabilities")
	}
	// The comparison below and the Defaults test assume these semantics; if
	// the reference changes its meaning, this test must be revisited.
	for _, key := range []string{"isSupported", "isDefault_current"} {
		if doc.Semantics[key] == "" {
			t.Fatalf("gpus.json semantics lacks %q", key)
		}
	}
	if !strings.Contains(doc.Semantics["isSupported"], "inclusive") {
		t.Fatalf("gpus.json isSupported no longer says max is inclusive: %q", doc.Semantics["isSupported"])
	}

	theirs := make(map[string]map[string]string)
	for _, r := range doc.Current.Capabilities {
		theirs[r.CudaCapability] = map[string]string{
			"arch":             r.ArchName,
			"jetson":           strconv.FormatBool(r.IsJetson),
			"archSpecific":     strconv.FormatBool(r.IsArchitectureSpecific),
			"familySpecific":   strconv.FormatBool(r.IsFamilySpecific),
			"minCuda":          r.MinCudaMajorMinorVersion,
			"maxCuda":          deref(r.MaxCudaMajorMinorVersion),
			"dontDefaultAfter": deref(r.DontDefaultAfterCudaMajorMinorVersion),
		}
	}
	ours := make(map[string]map[string]string)
	for _, c := range Capabilities() {
		ours[c.Name] = map[string]string{
			"arch":             c.Arch,
			"jetson":           strconv.FormatBool(c.Jetson),
			"archSpecific":     strconv.FormatBool(c.ArchitectureSpecific()),
			"familySpecific":   strconv.FormatBool(c.FamilySpecific()),
			"minCuda":          c.MinCUDA.String(),
			"maxCuda":          c.MaxCUDA.String(),
			"dontDefaultAfter": c.DontDefaultAfter.String(),
		}
	}
	checkDifferences(t, compareTables(ours, theirs), capabilityDifferences)
}

func TestHostCompilersMatchNixpkgs(t *testing.T) {
	type bounds struct {
		Min string `json:"minMajorVersion"`
		Max string `json:"maxMajorVersion"`
	}
	var doc struct {
		Current struct {
			NvccCompatibilities map[string]struct {
				GCC   bounds `json:"gcc"`
				Clang bounds `json:"clang"`
			} `json:"nvccCompatibilities"`
		} `json:"current"`
	}
	readJSON(t, "nvcc-compat.json", &doc)
	if len(doc.Current.NvccCompatibilities) == 0 {
		t.Fatal("nvcc-compat.json: no current nvccCompatibilities")
	}
	theirs := make(map[string]map[string]string)
	for cuda, r := range doc.Current.NvccCompatibilities {
		theirs[cuda] = map[string]string{
			"gcc.min": r.GCC.Min, "gcc.max": r.GCC.Max,
			"clang.min": r.Clang.Min, "clang.max": r.Clang.Max,
		}
	}
	ours := make(map[string]map[string]string)
	for _, h := range hostCompilerTable {
		ours[h.CUDA.String()] = map[string]string{
			"gcc.min": strconv.Itoa(h.GCCMin), "gcc.max": strconv.Itoa(h.GCCMax),
			"clang.min": strconv.Itoa(h.ClangMin), "clang.max": strconv.Itoa(h.ClangMax),
		}
	}
	checkDifferences(t, compareTables(ours, theirs), hostCompilerDifferences)
}

// TestDefaultsMatchNixpkgsRule recomputes defaults from gpus.json with
// nixpkgs' isDefault_current rule (and, for Jetson, our documented rule) for
// every real CUDA release the project targets. Rows that gpus.json lacks
// (listed above as present only in ours) join it with our data, so the rule
// is checked on them too; no other listed difference falls inside
// 11.4..13.5, so the sets must be identical.
func TestDefaultsMatchNixpkgsRule(t *testing.T) {
	type refRow struct {
		Name     string  `json:"cudaCapability"`
		Jetson   bool    `json:"isJetson"`
		ArchSpec bool    `json:"isArchitectureSpecific"`
		FamSpec  bool    `json:"isFamilySpecific"`
		Min      string  `json:"minCudaMajorMinorVersion"`
		Max      *string `json:"maxCudaMajorMinorVersion"`
		DDA      *string `json:"dontDefaultAfterCudaMajorMinorVersion"`
	}
	var doc struct {
		Current struct {
			Capabilities []refRow `json:"capabilities"`
		} `json:"current"`
	}
	readJSON(t, "gpus.json", &doc)
	rows := make(map[string]refRow)
	for _, r := range doc.Current.Capabilities {
		rows[r.Name] = r
	}
	for _, d := range capabilityDifferences {
		if d.field != "present" || d.ours != "yes" {
			continue
		}
		c, err := Lookup(d.key)
		if err != nil {
			t.Fatal(err)
		}
		rows[c.Name] = refRow{
			Name: c.Name, Jetson: c.Jetson, ArchSpec: c.ArchitectureSpecific(), FamSpec: c.FamilySpecific(),
			Min: c.MinCUDA.String(), Max: optional(c.MaxCUDA), DDA: optional(c.DontDefaultAfter),
		}
	}
	for _, cudaText := range cudaReleases {
		cuda := version.MustParse(cudaText)
		for _, jetson := range []bool{false, true} {
			// In our table's order, which Defaults keeps; a row of ours that
			// the reference lacks and no difference lists already failed
			// TestCapabilitiesMatchNixpkgs.
			var want []string
			for _, c := range capabilityTable {
				r, ok := rows[c.Name]
				if !ok {
					continue
				}
				supported := !cuda.Less(version.MustParse(r.Min)) &&
					(r.Max == nil || !version.MustParse(*r.Max).Less(cuda))
				notPast := r.DDA == nil || !version.MustParse(*r.DDA).Less(cuda)
				if supported && notPast && r.Jetson == jetson && !r.ArchSpec && !r.FamSpec {
					want = append(want, r.Name)
				}
			}
			got := names(Defaults(cuda, jetson))
			if !slices.Equal(got, want) {
				t.Errorf("Defaults(%s, jetson=%v) = %v, nixpkgs rule gives %v", cudaText, jetson, got, want)
			}
		}
	}
}

// cudaReleases are the CUDA minor releases from 11.4 on (12.7 never shipped).
var cudaReleases = []string{
	"11.4", "11.5", "11.6", "11.7", "11.8",
	"12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.8", "12.9",
	"13.0", "13.1", "13.2", "13.3", "13.4", "13.5",
}

// optional is the reference's spelling of an optional version: nil for none.
func optional(v version.Version) *string {
	if v.IsZero() {
		return nil
	}
	s := v.String()
	return &s
}

func compareTables(ours, theirs map[string]map[string]string) []difference {
	var diffs []difference
	for key, o := range ours {
		th, ok := theirs[key]
		if !ok {
			diffs = append(diffs, difference{key: key, field: "present", ours: "yes", theirs: "no"})
			continue
		}
		for field, ov := range o {
			if tv := th[field]; ov != tv {
				diffs = append(diffs, difference{key: key, field: field, ours: ov, theirs: tv})
			}
		}
	}
	for key := range theirs {
		if _, ok := ours[key]; !ok {
			diffs = append(diffs, difference{key: key, field: "present", ours: "no", theirs: "yes"})
		}
	}
	// Map order is random; sort so failures read the same on every run.
	slices.SortFunc(diffs, func(a, b difference) int {
		return strings.Compare(a.key+"|"+a.field, b.key+"|"+b.field)
	})
	return diffs
}

func checkDifferences(t *testing.T, got, listed []difference) {
	t.Helper()
	id := func(d difference) string { return d.key + "|" + d.field + "|" + d.ours + "|" + d.theirs }
	listedIDs := make(map[string]bool)
	for _, d := range listed {
		if d.why == "" {
			t.Errorf("listed difference %v has no reason", d)
		}
		listedIDs[id(d)] = true
	}
	gotIDs := make(map[string]bool)
	for _, d := range got {
		gotIDs[id(d)] = true
		if !listedIDs[id(d)] {
			t.Errorf("unlisted difference from nixpkgs: %v", d)
		}
	}
	for _, d := range listed {
		if !gotIDs[id(d)] {
			t.Errorf("listed difference no longer exists: %v", d)
		}
	}
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	path := filepath.Join(shared.Manifests(t), name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading reference data: %v", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func names(caps []Capability) []string {
	out := make([]string, len(caps))
	for i, c := range caps {
		out[i] = c.Name
	}
	return out
}
