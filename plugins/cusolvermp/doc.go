// Package cusolvermp is the fixup plugin for NVIDIA cuSOLVERMp, the
// distributed (multi-process, multi-GPU) ScaLAPACK-like solver library: for
// the one package of its manifests, libcusolvermp, it says which files the
// archive serving each target holds, what they depend on and where they
// cannot be used. It is a declaration (Declaration) the SDK builds the
// plugin from; New returns it.
//
// # Releases and CUDA versions
//
// NVIDIA publishes cuSOLVERMp under compute/cusolvermp/redist, one archive
// per platform and CUDA major under cuda12/cuda13 (cuda_variant). 0.9.1 has
// both on linux-x86_64 and linux-sbsa, and nothing else: no Jetson, no
// Windows (NVIDIA's documentation: x86_64 and arm64-sbsa, Linux).
//
// # Files
//
// From NVIDIA's wheels nvidia-cusolvermp-cu12 and -cu13 0.9.1.9318 (x86_64,
// and aarch64 for cu13), listed in plugins/internal/wheelfiles:
//
//   - include/: cusolverMp.h;
//   - lib/libcusolverMp.so.0, SONAME libcusolverMp.so.0 (readelf -d).
//
// The wheels carry no static library, and nothing seen says the archive
// has one, so none is declared. The archives themselves could not be
// fetched here; their top folders (include/, lib/) are the wheels' and
// NVIDIA's redist convention.
//
// # Dependencies
//
// libcusolverMp.so.0 NEEDs libnccl.so.2, libcublas.so.<cuda major>,
// libcublasLt, libcusolver.so.<11 or 12>, libcudart.so.<cuda major>,
// libcuda.so.1 (the driver) and libcublasmp.so.0; cusolverMp.h includes
// nccl.h and cusolverDn.h. So, each a link edge, when the set has the
// package: libcusolver, libcublas (cuBLASLt ships in it), cuda_cudart,
// libcublasmp (plugins/cublasmp) and nccl (from NVIDIA's wheels, not a
// redist manifest). NVIDIA documents NCCL 2.18.5 or newer as required.
//
// # Unusable
//
// NVIDIA's cuSOLVERMp documentation: compute capability 7.0 (Volta) and
// newer with CUDA 12, 7.5 (Turing) and newer with CUDA 13. CUDA 13 builds
// nothing below 7.5, so one floor, 7.0, says both. Windows and Jetson have
// no archive. A release of another major than 0 has SONAMEs nobody has
// seen: unusable, with a reason naming it.
package cusolvermp
