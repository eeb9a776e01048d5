package sdk

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// When bounds a row of a declaration (a file, an edge, a reason) by what a
// batch says besides the release: the CUDA version, the package's own
// version, the target platform and the GPUs built for. The toolkit needs
// it: its packages' releases are the CUDA version, and its files change
// with the platform and its SONAMEs with the package's version. The zero
// When always holds.
type When struct {
	// Since and Until bound the batch's CUDA version as Dep's fields of the
	// same names do: inclusive prefixes ("12.0" ≤ CUDA, CUDA ≤ "12"
	// meaning any 12.x), "" open. An edge carries them to the host.
	Since, Until string
	// Version bounds the package's own version (cuda_cudart 11.8.89 in
	// CUDA 11.8.0), where a file follows it rather than the release.
	Version Range
	// On holds only on these target platforms, Off not on these.
	On, Off []string
	// Lacks holds only on a target the configuration builds for GPUs none
	// of which has this capability (major.minor, "8.7"); a target whose
	// capabilities the batch does not name never lacks one.
	Lacks string
}

// scene is what a When is judged against.
type scene struct {
	cuda, version Version
	platform      string // "" for an edge, which holds for the package
	cfg           Config
}

func (w When) applies(s scene) bool {
	if !WithinCUDA(s.cuda, w.Since, w.Until) || !w.Version.holds(s.version) {
		return false
	}
	if len(w.On) > 0 && !slices.Contains(w.On, s.platform) || slices.Contains(w.Off, s.platform) {
		return false
	}
	if w.Lacks == "" {
		return true
	}
	caps := s.cfg.Capabilities[s.platform]
	return len(caps) > 0 && !anyCapability(s.cfg, caps, w.Lacks)
}

func (w When) validate() error {
	for _, b := range []string{w.Since, w.Until, w.Lacks} {
		if b == "" {
			continue
		}
		if _, err := ParseVersion(b); err != nil {
			return err
		}
	}
	return w.Version.check()
}

// WithinCUDA reports whether a CUDA version lies between since and until,
// inclusive prefixes as Dep.Since and Dep.Until ("12" is every 12.x), ""
// open. A bound that is not a version never holds.
func WithinCUDA(cuda Version, since, until string) bool {
	if since != "" && cmpPrefix(cuda, since) < 0 {
		return false
	}
	return until == "" || cmpPrefix(cuda, until) <= 0
}

// cmpPrefix compares v, cut to as many parts as prefix has, with prefix;
// Check has parsed the declaration's bounds, so a bad one is a caller's
// (WithinCUDA's) and compares as past every version.
func cmpPrefix(v Version, prefix string) int {
	p, err := ParseVersion(prefix)
	if err != nil {
		return -1
	}
	return v.Truncate(p.Parts()).Compare(p)
}

// anyCapability reports whether a capability of caps is of major.minor mm
// (a feature variant, 9.0a, is of 9.0).
func anyCapability(cfg Config, caps []string, mm string) bool {
	for _, c := range caps {
		if v, _, ok := cfg.Capability(c); ok && v.String() == mm {
			return true
		}
	}
	return false
}

// onlyCapability reports whether every capability of caps is of
// major.minor mm; true when caps is empty (the batch does not say).
func onlyCapability(cfg Config, caps []string, mm string) bool {
	for _, c := range caps {
		if v, _, ok := cfg.Capability(c); !ok || v.String() != mm {
			return false
		}
	}
	return true
}

// Reason says where a package cannot be used: on the targets its When
// holds for, whether or not the package has an archive there (a package
// that is not a build input says so on every platform). Says has {pkg}
// (the manifest name), {title}, {release} and {version} filled in.
type Reason struct {
	When
	Says string
}

// Everywhere is a reason on every platform, for every CUDA version.
func Everywhere(says string) Reason { return Reason{Says: says} }

// reasons are those of rs that hold on the scene, filled in.
func reasons(rs []Reason, s scene, fill *strings.Replacer) []string {
	var out []string
	for _, r := range rs {
		if r.applies(s) {
			out = append(out, fill.Replace(r.Says))
		}
	}
	return out
}

// filler fills a sentence's placeholders for a package.
func filler(title string, p Package) *strings.Replacer {
	return strings.NewReplacer("{title}", title, "{pkg}", p.Manifest, "{release}", p.Release, "{version}", p.Version)
}

// PackageMajor and PackageMinor stand, in a file's path, for the package's
// own version's major and minor (the toolkit's libraries:
// Shared("lib/libcublas.so", PackageMajor) is lib/libcublas.so.12 for
// libcublas 12.4.5.8).
const (
	PackageMajor = "{version.major}"
	PackageMinor = "{version.minor}"
)

// expandPath fills a file path's version placeholders.
func expandPath(p string, rel, version Version) string {
	if !strings.Contains(p, "{") {
		return p
	}
	return strings.NewReplacer(ReleaseMajor, strconv.Itoa(rel.Major()),
		PackageMajor, strconv.Itoa(version.Part(0)), PackageMinor, strconv.Itoa(version.Part(1))).Replace(p)
}

// targetsOf lists the platforms to answer for, sorted: the configured
// targets, or, in a batch that names none, every platform the package has
// an archive or a reason for; and every platform it has an archive for.
func targetsOf(cfg Config, p Package) []string {
	ts := slices.Clone(cfg.Targets)
	if len(ts) == 0 {
		for t := range p.Unavailable {
			ts = append(ts, t)
		}
	}
	for _, a := range p.Archives {
		ts = append(ts, a.Platform)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

func checkReason(r Reason) error {
	if r.Says == "" {
		return fmt.Errorf("a reason without what it says (Says)")
	}
	return r.validate()
}
