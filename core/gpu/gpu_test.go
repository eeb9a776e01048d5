package gpu

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/version"
)

func TestTableInvariants(t *testing.T) {
	caps := Capabilities()
	suffixRank := map[string]int{"": 0, "a": 1, "f": 2}
	seen := make(map[string]bool)
	for i, c := range caps {
		if _, ok := suffixRank[c.Suffix]; !ok {
			t.Errorf("%s: bad suffix %q", c.Name, c.Suffix)
		}
		if seen[c.Name] {
			t.Errorf("%s listed twice", c.Name)
		}
		seen[c.Name] = true
		if c.MinCUDA.IsZero() || c.MinCUDA.Parts() != 2 {
			t.Errorf("%s: MinCUDA %q is not major.minor", c.Name, c.MinCUDA)
		}
		for _, v := range []version.Version{c.MaxCUDA, c.DontDefaultAfter} {
			if !v.IsZero() && (v.Parts() != 2 || v.Less(c.MinCUDA)) {
				t.Errorf("%s: bound %q is not a major.minor at or after MinCUDA %s", c.Name, v, c.MinCUDA)
			}
		}
		if c.Arch == "" {
			t.Errorf("%s: no architecture", c.Name)
		}
		if i > 0 {
			p := caps[i-1]
			if !(p.Major < c.Major || p.Major == c.Major && (p.Minor < c.Minor || p.Minor == c.Minor && suffixRank[p.Suffix] < suffixRank[c.Suffix])) {
				t.Errorf("table not sorted: %s before %s", p.Name, c.Name)
			}
		}
	}
	// Capabilities hands out copies.
	caps[0].Name = "changed"
	if Capabilities()[0].Name == "changed" {
		t.Error("Capabilities returned the table itself")
	}
}

