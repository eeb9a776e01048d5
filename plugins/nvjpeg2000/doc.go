// Package nvjpeg2000 is the fixup plugin for NVIDIA nvJPEG2000, the GPU
// JPEG 2000 decoder and encoder: for the one package of its manifests,
// libnvjpeg_2k, it says which files the archive serving each target holds,
// what they depend on and where they cannot be used. It is a declaration
// (Declaration) the SDK builds the plugin from; New returns it.
//
// # Releases and CUDA versions
//
// NVIDIA publishes nvJPEG2000 under compute/nvjpeg2000/redist, one archive
// per platform and CUDA major (cuda_variant 12 and 13). 0.11.0 has cuda12
// and cuda13 on linux-x86_64, linux-sbsa and windows-x86_64, and cuda12
// only on Jetson's linux-aarch64 (CUDA 13 serves Jetson Thor from
// linux-sbsa).
//
// # Files
//
// From NVIDIA's wheels nvidia-nvjpeg2k-cu12 and -cu13 0.11.0.51 (x86_64,
// and aarch64 for cu13), listed in plugins/internal/wheelfiles:
//
//   - include/: nvjpeg2k.h, nvjpeg2k_version.h;
//   - lib/libnvjpeg2k.so.0, SONAME libnvjpeg2k.so.0 (readelf -d); NEEDED
//     only librt, libpthread, libdl, libm, libgcc_s and libc;
//   - lib/libnvjpeg2k_static.a: wheels carry no static library; the name
//     is NVIDIA's convention in its redist archives (nixpkgs'
//     libnvjpeg_2k has a static output), not checked against an archive.
//
// # Dependencies
//
// cuda_cudart, a link edge: nvjpeg2k.h includes cuda_runtime_api.h and
// library_types.h. Static nvJPEG2000 takes -ldl, -lpthread, -lrt and -lm,
// the shared library's NEEDED system libraries.
//
// # Unusable
//
// NVIDIA's nvJPEG2000 documentation: "supported on Pascal+ GPU
// architectures", so capability 6.0 and newer; a selected capability below
// it (Maxwell, which CUDA 12 still builds for) makes the target unusable
// with a reason naming it. Windows archives: the declaration's platforms
// leave Windows out, so the host marks them unusable with its one reason.
// A release of another major than 0 has SONAMEs nobody has seen: unusable,
// with a reason naming it.
package nvjpeg2000
