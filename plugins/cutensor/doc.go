// Package cutensor is the fixup plugin for NVIDIA cuTENSOR: for the one
// package of its manifests, libcutensor, it says which files the archive
// serving each target holds, what they depend on and where they cannot be
// used. It is a declaration the SDK builds the plugin
// from, with an Amend hook for its unusual rules; New returns it.
//
// # Which folder holds the libraries
//
// Before 2.3 cuTENSOR shipped one archive per platform, without cuda_variant,
// holding a lib/<cuda> folder per CUDA it was built for (cuTENSOR release
// notes; nixpkgs' former cutensor expression picks "lib/${if cudaMajorVersion
// == "10" then cudaMajorMinorVersion else cudaMajorVersion}"):
//
//	1.3 to 1.6   lib/10.2, lib/11
//	1.7          lib/10.2, lib/11, lib/12
//	2.0 to 2.2   lib/11, lib/12   (2.0 removed CUDA 10.2)
//
// The plugin picks lib/<cuda major> for the batch's CUDA version (lib/10.2
// for CUDA 10.2): cuTENSOR 1.3.3 with CUDA 11.4 uses lib/11, 2.2.0 with CUDA
// 12.4 lib/12. Early 1.x archives are said to carry a lib/11.0 for CUDA 11.0
// too (nixpkgs' scans do not list folders, so the tests cannot tell); no CUDA
// this project builds for (11.4 and later) would use it. From 2.3 there is an
// archive per CUDA major (cuda12, cuda13) with the libraries in lib/. A flat
// archive without the folder the batch needs is unusable with a reason naming
// the folders it has (the package-set stage should not choose it: Describe
// gives the core the same table as ranges, and a test keeps the two equal).
//
// # Files
//
// include/ (cutensor.h, cutensorMg.h, cutensor/types.h...); libcutensor.so.<major>
// and, from 1.4 (which introduced cuTENSORMg), libcutensorMg.so.<major>, with
// their static libraries libcutensor_static.a and libcutensorMg_static.a;
// from 2.4, libcutensorMp.so.2, the multi-process library (beta), which links
// libnccl.so.2: NCCL is no package of these sets, so it works only where the
// system provides it (nixpkgs lets it go unresolved where NCCL is missing).
// The tests check the lib, static and dev outputs against nixpkgs' scans of
// the archives (cutensor/features).
//
// Windows: the declaration's platforms leave it out, so the host marks
// every windows-x86_64 archive unusable with its one reason for every
// product ("Windows archives are not supported by cudapkgs' Bazel emission
// yet"), and no Windows file is
// claimed. What is known of the layout, for when the emission has Windows:
// cutensor.dll and cutensorMg.dll in lib/<cuda> in flat archives (Julia's
// Yggdrasil recipes move them from lib/11 and lib/12), in bin/ from 2.3 with
// the import libraries cutensor.lib and cutensorMg.lib in lib/ (Yggdrasil's
// 2.3.1 recipe). nixpkgs' scans see Windows headers only (dev: true), which
// is the one listed difference with them in the tests.
//
// # Dependencies
//
// libcublas (cuTENSOR maps contractions to cuBLASLt; 2.0's release notes
// raised the cuBLASLt requirement) and cuda_cudart (libcutensor 1.4 and
// libcutensorMp link libcudart; nixpkgs propagates it for all releases), as
// link edges, when the set has them.
//
// # Unusable
//
// cuTENSOR 2.3 and later need compute capability 7.5 or newer (nixpkgs'
// libcutensor asserts it, after NVIDIA's release notes; 2.8 deprecates Turing
// too): an older configured capability makes the target unusable, and the
// reason names the newest pre-2.3 package of the set (libcutensor_2_2) that
// still serves it. Variants missing for a CUDA major are reasons from the
// package-set stage already; nothing is added to them.
package cutensor
