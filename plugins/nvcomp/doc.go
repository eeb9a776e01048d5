// Package nvcomp is the fixup plugin for NVIDIA nvCOMP, the GPU
// compression library: for the one package of its manifests, nvcomp, it
// says which files the archive serving each target holds, what they depend
// on and where they cannot be used. It is a declaration (Declaration) the
// SDK builds the plugin from; New returns it.
//
// # Releases and CUDA versions
//
// NVIDIA publishes nvCOMP under compute/nvcomp/redist, one archive per
// platform and CUDA major under cuda12/cuda13 (cuda_variant): 5.3.0 on
// linux-x86_64, linux-sbsa and windows-x86_64. Its manifest puts "version"
// first; the loader reads keys in any order.
//
// # Files
//
// From NVIDIA's native wheels nvidia-libnvcomp-cu12 and -cu13 5.3.0.16
// (x86_64, and aarch64 for cu13), listed in plugins/internal/wheelfiles:
//
//   - include/: nvcomp.h, nvcomp.hpp, nvcomp_export.h and include/nvcomp/;
//   - libnvcomp.so.5 and libnvcomp_cpu.so.5 (SONAMEs by readelf -d: the
//     release major);
//   - bin/nvlzcat, a GPU LZ4 decompressor, which runs beside the program
//     on the target (it needs the GPU), not on the build machine.
//
// The wheels keep the libraries in lib64/. The archive's folder is lib/:
// not checked against an archive (developer.download.nvidia.com cannot be
// reached from here), but every packager of the archive seen reads lib/ —
// vcpkg's and an AUR recipe of the 5.x cuda13 archive install
// lib/libnvcomp_static.a and lib/libnvcomp_cpu_static.a, RAPIDS' CMake
// reads lib/cmake/nvcomp, and a build of 5.3.0.16's tarball links
// lib/libnvcomp_static.a. NVIDIA's nvCOMP documentation was searched and
// does not list the tarball's folders. The wheel check compares shared
// libraries by SONAME, so it cannot tell lib/ from lib64/; the static
// libraries' names come from the same packagers (wheels carry none).
//
// # Dependencies
//
// cuda_cudart, a link edge: nvcomp.h includes cuda_runtime.h. The shared
// libraries NEED only the C and C++ runtimes; static nvCOMP takes -ldl,
// -lpthread, -lrt, -lm and -lstdc++, their NEEDED system libraries.
//
// # Unusable
//
// NVIDIA's nvCOMP installation guide: a GPU of the Volta architecture
// (7.0) or newer; a selected capability below it makes the target unusable
// with a reason naming it. Windows archives: the declaration's platforms
// leave Windows out, so the host marks them unusable with its one reason.
// nvCOMP 6.0 is published but not described (its SONAMEs are unseen): it is
// unusable with a reason naming it, and a set's versioned name for 5.3
// still serves.
package nvcomp
