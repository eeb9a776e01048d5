package gpu

import (
	"fmt"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
)

// HostCompilers is the range of host compiler major versions, inclusive, that
// nvcc from one CUDA major.minor release accepts.
type HostCompilers struct {
	CUDA               version.Version // the row's major.minor
	GCCMin, GCCMax     int
	ClangMin, ClangMax int
}

// Range returns the inclusive major-version range for family ("gcc" or
// "clang").
func (h HostCompilers) Range(family string) (lo, hi int, err error) {
	switch family {
	case "gcc":
		return h.GCCMin, h.GCCMax, nil
	case "clang":
		return h.ClangMin, h.ClangMax, nil
	}
	return 0, 0, fmt.Errorf("unknown host compiler family %q: expected gcc or clang", family)
}

// HostCompilersFor returns the host compilers nvcc from CUDA version cuda
// accepts, looked up by major.minor. A version newer than the table gets the
// newest row (whose CUDA field says which), without an error: callers that
// show warnings use LookupHostCompilers or Warnings. Versions before the
// table, or missing from it (12.7), are an error.
func HostCompilersFor(cuda version.Version) (HostCompilers, error) {
	h, _, err := LookupHostCompilers(cuda)
	return h, err
}

// LookupHostCompilers is HostCompilersFor that also says when the row is the
// newest row standing in for a CUDA version past the table; ext.Warning() is
// then the message to show.
func LookupHostCompilers(cuda version.Version) (h HostCompilers, ext Extrapolation, err error) {
	if cuda.IsZero() {
		return HostCompilers{}, Extrapolation{}, fmt.Errorf("looking up nvcc host compilers: no CUDA version given")
	}
	mm := cuda.MajorMinor()
	for _, row := range hostCompilerTable {
		if row.CUDA.Equal(mm) {
			return row, Extrapolation{}, nil
		}
	}
	if ext := HostCompilersExtrapolation(cuda); ext.Extrapolated() {
		return hostCompilerTable[len(hostCompilerTable)-1], ext, nil
	}
	return HostCompilers{}, Extrapolation{}, fmt.Errorf("no nvcc host compiler data for CUDA %s: known CUDA versions are %s (later ones use %s's ranges)",
		cuda, knownHostCompilerRanges(), TableHostCompilers.Newest())
}

// CheckHostCompiler reports whether nvcc from CUDA version cuda accepts
// host compiler family ("gcc" or "clang") at the given major version. For a
// CUDA version past the table it checks against the newest row and, on
// refusal, says the range was assumed from it.
func CheckHostCompiler(cuda version.Version, family string, major int) error {
	h, ext, err := LookupHostCompilers(cuda)
	if err != nil {
		return fmt.Errorf("checking %s %d: %w", family, major, err)
	}
	lo, hi, err := h.Range(family)
	if err != nil {
		return err
	}
	if major < lo || major > hi {
		assumed := ""
		if ext.Extrapolated() {
			assumed = fmt.Sprintf(" (assumed from CUDA %s, the newest in cudapkgs' %s table)", ext.Newest, ext.Table)
		}
		return fmt.Errorf("%s %d is not supported by nvcc from CUDA %s: supported %s %d to %d%s", family, major, cuda, family, lo, hi, assumed)
	}
	return nil
}

// knownHostCompilerRanges writes the table's CUDA versions as runs ("11.0 to
// 12.6, 12.8 to 13.0") so that a missing release such as 12.7 is visible.
func knownHostCompilerRanges() string {
	var runs []string
	start := 0
	for i := 1; i <= len(hostCompilerTable); i++ {
		if i < len(hostCompilerTable) && nextRelease(hostCompilerTable[i-1].CUDA, hostCompilerTable[i].CUDA) {
			continue
		}
		first, last := hostCompilerTable[start].CUDA, hostCompilerTable[i-1].CUDA
		if start == i-1 {
			runs = append(runs, first.String())
		} else {
			runs = append(runs, first.String()+" to "+last.String())
		}
		start = i
	}
	return strings.Join(runs, ", ")
}

// nextRelease reports whether b directly follows a: the next minor, or the
// next major's .0 (11.8 is followed by 12.0).
func nextRelease(a, b version.Version) bool {
	if a.Major() == b.Major() {
		return b.Minor() == a.Minor()+1
	}
	return b.Major() == a.Major()+1 && b.Minor() == 0
}

// HostCompilerTable returns a copy of the host-compiler table's rows, oldest
// CUDA version first.
func HostCompilerTable() []HostCompilers {
	return append([]HostCompilers(nil), hostCompilerTable[:]...)
}
