package gpu

import (
	"fmt"

	"github.com/cudapkgs/cudapkgs/core/version"
)

// Table names one of the package's two tables, as warnings spell it.
type Table string

const (
	// TableHostCompilers is the nvcc host-compiler table.
	TableHostCompilers Table = "host-compiler"
	// TableCapabilities is the GPU capability table.
	TableCapabilities Table = "GPU capability"
)

// Newest returns the newest CUDA major.minor the table covers; zero for an
// unknown table.
func (t Table) Newest() version.Version {
	switch t {
	case TableHostCompilers:
		return hostCompilerTable[len(hostCompilerTable)-1].CUDA
	case TableCapabilities:
		return capabilityTableNewest
	}
	return version.Version{}
}

// Extrapolation records that a CUDA version is newer than the newest release
// a table covers, so that the table's newest entry stands in for it. NVIDIA
// publishes toolkits faster than the tables are updated; a release the table
// has not seen yet is far more likely to behave like the newest known one
// than to need the check switched off, so callers use that entry and show
// Warning. The zero value means no extrapolation: the table covers the version
// (or the version is not past the table at all).
type Extrapolation struct {
	Table  Table
	CUDA   version.Version // the version asked about, as given
	Newest version.Version // the table's newest major.minor, used in its place
}

// Extrapolated reports whether the table's newest entry stood in for CUDA.
func (e Extrapolation) Extrapolated() bool { return !e.Newest.IsZero() }

// Warning is the message to show users, or "" when nothing was extrapolated:
//
//	CUDA 14.0 is newer than cudapkgs' host-compiler table (newest: 13.5); using 13.5's ranges
//	CUDA 14.0 is newer than cudapkgs' GPU capability table (newest: 13.5); using 13.5's capabilities
func (e Extrapolation) Warning() string {
	if !e.Extrapolated() {
		return ""
	}
	used := "ranges"
	if e.Table == TableCapabilities {
		used = "capabilities"
	}
	return fmt.Sprintf("CUDA %s is newer than cudapkgs' %s table (newest: %s); using %s's %s",
		e.CUDA, e.Table, e.Newest, e.Newest, used)
}

// String returns Warning.
func (e Extrapolation) String() string { return e.Warning() }

// extrapolate reports whether cuda is past table t. Comparison is at
// major.minor, as everywhere in the tables: 13.5.37 is covered by a 13.5 row.
func extrapolate(t Table, cuda version.Version) Extrapolation {
	newest := t.Newest()
	if cuda.IsZero() || newest.IsZero() || !newest.Less(cuda.MajorMinor()) {
		return Extrapolation{}
	}
	return Extrapolation{Table: t, CUDA: cuda, Newest: newest}
}

// HostCompilersExtrapolation reports whether cuda is newer than the
// host-compiler table, in which case HostCompilersFor, LookupHostCompilers and
// CheckHostCompiler use the newest row's ranges.
func HostCompilersExtrapolation(cuda version.Version) Extrapolation {
	return extrapolate(TableHostCompilers, cuda)
}

// CapabilitiesExtrapolation reports whether cuda is newer than the CUDA
// releases the capability table was checked against. The table is then used
// as it is: a capability whose MaxCUDA is open stays supported (and a default,
// by the usual rule), one with a MaxCUDA is not, and capabilities that release
// may add are unknown (Lookup refuses them). So Check, Defaults and
// SupportedBy answer as for the newest covered release, and this says so.
func CapabilitiesExtrapolation(cuda version.Version) Extrapolation {
	return extrapolate(TableCapabilities, cuda)
}

// Extrapolations returns, host-compiler table first, each table that cuda is
// newer than; nil when both cover it.
func Extrapolations(cuda version.Version) []Extrapolation {
	var out []Extrapolation
	for _, e := range []Extrapolation{HostCompilersExtrapolation(cuda), CapabilitiesExtrapolation(cuda)} {
		if e.Extrapolated() {
			out = append(out, e)
		}
	}
	return out
}

// Warnings returns the Warning of each of Extrapolations(cuda), for callers
// (eval, query, the generated hub) that print them; nil when there are none.
func Warnings(cuda version.Version) []string {
	var out []string
	for _, e := range Extrapolations(cuda) {
		out = append(out, e.Warning())
	}
	return out
}
