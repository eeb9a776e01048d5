package gpu

import "github.com/cudapkgs/cudapkgs/core/version"

// capabilityTableNewest is the newest CUDA release the capability table was
// checked against: the target lists of nvcc 13.0 to 13.5 (testdata/nvcc.json)
// match the rows. For a later CUDA version the rows are used as they are;
// see CapabilitiesExtrapolation.
var capabilityTableNewest = version.MustParse("13.5")

// capabilityTable is the whole table in Capabilities' order. It is built once
// and never modified; Capabilities hands out copies.
//
// Rows cite the NVIDIA document that sets their range where it is not simply
// "10.0 (the table's floor) onwards". Ranges are inclusive major.minor.
var capabilityTable = [...]Capability{
	// Kepler: deprecated in CUDA 11.0, removed in 12.0 (release notes 11.0, 12.0).
	row(3, 5, "", "Kepler", false, "10.0", "11.8", "11.0"),
	row(3, 7, "", "Kepler", false, "10.0", "11.8", "11.0"),

	// Maxwell, Pascal and Volta: offline compilation removed in CUDA 13.0.
	// DontDefaultAfter for 5.0 follows CUDA 11.0's deprecation of sm_50 (as
	// for Kepler above); for 5.2, 6.x and 7.0 it is nixpkgs' build-size policy
	// (see the package doc).
	row(5, 0, "", "Maxwell", false, "10.0", "12.9", "11.0"),
	row(5, 2, "", "Maxwell", false, "10.0", "12.9", "11.0"),
	// Jetson TX1 / Nano: JetPack 4 ends at CUDA 10.2 and these modules get no
	// later toolkit, whatever nvcc can still emit.
	row(5, 3, "", "Maxwell", true, "10.0", "10.2", ""),
	row(6, 0, "", "Pascal", false, "10.0", "12.9", "12.3"),
	row(6, 1, "", "Pascal", false, "10.0", "12.9", "12.3"),
	// Jetson TX2: JetPack 4, as for 5.3.
	row(6, 2, "", "Pascal", true, "10.0", "10.2", ""),
	row(7, 0, "", "Volta", false, "10.0", "12.9", "12.5"),
	// Jetson Xavier: JetPack 5 ships CUDA 11.4 and the CUDA Upgradable Package
	// for Jetson takes it to 12.2; JetPack 6 (CUDA 12.2+) is Orin-only.
	row(7, 2, "", "Volta", true, "10.0", "12.2", ""),
	row(7, 5, "", "Turing", false, "10.0", "", ""),

	// Ampere: GA100 in CUDA 11.0, GA10x in 11.1, Orin in 11.4.
	row(8, 0, "", "Ampere", false, "11.0", "", ""),
	row(8, 6, "", "Ampere", false, "11.1", "", ""),
	// Orin stays on its JetPack 6 toolkit path in CUDA 13.0 ("CUDA Toolkit
	// 13.0 for Jetson Thor"), but nvcc 13.0 still targets sm_87, so no maximum.
	row(8, 7, "", "Ampere", true, "11.4", "", ""),
	row(8, 9, "", "Ada", false, "11.8", "", ""),

	// Hopper: sm_90 in CUDA 11.8; the first architecture-specific target,
	// sm_90a, in 12.0.
	row(9, 0, "", "Hopper", false, "11.8", "", ""),
	row(9, 0, "a", "Hopper", false, "12.0", "", ""),

	// Blackwell: sm_100, sm_101 and sm_120 (and "a") arrived in CUDA 12.8 (there
	// was no 12.7 release); "f" targets, sm_103 and sm_121 in 12.9.
	row(10, 0, "", "Blackwell", false, "12.8", "", ""),
	row(10, 0, "a", "Blackwell", false, "12.8", "", ""),
	row(10, 0, "f", "Blackwell", false, "12.9", "", ""),
	// Jetson Thor as named by CUDA 12.8 and 12.9; CUDA 13.0 renamed 10.1 to
	// 11.0 (sm_101 -> sm_110), so these stop at 12.9 and 11.0* take over.
	row(10, 1, "", "Blackwell", true, "12.8", "12.9", ""),
	row(10, 1, "a", "Blackwell", true, "12.8", "12.9", ""),
	row(10, 1, "f", "Blackwell", true, "12.9", "12.9", ""),
	row(10, 3, "", "Blackwell", false, "12.9", "", ""),
	row(10, 3, "a", "Blackwell", false, "12.9", "", ""),
	row(10, 3, "f", "Blackwell", false, "12.9", "", ""),
	// Rubin: CUDA 13.4 (GA 13.4.1, nvcc 13.4.59) "adds preview support for the
	// NVIDIA Rubin architecture"; its nvcc is the first to accept sm_107,
	// sm_107a and sm_107f, and names the profile "Rubin". Not Jetson: Rubin is
	// NVIDIA's data-center architecture and no Jetson module with it is
	// documented. A default like every plain non-Jetson target (nixpkgs'
	// rule), although NVIDIA calls the support a preview.
	row(10, 7, "", "Rubin", false, "13.4", "", ""),
	row(10, 7, "a", "Rubin", false, "13.4", "", ""),
	row(10, 7, "f", "Rubin", false, "13.4", "", ""),
	// Jetson Thor from CUDA 13.0 (formerly 10.1).
	row(11, 0, "", "Blackwell", true, "13.0", "", ""),
	row(11, 0, "a", "Blackwell", true, "13.0", "", ""),
	row(11, 0, "f", "Blackwell", true, "13.0", "", ""),
	row(12, 0, "", "Blackwell", false, "12.8", "", ""),
	row(12, 0, "a", "Blackwell", false, "12.8", "", ""),
	row(12, 0, "f", "Blackwell", false, "12.9", "", ""),
	row(12, 1, "", "Blackwell", false, "12.9", "", ""),
	row(12, 1, "a", "Blackwell", false, "12.9", "", ""),
	row(12, 1, "f", "Blackwell", false, "12.9", "", ""),
}

