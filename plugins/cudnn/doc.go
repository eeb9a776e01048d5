// Package cudnn is the fixup plugin for NVIDIA cuDNN: it answers, for the
// packages of the cuDNN manifests (cudnn, cudnn_samples and, from 9.11,
// cudnn_jit), which files each archive holds, what they depend on and on
// which targets they cannot be used. It is a declaration (Declaration) the SDK
// builds the plugin from, as a third party's would be; New returns it.
//
// # Files
//
// cuDNN's Linux redistributable archives unpack to include/ and lib/.
// Shared libraries are listed by their SONAME file:
//
//   - cuDNN 8: the shim libcudnn.so.8 and the inference/training halves of
//     each layer family, libcudnn_{ops,cnn,adv}_{infer,train}.so.8; static
//     libraries libcudnn_{ops,cnn,adv}_{infer,train}_static.a (the archives
//     also carry *_static_v8.a aliases, and no libcudnn_static.a).
//   - cuDNN 9: the shim libcudnn.so.9 and libcudnn_graph, _engines_precompiled,
//     _engines_runtime_compiled, _heuristic, _ops, _cnn and _adv .so.9; static
//     libraries libcudnn_<same>_static.a (with *_static_v9.a aliases). From 9.21
//     also libcudnn_engines_tensor_ir (Google's rules_ml_toolchain adds it from
//     9.21.0); no manifest here is that new.
//   - cudnn_jit is NVIDIA's GRAPH_JIT_ONLY configuration (cuDNN frontend docs,
//     "cuDNN Library Configuration"): libcudnn, libcudnn_graph and
//     libcudnn_engines_runtime_compiled, graph API only, JIT engines only, no
//     static libraries. A program using it must set CUDNN_LIB_CONFIG=GRAPH_JIT_ONLY.
//   - cudnn_samples: sources, as data, under src/cudnn_samples_v<major> (the
//     folder nixpkgs builds them from); per platform in cuDNN 8, one source
//     archive for every platform from cuDNN 9.
//
// # Dependencies
//
// NVIDIA's "Building and Running a cuDNN Dependent Program" (cuDNN 9) says the
// dynamic libraries open libcublasLt (for some convolution engines and the
// legacy convolution, RNN and multi-head-attention APIs) and libnvrtc (for the
// runtime-compiled engines) with dlopen, and that static cuDNN links
// -lcublasLt_static and -lnvrtc_static. cuDNN 8's libcudnn_ops_infer opens
// libcublas and libcublasLt the same way (nixpkgs patches them in as NEEDED).
// So:
//
//   - cudnn -> libcublas (cuBLASLt ships in the libcublas package), a link edge
//     because the static libraries need it at link time, which also puts it
//     where the dynamic ones find it;
//   - cudnn -> cuda_nvrtc, Runtime: the runtime fusion engines compile kernels
//     with NVRTC. They date from cuDNN 8.3 (nvrtcSince); every release in the
//     manifests (8.5 to 9.12) has them, so the edge is unconditional here;
//   - cudnn_jit -> cuda_nvrtc, Runtime, and no cuBLAS: its configuration has
//     neither the legacy APIs nor the precompiled engines that use cuBLASLt;
//   - cudnn_samples -> the cudnn of the same release, and cuda_cudart.
//
// Edges are given only to packages the set has. zlib (cuDNN's libcudnn_graph
// needs libz.so.1 at load time on Linux) is a system library, not a package.
//
// # Unusable
//
// Windows: the declaration's platforms leave it out, so the host marks
// every windows-x86_64 archive unusable with its one reason for every
// product ("Windows archives are not supported by cudapkgs' Bazel emission
// yet"), and no Windows file is
// claimed: the emission has nothing to consume them with, and the host drops
// the files of an unusable platform anyway. What is known of the layout, for
// when it has: bin/cudnn64_<major>.dll and bin/cudnn_<sub>64_<major>.dll for
// the sub-libraries above (Julia's Yggdrasil recipe), include/, and the import
// libraries in lib/x64 (cudnn.lib for the shim; NVIDIA's install guide copies
// bin\*.dll, include\*.h and lib\x64\*.lib); no static cuDNN on Windows;
// cuDNN 8 there also needs zlibwapi.dll from elsewhere.
//
// cuDNN keeps working on GPUs newer than it knows (PTX and, from 9.0, hardware
// forward compatibility), so only floors are checked, per target, against the
// configured capabilities:
//
//   - cuDNN 8.8 dropped Kepler (3.5, 3.7): 8.7 is the last release that serves
//     it (support matrices 8.5.0 and 8.8.0, as nixpkgs' cudnn fixup cites them);
//   - cuDNN 9.11 dropped Maxwell, Pascal and Volta, Jetson TX1, TX2 and Xavier
//     included (5.x to 7.2): the 9.10.2 support matrix still lists them, marked
//     deprecated; conda-forge's cudnn feeds report 9.11 without sm_70; nixpkgs
//     asserts 7.5 from 9.12 (citing the 9.12.0 support matrix) because 9.12 is
//     the first release it packages after 9.10. The manifests here go from
//     9.7.1 to 9.12.0, so both readings agree on them.
//   - cudnn_jit needs Ampere (8.0) or newer, as the GRAPH_JIT_ONLY
//     configuration says.
//
// The default capabilities of CUDA 12.0 to 12.4 still include Pascal and
// Volta, so there the default cudnn (9.12) is unusable on every target and
// the reason points at cudnn_9_7; cudnn_jit is unusable wherever Turing is
// configured, which the defaults always are.
//
// The reason names the capability, the release, the last release that serves
// it and, when the set has one (cudnn_9_7), the versioned package to use.
//
// A variant missing for the CUDA major (cuDNN 9.12 has no cuda11 build) and a
// platform without an archive are already reasons from the package-set stage;
// this plugin adds nothing to them. Unknown packages keep their archives and
// are unusable with a reason naming them, so a new NVIDIA package is visible
// rather than silently empty; the tests fail on any package of the manifests
// here that the plugin does not know.
package cudnn