func TestCapabilityNames(t *testing.T) {
	tests := []struct {
		name, sm, compute string
		archSpecific      bool
		familySpecific    bool
	}{
		{"8.6", "sm_86", "compute_86", false, false},
		{"9.0a", "sm_90a", "compute_90a", true, false},
		{"10.0f", "sm_100f", "compute_100f", false, true},
		{"12.1a", "sm_121a", "compute_121a", true, false},
	}
	for _, tt := range tests {
		c, err := Lookup(tt.name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", tt.name, err)
		}
		if c.SM() != tt.sm || c.Compute() != tt.compute || c.String() != tt.name ||
			c.ArchitectureSpecific() != tt.archSpecific || c.FamilySpecific() != tt.familySpecific {
			t.Errorf("%s: SM=%s Compute=%s a=%v f=%v", tt.name, c.SM(), c.Compute(), c.ArchitectureSpecific(), c.FamilySpecific())
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{"8.0", "8.0", ""},
		{"9.0a", "9.0a", ""},
		{"10.0f", "10.0f", ""},
		{"sm_90a", "9.0a", ""},
		{"compute_90", "9.0", ""},
		{"sm_100", "10.0", ""},
		{"compute_121f", "12.1f", ""},
		{"SM_86", "8.6", ""},
		{" 7.5 ", "7.5", ""},
		{"9.5", "", `unknown GPU capability "9.5": known capabilities are 3.5, 3.7, 5.0,`},
		{"sm_95", "", `unknown GPU capability "sm_95": known capabilities are 3.5,`},
		{"9.0b", "", `invalid GPU capability "9.0b": expected a form such as 8.6, 9.0a, 10.0f, sm_90a or compute_90`},
		{"", "", `invalid GPU capability ""`},
		{"90", "", `invalid GPU capability "90"`},
		{"sm_9", "", `invalid GPU capability "sm_9"`},
		{"8.10", "", `invalid GPU capability "8.10"`},
		{"ampere", "", `invalid GPU capability "ampere"`},
	}
	for _, tt := range tests {
		c, err := Lookup(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Lookup(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || c.Name != tt.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tt.in, c.Name, err, tt.want)
		}
	}
	// The unknown-capability error lists the whole table, last entry included.
	if _, err := Lookup("9.5"); err == nil || !strings.HasSuffix(err.Error(), ", 12.1, 12.1a, 12.1f") {
		t.Errorf("Lookup(9.5) error = %v, want the full list", err)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, cuda, wantErr string
	}{
		{"3.5", "11.8", ""},
		{"3.5", "11.8.0", ""},
		{"3.5", "12.4", "capability 3.5 (Kepler) is not supported by CUDA 12.4: supported from CUDA 10.0 to 11.8"},
		{"9.0a", "11.8", "capability 9.0a (Hopper) is not supported by CUDA 11.8: supported from CUDA 12.0 onwards"},
		{"9.0a", "12.0.1", ""},
		{"8.9", "11.7.1", "capability 8.9 (Ada) is not supported by CUDA 11.7.1: supported from CUDA 11.8 onwards"},
		{"5.2", "12.9.1", ""},
		{"5.2", "13.0", "capability 5.2 (Maxwell) is not supported by CUDA 13.0: supported from CUDA 10.0 to 12.9"},
		{"7.2", "12.2", ""},
		{"7.2", "12.4", "capability 7.2 (Volta) is not supported by CUDA 12.4: supported from CUDA 10.0 to 12.2"},
		{"5.3", "11.4", "capability 5.3 (Maxwell) is not supported by CUDA 11.4: supported from CUDA 10.0 to 10.2"},
		{"10.0f", "12.8", "capability 10.0f (Blackwell) is not supported by CUDA 12.8: supported from CUDA 12.9 onwards"},
		{"sm_101", "12.9", ""},
		{"sm_101", "13.0", "capability 10.1 (Blackwell) is not supported by CUDA 13.0: supported from CUDA 12.8 to 12.9 (CUDA 13.0 renamed it 11.0)"},
		{"10.1a", "13.0.1", "capability 10.1a (Blackwell) is not supported by CUDA 13.0.1: supported from CUDA 12.8 to 12.9 (CUDA 13.0 renamed it 11.0a)"},
		{"11.0f", "12.9", "capability 11.0f (Blackwell) is not supported by CUDA 12.9: supported from CUDA 13.0 onwards (before CUDA 13.0 it was 10.1f)"},
		{"12.1", "13.0", ""},
		{"10.7", "13.3.73", "capability 10.7 (Rubin) is not supported by CUDA 13.3.73: supported from CUDA 13.4 onwards"},
		{"sm_107a", "13.4.1", ""},
		{"compute_107f", "13.5", ""},
		{"9.5", "12.4", `unknown GPU capability "9.5"`},
	}
	for _, tt := range tests {
		_, err := Check(tt.name, version.MustParse(tt.cuda))
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("Check(%s, %s): %v", tt.name, tt.cuda, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
			t.Errorf("Check(%s, %s) error = %v, want %q", tt.name, tt.cuda, err, tt.wantErr)
		}
		if !strings.HasPrefix(tt.wantErr, "unknown") && err != nil && err.Error() != tt.wantErr {
			t.Errorf("Check(%s, %s) error = %q, want exactly %q", tt.name, tt.cuda, err, tt.wantErr)
		}
	}
	if _, err := Check("8.0", version.Version{}); err == nil || !strings.Contains(err.Error(), "no CUDA version given") {
		t.Errorf("Check with zero CUDA version: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		cuda   string
		jetson bool
		want   []string
	}{
		{"11.8", false, []string{"6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0"}},
		{"11.8", true, []string{"7.2", "8.7"}},
		{"12.4", false, []string{"7.0", "7.5", "8.0", "8.6", "8.9", "9.0"}},
		{"12.4.1", true, []string{"8.7"}},
		{"12.8", false, []string{"7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0"}},
		{"12.8", true, []string{"8.7", "10.1"}},
		{"12.9", false, []string{"7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "12.0", "12.1"}},
		{"13.0", false, []string{"7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "12.0", "12.1"}},
		{"13.0", true, []string{"8.7", "11.0"}},
		{"13.3", false, []string{"7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "12.0", "12.1"}},
		{"13.4.1", false, []string{"7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "10.7", "12.0", "12.1"}},
		{"13.5", false, []string{"7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "10.7", "12.0", "12.1"}},
		{"13.5", true, []string{"8.7", "11.0"}},
		{"10.2", true, []string{"5.3", "6.2", "7.2"}},
		// Past the table: the rows as they are (see TestExtrapolation).
		{"99.0", false, []string{"7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "10.7", "12.0", "12.1"}},
	}
	for _, tt := range tests {
		got := names(Defaults(version.MustParse(tt.cuda), tt.jetson))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Defaults(%s, jetson=%v) = %v, want %v", tt.cuda, tt.jetson, got, tt.want)
		}
	}
	if got := Defaults(version.Version{}, false); len(got) != 0 {
		t.Errorf("Defaults(zero) = %v, want none", names(got))
	}
}

func TestGencode(t *testing.T) {
	caps := func(list ...string) []Capability {
		var out []Capability
		for _, n := range list {
			c, err := Lookup(n)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
		return out
	}
	tests := []struct {
		caps          []Capability
		forwardCompat bool
		want          []string
	}{
		{caps("8.0", "8.6"), false, []string{
			"-gencode=arch=compute_80,code=sm_80",
			"-gencode=arch=compute_86,code=sm_86",
		}},
		{caps("8.0", "8.6"), true, []string{
			"-gencode=arch=compute_80,code=sm_80",
			"-gencode=arch=compute_86,code=sm_86",
			"-gencode=arch=compute_86,code=compute_86",
		}},
		// The PTX entry skips the trailing "a" target: compute_90a PTX cannot
		// be JIT-compiled for later GPUs.
		{caps("8.0", "9.0", "9.0a"), true, []string{
			"-gencode=arch=compute_80,code=sm_80",
			"-gencode=arch=compute_90,code=sm_90",
			"-gencode=arch=compute_90a,code=sm_90a",
			"-gencode=arch=compute_90,code=compute_90",
		}},
		{caps("9.0a"), false, []string{"-gencode=arch=compute_90a,code=sm_90a"}},
		{caps("9.0a"), true, []string{"-gencode=arch=compute_90a,code=sm_90a"}},
		{caps("12.0", "10.0f"), true, []string{
			"-gencode=arch=compute_120,code=sm_120",
			"-gencode=arch=compute_100f,code=sm_100f",
			"-gencode=arch=compute_120,code=compute_120",
		}},
		// Duplicates are dropped, first occurrence kept.
		{caps("8.6", "8.0", "8.6"), true, []string{
			"-gencode=arch=compute_86,code=sm_86",
			"-gencode=arch=compute_80,code=sm_80",
			"-gencode=arch=compute_86,code=compute_86",
		}},
		{nil, true, nil},
	}
	for _, tt := range tests {
		got := Gencode(tt.caps, tt.forwardCompat)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Gencode(%v, %v) = %q, want %q", names(tt.caps), tt.forwardCompat, got, tt.want)
		}
	}
}

func TestHostCompilersFor(t *testing.T) {
	hcs := func(cuda string, gccMin, gccMax, clangMin, clangMax int) HostCompilers {
		return HostCompilers{CUDA: version.MustParse(cuda), GCCMin: gccMin, GCCMax: gccMax, ClangMin: clangMin, ClangMax: clangMax}
	}
	tests := []struct {
		cuda string
		want HostCompilers
	}{
		{"12.4.1", hcs("12.4", 6, 13, 7, 17)},
		{"13.0", hcs("13.0", 6, 15, 7, 20)},
		{"13.1", hcs("13.1", 6, 15, 7, 21)},
		{"13.2.1", hcs("13.2", 6, 15, 7, 21)},
		{"13.3.0", hcs("13.3", 6, 15, 7, 21)},
		{"13.4.1", hcs("13.4", 6, 16, 7, 22)},
		{"13.5", hcs("13.5", 6, 16, 7, 22)},
		// Past the table: the newest row, no error.
		{"13.6", hcs("13.5", 6, 16, 7, 22)},
		{"14.0", hcs("13.5", 6, 16, 7, 22)},
		{"14.1.2", hcs("13.5", 6, 16, 7, 22)},
	}
	for _, tt := range tests {
		h, err := HostCompilersFor(version.MustParse(tt.cuda))
		if err != nil || h != tt.want {
			t.Errorf("HostCompilersFor(%s) = %+v, %v; want %+v", tt.cuda, h, err, tt.want)
		}
	}
	// Before the table, and the release that never shipped, stay errors:
	// nothing newer than them can stand in.
	for _, cuda := range []string{"10.2", "12.7"} {
		_, err := HostCompilersFor(version.MustParse(cuda))
		want := "no nvcc host compiler data for CUDA " + cuda + ": known CUDA versions are 11.0 to 12.6, 12.8 to 13.5 (later ones use 13.5's ranges)"
		if err == nil || err.Error() != want {
			t.Errorf("HostCompilersFor(%s) error = %v, want %q", cuda, err, want)
		}
	}
	if _, err := HostCompilersFor(version.Version{}); err == nil || !strings.Contains(err.Error(), "no CUDA version given") {
		t.Errorf("HostCompilersFor(zero) error = %v", err)
	}
	// Every CUDA release from 11.0 to 13.5 has a row of its own.
	for _, cuda := range append([]string{"11.0", "11.1", "11.2", "11.3"}, cudaReleases...) {
		h, ext, err := LookupHostCompilers(version.MustParse(cuda))
		if err != nil || ext.Extrapolated() || !h.CUDA.Equal(version.MustParse(cuda)) {
			t.Errorf("LookupHostCompilers(%s) = %+v, %+v, %v; want its own row", cuda, h, ext, err)
		}
	}
}

func TestLookupHostCompilersPastTable(t *testing.T) {
	tests := []struct{ cuda, warning string }{
		{"13.5.37", ""},
		{"13.6", "CUDA 13.6 is newer than cudapkgs' host-compiler table (newest: 13.5); using 13.5's ranges"},
		{"14.0", "CUDA 14.0 is newer than cudapkgs' host-compiler table (newest: 13.5); using 13.5's ranges"},
		{"14.0.1", "CUDA 14.0.1 is newer than cudapkgs' host-compiler table (newest: 13.5); using 13.5's ranges"},
	}
	for _, tt := range tests {
		h, ext, err := LookupHostCompilers(version.MustParse(tt.cuda))
		if err != nil {
			t.Errorf("LookupHostCompilers(%s): %v", tt.cuda, err)
			continue
		}
		if got := ext.Warning(); got != tt.warning || ext.Extrapolated() != (tt.warning != "") {
			t.Errorf("LookupHostCompilers(%s) warning = %q (extrapolated %v), want %q", tt.cuda, got, ext.Extrapolated(), tt.warning)
		}
		if ext.Extrapolated() && (ext.Table != TableHostCompilers || ext.CUDA.String() != tt.cuda || ext.Newest.String() != "13.5" || h.CUDA.String() != "13.5") {
			t.Errorf("LookupHostCompilers(%s) = %+v, %+v", tt.cuda, h, ext)
		}
	}
}

func TestCheckHostCompiler(t *testing.T) {
	tests := []struct {
		cuda, family string
		major        int
		wantErr      string
	}{
		{"11.8", "gcc", 11, ""},
		{"11.8", "gcc", 12, "gcc 12 is not supported by nvcc from CUDA 11.8: supported gcc 6 to 11"},
		{"11.8", "gcc", 5, "gcc 5 is not supported by nvcc from CUDA 11.8: supported gcc 6 to 11"},
		{"11.4", "gcc", 11, ""},
		{"11.5.2", "gcc", 11, ""},
		{"12.4", "clang", 17, ""},
		{"12.4", "clang", 18, "clang 18 is not supported by nvcc from CUDA 12.4: supported clang 7 to 17"},
		{"12.9.1", "gcc", 15, "gcc 15 is not supported by nvcc from CUDA 12.9.1: supported gcc 6 to 14"},
		{"13.0", "gcc", 15, ""},
		{"13.0", "clang", 20, ""},
		{"13.0", "icc", 2021, `unknown host compiler family "icc": expected gcc or clang`},
		{"13.1", "clang", 21, ""},
		{"13.1", "clang", 22, "clang 22 is not supported by nvcc from CUDA 13.1: supported clang 7 to 21"},
		{"13.3.0", "gcc", 16, "gcc 16 is not supported by nvcc from CUDA 13.3.0: supported gcc 6 to 15"},
		{"13.4.1", "gcc", 16, ""},
		{"13.5", "clang", 22, ""},
		{"13.5", "clang", 23, "clang 23 is not supported by nvcc from CUDA 13.5: supported clang 7 to 22"},
		// Past the table: checked against 13.5, and a refusal says so.
		{"14.0", "gcc", 16, ""},
		{"14.0", "gcc", 17, "gcc 17 is not supported by nvcc from CUDA 14.0: supported gcc 6 to 16 (assumed from CUDA 13.5, the newest in cudapkgs' host-compiler table)"},
		{"10.2", "gcc", 8, "checking gcc 8: no nvcc host compiler data for CUDA 10.2: known CUDA versions are 11.0 to 12.6, 12.8 to 13.5 (later ones use 13.5's ranges)"},
	}
	for _, tt := range tests {
		err := CheckHostCompiler(version.MustParse(tt.cuda), tt.family, tt.major)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("CheckHostCompiler(%s, %s, %d): %v", tt.cuda, tt.family, tt.major, err)
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("CheckHostCompiler(%s, %s, %d) error = %v, want %q", tt.cuda, tt.family, tt.major, err, tt.wantErr)
		}
	}
}

func TestExtrapolation(t *testing.T) {
	hc := "CUDA %s is newer than cudapkgs' host-compiler table (newest: 13.5); using 13.5's ranges"
	caps := "CUDA %s is newer than cudapkgs' GPU capability table (newest: 13.5); using 13.5's capabilities"
	tests := []struct {
		cuda string
		want []string
	}{
		{"12.7", nil}, // a gap, not past the table
		{"13.0", nil},
		{"13.5", nil},
		{"13.5.99", nil},
		{"13.6", []string{fmt.Sprintf(hc, "13.6"), fmt.Sprintf(caps, "13.6")}},
		{"14.0", []string{fmt.Sprintf(hc, "14.0"), fmt.Sprintf(caps, "14.0")}},
	}
	for _, tt := range tests {
		if got := Warnings(version.MustParse(tt.cuda)); !slices.Equal(got, tt.want) {
			t.Errorf("Warnings(%s) = %q, want %q", tt.cuda, got, tt.want)
		}
	}
	if got := Warnings(version.Version{}); got != nil {
		t.Errorf("Warnings(zero) = %q, want none", got)
	}
	if e := (Extrapolation{}); e.Extrapolated() || e.Warning() != "" || e.String() != "" {
		t.Errorf("zero Extrapolation = %+v, %q", e, e.Warning())
	}
	for _, tbl := range []Table{TableHostCompilers, TableCapabilities} {
		if got := tbl.Newest().String(); got != "13.5" {
			t.Errorf("%s table newest = %q, want 13.5", tbl, got)
		}
	}
	if got := Table("other").Newest(); !got.IsZero() {
		t.Errorf("unknown table newest = %q, want zero", got)
	}

	// Past the capability table, the rows are used as they are: open-ended
	// capabilities stay supported and defaults, closed ones stay refused.
	v14 := version.MustParse("14.0")
	ext := CapabilitiesExtrapolation(v14)
	if !ext.Extrapolated() || ext.Table != TableCapabilities || ext.Newest.String() != "13.5" || ext.CUDA != v14 {
		t.Errorf("CapabilitiesExtrapolation(14.0) = %+v", ext)
	}
	for _, name := range []string{"7.5", "10.7f", "11.0", "12.1a"} {
		if _, err := Check(name, v14); err != nil {
			t.Errorf("Check(%s, 14.0): %v", name, err)
		}
	}
	if _, err := Check("5.2", v14); err == nil {
		t.Error("Check(5.2, 14.0) accepted a capability CUDA 13.0 removed")
	}
	for _, jetson := range []bool{false, true} {
		if got, want := names(Defaults(v14, jetson)), names(Defaults(version.MustParse("13.5"), jetson)); !slices.Equal(got, want) {
			t.Errorf("Defaults(14.0, jetson=%v) = %v, want 13.5's %v", jetson, got, want)
		}
	}
}
