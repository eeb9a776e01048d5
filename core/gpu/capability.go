package gpu

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
)

// Capability is one nvcc compilation target: a compute capability, possibly
// with an architecture-specific ("a") or family-specific ("f") suffix.
type Capability struct {
	Name         string // "9.0a"
	Major, Minor int
	Suffix       string // "", "a" or "f"
	Arch         string // "Hopper"
	Jetson       bool   // an integrated (Tegra/Jetson) GPU
	// MinCUDA is the first CUDA major.minor that supports the target.
	MinCUDA version.Version
	// MaxCUDA is the last supported CUDA major.minor, inclusive; zero means
	// still supported.
	MaxCUDA version.Version
	// DontDefaultAfter is the last CUDA major.minor in which the target is a
	// default, inclusive; zero means no such limit.
	DontDefaultAfter version.Version
}

// String returns the capability's name.
func (c Capability) String() string { return c.Name }

// SM returns the real architecture nvcc names it: "sm_90a".
func (c Capability) SM() string { return "sm_" + c.digits() }

// Compute returns the virtual architecture nvcc names it: "compute_90a".
func (c Capability) Compute() string { return "compute_" + c.digits() }

func (c Capability) digits() string {
	return strconv.Itoa(c.Major) + strconv.Itoa(c.Minor) + c.Suffix
}

// ArchitectureSpecific reports an "a" target, whose code runs only on exactly
// this capability.
func (c Capability) ArchitectureSpecific() bool { return c.Suffix == "a" }

// FamilySpecific reports an "f" target, whose code runs on this capability
// and later ones of the same family only.
func (c Capability) FamilySpecific() bool { return c.Suffix == "f" }

// SupportedBy reports whether CUDA version cuda supports the target. Patch
// levels are ignored: NVIDIA adds and removes targets in minor releases.
func (c Capability) SupportedBy(cuda version.Version) bool {
	if cuda.IsZero() {
		return false
	}
	mm := cuda.MajorMinor()
	return !mm.Less(c.MinCUDA) && (c.MaxCUDA.IsZero() || !c.MaxCUDA.Less(mm))
}

// defaultFor reports whether the target is still a default at cuda (its
// DontDefaultAfter, if any, not passed); support is checked separately.
func (c Capability) defaultFor(cuda version.Version) bool {
	if c.ArchitectureSpecific() || c.FamilySpecific() {
		return false
	}
	return c.DontDefaultAfter.IsZero() || !c.DontDefaultAfter.Less(cuda.MajorMinor())
}

// supportedRange describes the CUDA versions that support c, for errors.
func (c Capability) supportedRange() string {
	if c.MaxCUDA.IsZero() {
		return "from CUDA " + c.MinCUDA.String() + " onwards"
	}
	return "from CUDA " + c.MinCUDA.String() + " to " + c.MaxCUDA.String()
}

// Capabilities returns the whole table ordered by major, minor, then suffix
// ("" before "a" before "f"). The slice is the caller's to modify.
func Capabilities() []Capability {
	return slices.Clone(capabilityTable[:])
}

// Lookup finds a capability by name. It accepts the dotted form ("8.6",
// "9.0a", "10.0f") and nvcc's forms ("sm_90a", "compute_90"), ignoring case
// and surrounding space.
func Lookup(name string) (Capability, error) {
	for _, c := range capabilityTable { // the common case: already canonical
		if c.Name == name {
			return c, nil
		}
	}
	canon, err := canonicalName(name)
	if err != nil {
		return Capability{}, err
	}
	for _, c := range capabilityTable {
		if c.Name == canon {
			return c, nil
		}
	}
	return Capability{}, fmt.Errorf("unknown GPU capability %q: known capabilities are %s", name, knownNames())
}

// Check looks a capability up and verifies that CUDA version cuda supports
// it; the error names the CUDA versions that do.
func Check(name string, cuda version.Version) (Capability, error) {
	c, err := Lookup(name)
	if err != nil {
		return Capability{}, err
	}
	if cuda.IsZero() {
		return c, fmt.Errorf("checking capability %s: no CUDA version given", c.Name)
	}
	if !c.SupportedBy(cuda) {
		return c, fmt.Errorf("capability %s (%s) is not supported by CUDA %s: supported %s%s",
			c.Name, c.Arch, cuda, c.supportedRange(), renameHint(c, cuda))
	}
	return c, nil
}

// thorRenamedIn is the CUDA release that renamed Jetson Thor from 10.1 to 11.0.
var thorRenamedIn = version.MustParse("13.0")

// renameHint points users of Jetson Thor at the name their CUDA version uses,
// since a "10.1" that stops working at CUDA 13.0 otherwise looks like Thor
// support was dropped.
func renameHint(c Capability, cuda version.Version) string {
	newer := !cuda.MajorMinor().Less(thorRenamedIn)
	switch {
	case c.Major == 10 && c.Minor == 1 && newer:
		return fmt.Sprintf(" (CUDA %s renamed it %s)", thorRenamedIn, formatName(11, 0, c.Suffix))
	case c.Major == 11 && c.Minor == 0 && !newer:
		return fmt.Sprintf(" (before CUDA %s it was %s)", thorRenamedIn, formatName(10, 1, c.Suffix))
	}
	return ""
}

// Defaults returns the capabilities to build for when the user names none,
// in table order. Architecture- and family-specific targets are never
// defaults. For jetson=false: the supported non-Jetson capabilities not past
// their DontDefaultAfter. For jetson=true: the supported Jetson capabilities,
// so that the build runs on every Jetson module that CUDA version serves.
func Defaults(cuda version.Version, jetson bool) []Capability {
	var out []Capability
	for _, c := range capabilityTable {
		if c.Jetson == jetson && c.SupportedBy(cuda) && c.defaultFor(cuda) {
			out = append(out, c)
		}
	}
	return out
}

// canonicalName turns any accepted spelling into the table's "M.m[s]" form.
func canonicalName(name string) (string, error) {
	s := strings.ToLower(strings.TrimSpace(name))
	bad := func() (string, error) {
		return "", fmt.Errorf("invalid GPU capability %q: expected a form such as 8.6, 9.0a, 10.0f, sm_90a or compute_90", name)
	}
	var majorText, minorText, suffix string
	if rest, ok := cutPrefixes(s, "sm_", "compute_"); ok {
		// nvcc's digits are the major followed by a one-digit minor.
		digits, sfx := splitSuffix(rest)
		if len(digits) < 2 {
			return bad()
		}
		majorText, minorText, suffix = digits[:len(digits)-1], digits[len(digits)-1:], sfx
	} else {
		maj, rest, ok := strings.Cut(s, ".")
		if !ok {
			return bad()
		}
		majorText = maj
		minorText, suffix = splitSuffix(rest)
	}
	if !allDigits(majorText) || !allDigits(minorText) || len(minorText) != 1 {
		return bad()
	}
	major, err := strconv.Atoi(majorText)
	if err != nil {
		return bad()
	}
	minor, _ := strconv.Atoi(minorText)
	return formatName(major, minor, suffix), nil
}

func cutPrefixes(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest, true
		}
	}
	return s, false
}

// splitSuffix separates a trailing "a" or "f".
func splitSuffix(s string) (digits, suffix string) {
	if n := len(s); n > 0 && (s[n-1] == 'a' || s[n-1] == 'f') {
		return s[:n-1], s[n-1:]
	}
	return s, ""
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func formatName(major, minor int, suffix string) string {
	return strconv.Itoa(major) + "." + strconv.Itoa(minor) + suffix
}

func knownNames() string {
	names := make([]string, len(capabilityTable))
	for i, c := range capabilityTable {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
