// Package gpu is the project's table of NVIDIA GPU compute capabilities and of
// the host compilers nvcc accepts, with the checks and nvcc flags built on them.
//
// The tables are written from NVIDIA's public documentation, not copied from
// another package set, so that every number can be traced to an NVIDIA page.
// nixpkgs' cuda-modules encodes the same facts; the tests compare both tables
// against nixpkgs' (read from the shared test data at test time) and fail on
// any difference that is not listed, with its reason, in the test.
//
// # Compute capabilities
//
// Sources:
//
//   - CUDA C++ Programming Guide, "Compute Capabilities" (the capability of
//     each architecture and product) and "Feature Availability" (the meaning of
//     the "a" and "f" suffixes).
//   - NVCC documentation, "GPU Compilation" / "Virtual Architecture Feature
//     List" and "GPU Feature List" (which sm_XY and compute_XY each nvcc
//     accepts).
//   - CUDA Toolkit Release Notes, for when each target appeared or was
//     removed: 11.0 (sm_80 added; sm_35, sm_37 and sm_50 deprecated), 11.1
//     (sm_86), 11.4 (sm_87), 11.8 (sm_89, sm_90), 12.0 (sm_90a; Kepler
//     removed), 12.8 (sm_100, sm_101, sm_120 and their "a" variants), 12.9
//     (family-specific "f" targets; sm_103, sm_121), 13.0 (sm_101 renamed
//     sm_110; offline compilation for capabilities below 7.5 removed), 13.4
//     ("preview support for the NVIDIA Rubin architecture": sm_107, sm_107a,
//     sm_107f).
//   - For CUDA 13.0 to 13.5, what each release's nvcc itself accepts: nvcc from
//     NVIDIA's nvidia-cuda-nvcc wheels, asked with --dryrun for every sm_XY
//     with and without suffix. testdata/nvcc.json records the result and the
//     tests check the table against it. 13.1 to 13.3 added and removed no
//     target; 13.4 added sm_107 (nvcc's own name for it is Rubin).
//   - JetPack / CUDA for Tegra release notes and "CUDA Upgradable Package for
//     Jetson", for the CUDA versions each Jetson module can run.
//
// Choices:
//
//   - A capability's CUDA range is the CUDA versions that can build for it and
//     whose binaries can run on it. For discrete GPUs that is nvcc's target
//     list. For Jetson modules it is narrower: the toolkit must also exist for
//     the module's JetPack, so Xavier (7.2) stops at CUDA 12.2 although nvcc
//     12.9 still emits sm_72, and TX1/Nano (5.3) and TX2 (6.2) stop at CUDA
//     10.2, the last JetPack 4 toolkit.
//   - CUDA 10.0 is the table's floor: a MinCUDA of 10.0 means "10.0 or
//     earlier"; older toolkits are out of scope.
//   - The maximum is inclusive and both bounds compare at major.minor, so
//     CUDA 11.8.0 and 11.8.89 behave alike.
//   - Jetson Thor was capability 10.1 in CUDA 12.8 and 12.9 and is 11.0 from
//     CUDA 13.0; the table holds both names with disjoint ranges, and Check
//     mentions the other name when one is refused.
//   - Capability 8.8 is left out, as nixpkgs leaves it out (it keeps the
//     entry only as a comment): NVIDIA documents no product a package set
//     targets with it.
//   - DontDefaultAfter is build-size policy, not an NVIDIA fact. Where NVIDIA
//     deprecated an architecture we follow that; otherwise we keep nixpkgs'
//     values so that default builds cover the same GPUs users of nixpkgs get.
//
// Defaults for a non-Jetson target are the supported capabilities that are
// not Jetson, not architecture- or family-specific and not past their
// DontDefaultAfter (nixpkgs' rule). nixpkgs never defaults Jetson targets; we
// choose otherwise: Defaults with jetson=true gives the Jetson capabilities
// that CUDA version supports (again without the "a"/"f" variants), because a
// build for "Jetson" without further detail should run on every Jetson module
// that CUDA version can serve.
//
// Architecture-specific ("9.0a") and family-specific ("10.0f") targets are
// never defaults: their code runs only on that exact capability ("a") or on
// the later members of the same family ("f"), and their PTX cannot be
// JIT-compiled for later architectures. For the same reason Gencode's
// forward-compatible PTX entry is for the last plain capability it is given.
//
// # Host compilers
//
// Source: CUDA Installation Guide for Linux, "System Requirements" /
// "Host Compiler Support Policy" (supported GCC and Clang per CUDA release),
// and the release notes of each toolkit for when a compiler version was added.
// From CUDA 13.1 the maxima are read from the check nvcc itself makes, its
// crt/host_config.h ("gcc versions later than 16 are not supported"), in
// NVIDIA's nvidia-cuda-crt wheels of every patch release (testdata/nvcc.json);
// read the same way, 13.0's header agrees with 13.0's row. The header checks no
// GCC minimum, so the 13.1 to 13.5 minima are 13.0's, marked inferred in the
// table.
// Ranges are inclusive major versions for x86_64 and Arm server Linux; they do
// not apply to Jetson toolkits, which ship with their JetPack's compiler.
// Where NVIDIA widened support in a patch release (Clang 16 arrived in
// 12.2.2) the row holds the widest support of that minor release, because
// users take the newest patch. There was no CUDA 12.7 release, so it has no
// row.
//
// # CUDA versions newer than the tables
//
// Both tables cover CUDA through 13.5 (Table.Newest). NVIDIA ships toolkits
// faster than the tables are updated, and a new release is far more likely to
// accept what its predecessor did than nothing at all, so a CUDA version past
// a table is neither refused nor left unchecked: the newest entry stands in,
// and the caller is told. HostCompilersFor, LookupHostCompilers and
// CheckHostCompiler use 13.5's ranges for CUDA 13.6 or 14.0; the capability
// table is used as it is, so capabilities whose MaxCUDA is open stay
// supported (and defaults), closed ones stay refused, and targets the new
// release adds are unknown. Extrapolations and Warnings report it, as
//
//	CUDA 14.0 is newer than cudapkgs' host-compiler table (newest: 13.5); using 13.5's ranges
//	CUDA 14.0 is newer than cudapkgs' GPU capability table (newest: 13.5); using 13.5's capabilities
//
// Versions before a table or missing from it (12.7 never shipped) have no
// newer row to borrow and stay errors.
package gpu