// row builds a table row; the name is derived so it cannot disagree with the
// numbers. Empty version strings mean "none".
func row(major, minor int, suffix, arch string, jetson bool, minCUDA, maxCUDA, dontDefaultAfter string) Capability {
	opt := func(s string) version.Version {
		if s == "" {
			return version.Version{}
		}
		return version.MustParse(s)
	}
	c := Capability{
		Major:            major,
		Minor:            minor,
		Suffix:           suffix,
		Arch:             arch,
		Jetson:           jetson,
		MinCUDA:          version.MustParse(minCUDA),
		MaxCUDA:          opt(maxCUDA),
		DontDefaultAfter: opt(dontDefaultAfter),
	}
	c.Name = formatName(major, minor, suffix)
	return c
}

// hostCompilerTable is nvcc's supported GCC and Clang major versions per CUDA
// release (CUDA Installation Guide for Linux, "Host Compiler Support Policy",
// and the release notes that added each version), in CUDA order. Never
// modified.
var hostCompilerTable = [...]HostCompilers{
	hc("11.0", 6, 9, 7, 9),
	hc("11.1", 6, 10, 7, 10),
	hc("11.2", 6, 10, 7, 11),
	hc("11.3", 6, 10, 7, 11),
	// GCC 11 and Clang 12 were added in 11.4. nixpkgs holds GCC at 10 for
	// 11.4 and 11.5 because GCC 11 with newer glibc broke some CUDA 11.5
	// sample builds; that is a workaround, not NVIDIA's support statement,
	// and callers who need it can pick a lower GCC themselves.
	hc("11.4", 6, 11, 7, 12),
	hc("11.5", 6, 11, 7, 12),
	hc("11.6", 6, 11, 7, 12),
	hc("11.7", 6, 11, 7, 13),
	hc("11.8", 6, 11, 7, 14),
	hc("12.0", 6, 12, 7, 14),
	hc("12.1", 6, 12, 7, 15),
	// Clang 16 arrived in 12.2.2; rows hold the widest patch release.
	hc("12.2", 6, 12, 7, 16),
	hc("12.3", 6, 12, 7, 16),
	// GCC older than 7.3 is deprecated from 12.4 but still accepted.
	hc("12.4", 6, 13, 7, 17),
	hc("12.5", 6, 13, 7, 17),
	hc("12.6", 6, 13, 7, 18),
	hc("12.8", 6, 14, 7, 19),
	hc("12.9", 6, 14, 7, 19),
	hc("13.0", 6, 15, 7, 20),
	// 13.1 to 13.5: the maxima are what each release's nvcc accepts, read
	// from its crt/host_config.h (NVIDIA's nvidia-cuda-crt wheels, every patch
	// release of each minor on PyPI; testdata/nvcc.json). The same reading
	// of 13.0's header gives GCC 15 and Clang 20, the 13.0 row above, which
	// the Installation Guide states. Clang 21 arrived in 13.1, GCC 16 and
	// Clang 22 in 13.4.
	//
	// Minima inferred: same as 13.0 (GCC 6, Clang 7), because the header
	// checks no GCC minimum and only Clang > 3.2, and the Installation
	// Guide's table for these releases could not be read to confirm a raise.
	hc("13.1", 6, 15, 7, 21),
	hc("13.2", 6, 15, 7, 21),
	hc("13.3", 6, 15, 7, 21),
	hc("13.4", 6, 16, 7, 22),
	hc("13.5", 6, 16, 7, 22),
}

func hc(cuda string, gccMin, gccMax, clangMin, clangMax int) HostCompilers {
	return HostCompilers{
		CUDA:     version.MustParse(cuda),
		GCCMin:   gccMin,
		GCCMax:   gccMax,
		ClangMin: clangMin,
		ClangMax: clangMax,
	}
}
