// Package cudss is the fixup plugin for NVIDIA cuDSS, the direct sparse
// solver library: for the one package of its manifests, libcudss, it says
// which files the archive serving each target holds, what they depend on
// and where they cannot be used. It is a declaration (Declaration) the SDK
// builds the plugin from; New returns it.
//
// # Releases and CUDA versions
//
// NVIDIA publishes cuDSS under compute/cudss/redist with the cuDNN-style
// layout: one archive per platform and CUDA major, under cuda12/cuda13 keys,
// listed in cuda_variant. 0.6.0 has cuda12 archives only (linux-x86_64,
// linux-sbsa, Jetson's linux-aarch64, Windows); 0.8.0 has cuda12 and cuda13,
// with Jetson's linux-aarch64 for cuda12 only (CUDA 13 serves Jetson Thor
// from linux-sbsa). Which release serves which CUDA version is the
// package-set stage's reading of those variants: nothing here repeats it. A
// release without variants serves no CUDA version, because no table says
// which one it was built for, and the set says so; a variant key the
// manifest loader does not know is a warning and left out. The default name
// (libcudss) is the newest release that serves the CUDA version; every
// major.minor also has a versioned name (libcudss_0_6, libcudss_0_8), as for
// cuDNN.
//
// # Files
//
// Every per-variant archive unpacks to include/ and lib/:
//
//   - include/: cudss.h, cudss_distributed_interface.h,
//     cudss_threading_interface.h and, from 0.8, cudss_data_types.h;
//   - lib/libcudss.so.0 (SONAME libcudss.so.0, read from the library in
//     NVIDIA's 0.6.0.5 and 0.8.0.10 wheels);
//   - lib/libcudss_static.a (the archive's CMake files name it, as nixpkgs'
//     libcudss patches them);
//   - the communication and threading layers libcudss_commlayer_nccl.so.0,
//     libcudss_commlayer_openmpi.so.0 and libcudss_mtlayer_gomp.so.0, as
//     data, never linked: cuDSS opens them at run time from the path the
//     program gives (CUDSS_COMM_LIB, CUDSS_THREADING_LIB), and they need
//     NCCL, MPI (libmpi.so.40) and GNU OpenMP (libgomp.so.1), which no package
//     of these sets provides. Linked by default they would break every cuDSS
//     program's link where those are missing; as data they are in the package
//     and its runfiles for programs that bring them.
//
// The tests compare this with the wheels' file lists (plugins/internal/wheelfiles).
//
// Windows: the declaration's platforms leave it out, so the host marks every
// windows-x86_64 archive unusable with its one reason for every product, and
// no Windows file is claimed.
//
// # Dependencies
//
//   - libcublas, a link edge: libcudss.so.0 NEEDs libcublas.so.<cuda major>,
//     and static cuDSS links libcublas_static, libcublasLt_static and
//     culibos (cuBLASLt ships in the libcublas package).
//   - cuda_cudart, a link edge: cudss.h includes cuda_runtime.h, and the
//     static library needs the runtime at link time.
//
// Static cuDSS needs -ldl, -lpthread, -lrt and -lm, the shared library's
// NEEDED system libraries.
//
// # Unusable
//
// cuDSS supports every NVIDIA GPU from Pascal (compute capability 6.0) on,
// as NVIDIA's cuDSS product page says. A configured capability below it
// (Maxwell, which CUDA 12 still builds for) makes the target unusable with a
// reason naming the capability; the defaults are all above it.
//
// A release of another major than 0 has SONAMEs nobody has seen: it is
// unusable with a reason naming its release, not guessed at. An unknown
// package of the manifests is served generically (the host warns).
package cudss
