// Package platform models the machines cudapkgs builds for and on, and decides
// which key of an NVIDIA manifest serves each of them.
//
// The decision depends only on the platform, the CUDA version and the GPU
// capabilities in the configuration, never on the machine the tool runs on:
// a generator on an x86_64 laptop must give the same answer as one on a Jetson.
package platform

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Flavour tells the two aarch64 worlds apart: NVIDIA ships server ARM (Grace,
// Ampere Altra; "sbsa") and Jetson (Tegra SoCs, "linux-aarch64") as separate
// builds with different drivers and libraries.
type Flavour string

const (
	FlavourNone   Flavour = ""
	FlavourServer Flavour = "server"
	FlavourJetson Flavour = "jetson"
)

// Platform is an operating system, a CPU and, for aarch64, a flavour.
type Platform struct {
	OS      string // "linux", "windows"
	CPU     string // "x86_64", "aarch64", "ppc64le" (Bazel's @platforms//cpu names)
	Flavour Flavour
}

// The platforms cudapkgs knows. Names are what users write on the command
// line and in configuration.
var (
	LinuxX86_64   = Platform{OS: "linux", CPU: "x86_64"}
	LinuxSBSA     = Platform{OS: "linux", CPU: "aarch64", Flavour: FlavourServer}
	LinuxJetson   = Platform{OS: "linux", CPU: "aarch64", Flavour: FlavourJetson}
	LinuxPPC64LE  = Platform{OS: "linux", CPU: "ppc64le"}
	WindowsX86_64 = Platform{OS: "windows", CPU: "x86_64"}
	// WindowsARM64 is Windows on Arm, which NVIDIA ships from CUDA 13.4.
	// It is a platform like the others so that its manifest key is
	// expected, not a surprise; no plugin describes a Windows archive yet,
	// so every one is unusable with that reason.
	WindowsARM64 = Platform{OS: "windows", CPU: "aarch64"}
)

// All returns every known platform in a fixed order.
func All() []Platform {
	return []Platform{LinuxX86_64, LinuxSBSA, LinuxJetson, LinuxPPC64LE, WindowsX86_64, WindowsARM64}
}

// Name is the platform's canonical name: linux-x86_64, linux-sbsa,
// linux-jetson, linux-ppc64le, windows-x86_64, windows-arm64.
func (p Platform) Name() string {
	switch {
	case p.Flavour == FlavourServer:
		return p.OS + "-sbsa"
	case p.Flavour == FlavourJetson:
		return p.OS + "-jetson"
	case p == WindowsARM64:
		// NVIDIA's key and Windows' own name for the architecture; the CPU
		// stays aarch64, the constraint Bazel's platforms use.
		return "windows-arm64"
	}
	return p.OS + "-" + p.CPU
}

func (p Platform) String() string { return p.Name() }

// Jetson reports whether p is a Jetson board.
func (p Platform) Jetson() bool { return p.Flavour == FlavourJetson }

// aliases maps accepted spellings to platforms. "linux-aarch64" is NVIDIA's
// manifest key for Jetson, so it means Jetson here too; server ARM is
// "linux-sbsa" in both.
func aliases() map[string]Platform {
	m := map[string]Platform{}
	for _, p := range All() {
		m[p.Name()] = p
	}
	m["linux-aarch64"] = LinuxJetson
	m["jetson"] = LinuxJetson
	m["sbsa"] = LinuxSBSA
	return m
}

// Names returns the canonical names, in All's order.
func Names() []string {
	var ns []string
	for _, p := range All() {
		ns = append(ns, p.Name())
	}
	return ns
}

// Parse reads a platform name or alias.
func Parse(s string) (Platform, error) {
	if p, ok := aliases()[strings.ToLower(strings.TrimSpace(s))]; ok {
		return p, nil
	}
	return Platform{}, fmt.Errorf("unknown platform %q: expected one of %s (linux-aarch64 is accepted for linux-jetson, as in NVIDIA's manifests)", s, strings.Join(Names(), ", "))
}

// Sort orders platforms as All does.
func Sort(ps []Platform) {
	idx := map[Platform]int{}
	for i, p := range All() {
		idx[p] = i
	}
	sort.SliceStable(ps, func(i, j int) bool { return idx[ps[i]] < idx[ps[j]] })
}

// cuda13 is the release from which NVIDIA ships Jetson through the server
// ARM (sbsa) builds and stops publishing linux-aarch64 toolkit archives.
var cuda13 = version.MustParse("13.0")

// sbsaJetson is a Jetson module that CUDA 13 serves through the linux-sbsa
// archives, and the first CUDA release that does.
type sbsaJetson struct {
	major, minor int    // its capability's major.minor; suffixes ("a", "f") follow it
	module       string // the module's name, for messages
	from         version.Version
}

// sbsaJetsons lists them (docs/facts.md cites NVIDIA for each): Thor
// (capability 11.0, sm_110) from CUDA 13.0, when NVIDIA unified its Arm
// toolkits; Orin (8.7), which 13.0 left on its CUDA 12 path, from CUDA 13.2,
// with JetPack 7.2 and a forward-compatibility package of its own for older
// JetPacks. Xavier (7.2) and older modules get no CUDA 13 at all.
func sbsaJetsons() []sbsaJetson {
	return []sbsaJetson{
		{major: 11, minor: 0, module: "Thor", from: cuda13},
		{major: 8, minor: 7, module: "Orin", from: version.MustParse("13.2")},
	}
}

// sbsaJetsonFor finds the module of a capability name ("8.7", "11.0a").
func sbsaJetsonFor(capability string) (sbsaJetson, bool) {
	for _, m := range sbsaJetsons() {
		name := fmt.Sprintf("%d.%d", m.major, m.minor)
		if capability == name || (strings.HasPrefix(capability, name) && isSuffix(capability[len(name):])) {
			return m, true
		}
	}
	return sbsaJetson{}, false
}

// isSuffix reports whether s is a capability's feature suffix.
func isSuffix(s string) bool { return s == "a" || s == "f" }

// JetsonServed reports whether a Jetson GPU capability has a Jetson build
// in a CUDA version: every one before 13.0 (linux-aarch64); from 13.0 those
// of sbsaJetsons from their first release (Thor from 13.0, Orin from 13.2),
// through linux-sbsa.
func JetsonServed(cuda version.Version, capability string) bool {
	if cuda.Less(cuda13) {
		return true
	}
	m, ok := sbsaJetsonFor(capability)
	return ok && !cuda.MajorMinor().Less(m.from)
}

// jetsonRefusal explains why a CUDA 13 release has no Jetson build for the
// capabilities old: what it does serve, and which releases serve them.
func jetsonRefusal(cuda version.Version, old []string) error {
	var served []string
	for _, m := range sbsaJetsons() {
		if !cuda.MajorMinor().Less(m.from) {
			served = append(served, fmt.Sprintf("%s (capability %d.%d)", m.module, m.major, m.minor))
		}
	}
	var needs []string
	for _, c := range old {
		if m, ok := sbsaJetsonFor(c); ok {
			needs = append(needs, fmt.Sprintf("capability %s (%s) needs CUDA 12.x, whose linux-aarch64 archives serve it, or CUDA %s or later, whose linux-sbsa archives do",
				c, m.module, m.from))
			continue
		}
		needs = append(needs, fmt.Sprintf("capability %s needs a CUDA release before %s, whose linux-aarch64 archives serve it", c, cuda13))
	}
	return fmt.Errorf("CUDA %s serves Jetson only as %s, through the linux-sbsa archives; %s",
		cuda, strings.Join(served, " and "), strings.Join(needs, "; "))
}

// Keys returns the manifest keys that can serve p for a CUDA version, most
// specific first: the platform's own key, then linux-all for archives that
// fit every Linux, then source for platform-independent sources (a
// library's samples). jetsonCaps are the Jetson capabilities the configuration
// builds for; from CUDA 13.0 Jetson is served through linux-sbsa, and only for
// the modules JetsonServed names, so another Jetson capability there is a
// reason, not a key.
func Keys(p Platform, cuda version.Version, jetsonCaps []string) ([]string, error) {
	var own string
	switch p {
	case LinuxX86_64:
		own = manifest.LinuxX86_64
	case LinuxSBSA:
		own = manifest.LinuxSBSA
	case LinuxPPC64LE:
		own = manifest.LinuxPPC64LE
	case WindowsX86_64:
		return []string{manifest.WindowsX86_64, manifest.Source}, nil
	case WindowsARM64:
		return []string{manifest.WindowsARM64, manifest.Source}, nil
	case LinuxJetson:
		if cuda.Less(cuda13) {
			own = manifest.LinuxAarch64
			break
		}
		var old []string
		for _, c := range jetsonCaps {
			if !JetsonServed(cuda, c) {
				old = append(old, c)
			}
		}
		if len(old) > 0 {
			return nil, jetsonRefusal(cuda, old)
		}
		own = manifest.LinuxSBSA
	default:
		return nil, fmt.Errorf("unknown platform %v", p)
	}
	return []string{own, manifest.LinuxAll, manifest.Source}, nil
}
