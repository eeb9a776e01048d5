// Package nvtiff is the fixup plugin for NVIDIA nvTIFF, the GPU TIFF
// encoder and decoder: for the one package of its manifests, libnvtiff, it
// says which files each target's archive holds, what they depend on and
// where they cannot be used. It is a declaration (Declaration) the SDK
// builds the plugin from; New returns it.
//
// # Releases and CUDA versions
//
// NVIDIA publishes nvTIFF under compute/nvtiff/redist, one archive per
// platform and CUDA major under cuda12/cuda13 (cuda_variant). 0.8.0 has
// cuda12 and cuda13 on linux-x86_64, linux-sbsa and windows-x86_64, and
// cuda12 only on Jetson's linux-aarch64 (CUDA 13 serves Jetson Thor from
// linux-sbsa). Its manifest puts "version" first and platforms on both
// sides of name/license; the loader reads keys in any order.
//
// # Files
//
// From NVIDIA's wheels nvidia-nvtiff-cu12 and -cu13 0.8.0.82 (x86_64 and
// aarch64), listed in plugins/internal/wheelfiles:
//
//   - include/: nvtiff.h, nvtiff_version.h;
//   - lib/libnvtiff.so.0, SONAME libnvtiff.so.0 (readelf -d); NEEDED only
//     librt, libpthread, libdl, libm, libgcc_s and libc: nothing of CUDA is
//     linked (the runtime comes from the program's own cudart);
//   - lib/libnvtiff_static.a: wheels carry no static library; the name is
//     NVIDIA's convention in its redist archives (nixpkgs' libnvtiff has a
//     static output), not checked against the archive here.
//
// # Dependencies
//
// cuda_cudart, a link edge: nvtiff.h includes cuda_runtime.h and
// library_types.h. Static nvTIFF needs -ldl, -lpthread, -lrt and -lm, the
// shared library's NEEDED system libraries.
//
// # Unusable
//
// Windows archives: the declaration's platforms leave Windows out, so the
// host marks them unusable with its one reason for every product. nvTIFF's
// documentation names no capability floor beyond CUDA's own, so none is
// judged here. A release of another major than 0 has SONAMEs nobody has
// seen: unusable, with a reason naming it.
package nvtiff
