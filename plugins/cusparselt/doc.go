// Package cusparselt is the fixup plugin for NVIDIA cuSPARSELt, the
// structured-sparsity matrix multiplication library: for the one package of
// its manifests, libcusparse_lt, it says which files the archive serving
// each target holds, what they depend on and where they cannot be used. It
// is a declaration (Declaration) the SDK builds the plugin from; New
// returns it.
//
// # Releases and CUDA versions
//
// NVIDIA publishes cuSPARSELt under compute/cusparselt/redist with the
// cuDNN-style layout: one archive per platform and CUDA major, under
// cuda12/cuda13 keys, listed in cuda_variant. 0.8.1 has cuda12 and cuda13
// archives (Jetson, linux-aarch64, included); 0.10.0 has cuda13 only, for
// linux-x86_64, linux-sbsa and Windows. Which release serves which CUDA
// version is the package-set stage's reading of those variants: nothing here
// repeats it. A release without variants (older releases such as 0.6.1 had
// one archive per platform) serves no CUDA version, because no table says
// which one it was built for, and the set says so; a variant key the manifest loader does not
// know is a warning and left out. The default name (libcusparse_lt) is the
// newest release that serves the CUDA version; every major.minor also has a
// versioned name (libcusparse_lt_0_8, libcusparse_lt_0_10), as for cuDNN.
//
// # Files
//
// Every per-variant archive unpacks to include/ and lib/ (the same layout
// as the 0.8.1 cuda12 tarball as Spack and distribution packages install
// it):
//
//   - include/cusparseLt.h, and from 0.10 include/cusparseLt_cusparse_stub.h;
//   - lib/libcusparseLt.so.0 (SONAME libcusparseLt.so.0, read from the
//     library in NVIDIA's 0.8.1 and 0.10.0 wheels), with the
//     libcusparseLt.so link and the fully versioned file beside it;
//   - lib/libcusparseLt_static.a.
//
// The tests compare this with the wheels' file lists (plugins/internal/wheelfiles).
//
// Windows: the declaration's platforms leave it out, so the host marks every
// windows-x86_64 archive unusable with its one reason for every product, and
// no Windows file is claimed.
//
// # Dependencies
//
//   - cuda_cudart, a link edge: cusparseLt.h includes driver_types.h and
//     library_types.h, and the static library needs the runtime at link time
//     (the shared one carries it: its NEEDED entries are system libraries only).
//   - cuda_nvrtc, Runtime, from 0.8: libcusparseLt opens libnvrtc.so.<major>
//     with dlopen (the strings of both wheels' libraries; nixpkgs adds NVRTC
//     to its runpath from 0.8).
//   - libcusparse, Headers, before 0.10: cusparseLt.h includes cusparse.h for
//     cusparseStatus_t. 0.10 includes it only where __has_include finds it and
//     falls back to its own stub, so no edge is needed.
//
// Static cuSPARSELt needs -ldl, -lpthread, -lrt and -lm: the shared
// library's NEEDED system libraries, whose objects the static one carries.
//
// # Unusable
//
// cuSPARSELt runs on the Sparse Tensor Cores that came with NVIDIA Ampere:
// compute capability 8.0 or newer, for every release (release notes: v0.0.1
// supported SM 8.0 only; the "Support SM arch" column of NVIDIA's 0.8.1 and
// 0.10.0 package descriptions starts at 8.0). A configured capability below
// it (Turing, Volta, Jetson Xavier) makes the target unusable with a reason
// naming the capability. The defaults include Turing (7.5) for every CUDA
// version, so with them cuSPARSELt is unusable everywhere until the
// configuration names Ampere-or-newer capabilities only, exactly as cudnn_jit.
//
// A release of another major than 0 has a SONAME nobody has seen: it is
// unusable with a reason naming its release, not guessed at. An unknown
// package of the manifests is served generically (the host warns).
package cusparselt
