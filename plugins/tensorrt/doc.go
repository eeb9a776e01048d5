// Package tensorrt is the fixup plugin for NVIDIA TensorRT: for the one
// package of its (hand-written, nixpkgs-style) manifests, tensorrt, it says
// which files each archive holds, what they depend on and on which targets
// they cannot be used. It is a declaration the SDK builds the plugin
// from, with an Amend hook for its unusual rules; New returns it.
//
// It describes TensorRT 10 and 11, the majors of the manifests here (10.0.1
// to 11.3.0); another major keeps its archives and is unusable with a reason.
//
// # Files
//
// The tarballs unpack to TensorRT-<version>/ (the strip prefix its Describe gives);
// in some, lib/ and bin/ are links into targets/<triple>/, and the paths
// below go through them.
//
//   - include/: NvInfer*.h, NvOnnxParser.h, ...
//   - lib/lib<name>.so.<major> for nvinfer (runtime and builder),
//     nvinfer_plugin, nvonnxparser, nvinfer_lean (the lean runtime that runs
//     version-compatible engines), nvinfer_dispatch (loads a lean runtime) and
//     nvinfer_vc_plugin (plugins for version-compatible engines), in 10.x
//     and 11.x alike (11's Debian packages are libnvinfer11,
//     libnvinfer-plugin11, libnvonnxparsers11, libnvinfer-lean11,
//     libnvinfer-dispatch11, libnvinfer-vc-plugin11).
//   - the builder's resources, which libnvinfer opens by file name when it
//     builds an engine (their SONAME is do_not_link_against_...): through
//     10.14 one lib/libnvinfer_builder_resource.so.<x.y.z> (nixpkgs names it
//     by the release's first three numbers, as here); from 10.16, and in
//     11.x, one per GPU architecture and a PTX fallback,
//     lib/libnvinfer_builder_resource_{sm75,sm80,sm86,sm89,sm90,sm100,sm120,ptx}.so.<x.y.z>
//     (tensorrt-cu12-libs 10.16.1's tensorrt_libs/ has the sm ones, the
//     10.16.2 tarball the _ptx one), plus _sm110 (Thor) in the CUDA 13
//     builds of 11.x (seen in 11.1 and 11.2 installs). PyPI has only the
//     sdists of tensorrt-cu*-libs (the wheels are on pypi.nvidia.com), so
//     these names are not checked against a wheel listing (docs/wheels.md).
//   - 10.x static libraries: libnvinfer_static.a, libnvinfer_plugin_static.a,
//     libnvonnxparser_static.a, libnvinfer_lean_static.a,
//     libnvinfer_dispatch_static.a and libonnx_proto.a (which the static
//     parser needs). TensorRT 10.11 deprecated them and 11.0 removed them
//     (release notes): 11.x has none.
//   - bin/trtexec, role exec: a tool that builds and times engines.
//
// Windows (10.0 to 10.4 have zips): the declaration's platforms leave it out, so the host marks
// every windows-x86_64 archive unusable with its one reason for every
// product ("Windows archives are not supported by cudapkgs' Bazel emission
// yet"), and no Windows file is claimed. What is known of the layout, for
// when the emission has Windows: the DLLs <name>_<major>.dll (10.0 added the
// major to the names) in lib/ beside their import libraries <name>_10.lib in
// 10.x, in bin/ from 11; bin/trtexec.exe; no static libraries.
//
// Not listed: python/ (wheels), samples/, data/, doc/, lib/stubs/ (link stubs
// nixpkgs deletes) and libnvinfer_builder_resource_win (for building Windows
// engines on Linux; nixpkgs deletes it too).
//
// # Dependencies
//
//   - cuda_cudart, linked;
//   - cuda_nvrtc, Runtime: TensorRT compiles some kernels at run time
//     (nixpkgs lists it among TensorRT's runtime libraries);
//   - cudnn, Runtime, with the release its builds load, on the platforms that
//     load one. NVIDIA's support matrices list cuDNN as optional for TensorRT
//     10 ("only used to speed up a few deprecated layers", not by the lean or
//     dispatch runtimes, not at all on Blackwell): 8.9.7 for x86_64, Windows
//     and SBSA in 10.0.1, 8.9.7 for x86_64 and Windows and none for SBSA in
//     10.14.1, 8.9.6 for JetPack; the plugins open it as libcudnn.so.8. So:
//     cuDNN 8.9 for every 10.x build for CUDA 11 and 12, except SBSA from
//     10.14; none for builds for CUDA 13 (no cuDNN 8.9 exists for CUDA 13) and
//     none for 11.x, whose support matrix we have not seen list one.
//     nixpkgs' TensorRT table pairs 10.3 (cuda-12.5) with cuDNN 9.3 and
//     10.8 (cuda-12.8) with 9.7; we follow NVIDIA, and the tests list the
//     difference. (TensorRT 8.6 was built against cuDNN 8.9 too; this plugin
//     does not describe 8.x.)
//   - libcudla on linux-jetson (DLA), linked, when Jetson is a target and the
//     set has it (the CUDA 13.0 manifest has no libcudla).
//
// Edges go only to packages the set has.
//
// # Unusable
//
//   - CUDA outside the archive's range. The archive name says which CUDA a
//     build was made with (cuda-12.6). NVIDIA's support matrices list, for the
//     x86_64 and Windows builds, every CUDA of that major from M.0 ("a single
//     build ... compatible with all CUDA 12.x versions"), and for the SBSA and
//     JetPack builds only the CUDA of the build (nixpkgs' table says the same
//     for SBSA: 10.8's min and max are both 12.8). A CUDA newer than the build
//     within the same major runs through minor-version compatibility (on
//     Jetson with the CUDA upgrade packages), so the range is [12.0 or the
//     build's CUDA, 12.x]; nixpkgs caps it at the build's CUDA instead, a
//     listed difference. Another major is always a reason.
//   - GPU capabilities: TensorRT 10.0 to 10.4 run on Volta (7.0) and newer
//     (10.1 install guide), 10.5 removed Volta (release notes), 11.x needs
//     Turing (7.5) or newer. One reason names every capability below the
//     floor.
//   - No reason names another release to use: whether one serves is known
//     only once every plugin has judged every release (a TensorRT that
//     serves the CUDA version may not serve the capabilities), so the
//     generated message names it then (core/archives, Use.Instead).
//   - Jetson with TensorRT 11.0 to 11.3: their release notes leave JetPack
//     out and the 11.3 migration guide says JetPack is not supported; 11.4
//     serves Jetson through the SBSA build again.
//   - A cuDNN of another version: a build that loads cuDNN 8.9 in a set with
//     no cudnn of release 8.9 (under any name, cudnn or cudnn_8_9) is
//     unusable there, naming both versions; the edge is then left out.
//   - A variant missing for the CUDA major, or no archive for a target, is
//     already a reason from the package-set stage; nothing is added.
package tensorrt
