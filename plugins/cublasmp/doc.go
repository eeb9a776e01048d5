// Package cublasmp is the fixup plugin for NVIDIA cuBLASMp, the
// distributed (multi-process, multi-GPU) PBLAS-like library: for the one
// package of its manifests, libcublasmp, it says which files the archive
// serving each target holds, what they depend on and where they cannot be
// used. It is a declaration (Declaration) the SDK builds the plugin from;
// New returns it.
//
// # Releases and CUDA versions
//
// NVIDIA publishes cuBLASMp under compute/cublasmp/redist, one archive per
// platform and CUDA major under cuda12/cuda13 (cuda_variant). 0.10.0 has
// both on linux-x86_64 and linux-sbsa, and nothing else: no Jetson, no
// Windows (NVIDIA's documentation: x86_64 and arm64-sbsa, Linux).
//
// # Files
//
// From NVIDIA's wheels nvidia-cublasmp-cu12 and -cu13 0.10.0.3695 (x86_64,
// and aarch64 for cu13), listed in plugins/internal/wheelfiles (the wheels
// keep the archive's layout one folder down, under cu12/ or cu13/):
//
//   - include/: cublasmp.h;
//   - lib/libcublasmp.so.0, SONAME libcublasmp.so.0 (readelf -d).
//
// The wheels carry no static library, and nothing seen says the archive
// has one, so none is declared: a static cuBLASMp build is not offered.
// The archives themselves could not be fetched here; their top folders
// (include/, lib/) are the wheels' and NVIDIA's redist convention.
//
// # Dependencies
//
// libcublasmp.so.0 NEEDs libcuda.so.1 (the driver), libcublas.so.<cuda
// major>, libcublasLt.so.<cuda major> and libnccl.so.2; cublasmp.h
// includes cublas_v2.h and nccl.h. So:
//
//   - libcublas, a link edge (cuBLASLt ships in it);
//   - cuda_cudart, a link edge (cublas_v2.h needs the runtime's headers);
//   - nccl, a link edge, when the set has NCCL (it comes from NVIDIA's
//     wheels, not a redist manifest).
//
// cuBLASMp before 0.8 also needed NVSHMEM; 0.8 replaced it with NCCL's
// symmetric memory (NVIDIA's documentation), and 0.10's library NEEDs no
// NVSHMEM, so no NVSHMEM edge is declared.
//
// # Unusable
//
// NVIDIA's cuBLASMp documentation: compute capability 7.0 (Volta) and newer
// with CUDA 12, 7.5 (Turing) and newer with CUDA 13. CUDA 13 builds nothing
// below 7.5, so one floor, 7.0, says both: a selected capability below it
// makes the target unusable with a reason naming it. Windows and Jetson
// have no archive. A release of another major than 0 has SONAMEs nobody has
// seen: unusable, with a reason naming it.
package cublasmp
