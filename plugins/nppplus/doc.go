// Package nppplus is the fixup plugin for NVIDIA NPP+, the C++ image and
// signal processing primitives: for the one package of its manifests,
// libnpp_plus, it says which files the archive serving each target holds,
// what they depend on and where they cannot be used. It is a declaration
// (Declaration) the SDK builds the plugin from; New returns it.
//
// # Releases and CUDA versions
//
// NVIDIA publishes NPP+ under compute/nppplus/redist, one archive per
// platform and CUDA major under cuda11/cuda12 (cuda_variant): 0.10.0 on
// linux-x86_64, linux-sbsa, Jetson's linux-aarch64 and windows-x86_64. No
// release serves CUDA 13, so a CUDA 13 set keeps the name libnpp_plus with
// the set's "no release serves" reason.
//
// # Files: not checked against a real listing
//
// NPP+ has no wheel, and its archives cannot be fetched from here, so no
// file below is checked against NVIDIA's bytes and plugins/internal/
// wheelfiles has no listing for it. The names come from NVIDIA's NPP+
// documentation and from packagers of the archives (a Conan recipe, a
// CMake sample script):
//
//   - include/: npp.h and include/nppPlus/nppPlus.h;
//   - lib/libnpp_plus_{c,ial,icc,idei,if,ig,im,ist,isu,itc,s}.so.0: the
//     libraries; the SONAME major 0 is inferred, not seen (NVIDIA's other
//     0.x libraries — cuDSS, nvTIFF, nvJPEG2000, cuBLASMp — all use .so.0;
//     the packagers link the unversioned libnpp_plus_<x>.so);
//   - lib/libnpp_plus_<x>_static.a and the link stubs
//     lib/stubs/libnpp_plus_<x>.so (the Conan recipe's layout).
//
// One packager also lists npp_plus_ai and npp_plus_as, marked unknown
// there and absent from NVIDIA's documentation: not declared.
//
// # Dependencies
//
// cuda_cudart, a link edge: NPP+'s headers include the runtime's, and
// every library needs it (static NPP+ also culibos, which CUDA 11 and 12
// ship in cuda_cudart). Static NPP+ takes -ldl, -lpthread, -lrt, -lm and
// -lstdc++ (the packager's system libraries). Every library needs
// npp_plus_c; they are in one package, so no edge says it.
//
// # Unusable
//
// NPP+ 0.10.0's release notes drop Maxwell, Pascal and Volta: from 0.10
// the floor is capability 7.5 (Turing), and a selected capability below it
// makes the target unusable with a reason naming it. 0.9's floor is not
// documented; none is judged for it. Windows archives: the declaration's
// platforms leave Windows out, so the host marks them unusable. A release
// of another major than 0 is unusable with a reason naming it.
package nppplus
