// Package redist is the fixup plugin of the CUDA toolkit product ("cuda"):
// what cudapkgs knows about each package of NVIDIA's CUDA redistrib
// manifests, from CUDA 11.4.2 to 13.3.0.
//
//	fixer := redist.New() // an sdk.Fixer: Describe() is {Name: "redist", Products: ["cuda"]}
//	res, err := fixer.Fixup(ctx, batch)
//
// Fixup answers for every package of a batch: its files per target platform
// (kind, role, SONAME), its dependency edges for the batch's CUDA version,
// and where it cannot be used, with the reason. It is written against the
// plugin SDK only, as a third party's plugin would be: Declaration is an
// sdk.Product built from the tables (rows bounded by sdk.When), and New its
// Fixer; an Amend hook adds the header patches. It errs only on a batch it
// cannot read (another product, an unparsable version).
//
// # The tables
//
// table.go holds one row per manifest package name (type pkg in rules.go):
//
//   - files: the package's outputs, relative to the archive root, in the
//     Linux layout (bin/nvcc, include, lib/libcublas_static.a,
//     lib/stubs/libcublas.so, nvvm/libdevice, include/cccl). Each file may be
//     bounded by CUDA version (CUDAFrom/CUDAThrough, inclusive prefixes:
//     CUDAThrough("12") is every 12.x) and by target platform (OnlyOn).
//   - shared libraries are written as a base and a SONAME scheme, and listed
//     by their SONAME file: solib("lib/libcublas", soMajor) is
//     lib/libcublas.so.12 for libcublas 12.4.5.8. The schemes compute the
//     version from the package's own version: soMajor for most libraries
//     (libcufft 11.2.1.3 → .so.11, libcurand 10.3 → .so.10, NPP 12.2 →
//     libnppc.so.12, nvJPEG, nvJitLink, nvFatbin, cuBLAS, cuSOLVER,
//     cuSPARSE), soMajorMinor (libnvrtc-builtins.so.12.4, nvprof's
//     libcuinj64.so.12.2), and, where the scheme changed at the package's
//     version 12, a row per range (Versions(untilV12), Versions(fromV12)):
//     libcudart.so.11.0 for all of CUDA 11, then .so.12, .so.13;
//     libnvrtc.so.11.2 for CUDA 11.2 to 11.8, then the major;
//     libcupti.so.11.<minor> in CUDA 11, then the major; soFixed for names that do not follow the version
//     (libcufile.so.0, libcufile_rdma.so.1, libnvvm.so.4, libOpenCL.so.1,
//     libnvToolsExt.so.1, libcudla.so.1) and soNone for unversioned
//     libraries (libnvperf_host.so).
//   - libraries that must not be in a package's default link are data:
//     libnvblas (it rebinds the CPU BLAS calls of whatever links it) and
//     NVRTC's alternative build libnvrtc.alt (12.8 to 13.0, x86_64), which
//     would clash with libnvrtc.
//   - deps: edges (sdk.Dep) with Since/Until saying for which CUDA versions
//     they hold; only those holding for the batch's version are returned.
//   - unusable: reasons, possibly bounded by platform or version.
//
// Where a name or a layout is not confirmed by a source for the versions it
// is claimed for, the table says "inferred". Files that could not be
// confirmed at all are left out rather than guessed (and the table says so):
// a file listed that the archive lacks breaks a build, while one left out
// is only not exposed.
//
// # Roles
//
// Headers and libraries (shared, static, stubs) are Target: they are
// compiled against and linked for the machine the binary is for, nvcc's own
// include folder (crt/ before 13.0) included. Binaries of the compiler and
// the binary utilities are Exec: nvcc, ptxas, fatbinary, nvlink, bin2c,
// cudafe++, nvvm/bin/cicc, cuobjdump, nvdisasm, nvprune, cu++filt,
// ctadvisor; so are the data they read: nvvm/libdevice, bin/nvcc.profile,
// bin/crt. cuda_nvcc before 13.0 and cuda_cuxxfilt are therefore "both".
// Debuggers, profilers, sanitizers and the demo suite (cuda-gdb,
// compute-sanitizer, nvprof, nvvp, nsys, deviceQuery) are Target: they run on
// the machine that runs the program, beside it.
//
// # Dependencies
//
//   - libcusolver → libcublas; → libnvjitlink from 12.0; → libcusparse from
//     12.1.
//   - libcusparse → libnvjitlink from 12.0.
//   - cuda_cudart → cuda_cccl (cuda_runtime.h includes nv/target); →
//     cuda_crt from 13.0 (crt/host_config.h). Before 13.0 the crt headers
//     are cuda_nvcc's, which the toolchain brings; no cudart → nvcc edge.
//   - cuda_cudart → cuda_compat, runtime, on linux-jetson, 11.8 to 12.x,
//     only when the configuration asks for forward compatibility.
//   - cuda_nvcc → cuda_crt and libnvvm from 13.0: nvcc force-includes
//     crt/host_config.h and drives cicc with libdevice, which moved out of
//     cuda_nvcc. (libnvptxcompiler is not needed by nvcc: ptxas is a
//     binary.)
//   - libcublas → cuda_nvrtc, runtime, 12.0 to 12.1: cuBLAS of those
//     releases dlopens libnvrtc at initialisation (fixed in 12.2;
//     conda-forge's libcublas feedstock, issue 9).
//   - cuda_nvprof → cuda_cupti on linux-x86_64 and linux-ppc64le: nvprof
//     links libcupti.
//   - None for libcublas otherwise, libcufft, libcurand, libnpp, libnvjpeg,
//     cuda_nvrtc, libnvjitlink, cuda_cupti, cuda_sanitizer_api, libcufile.
//
// An edge limited to platforms keeps only the configured targets (and is
// left out when none is); an edge to a package the batch's set does not have
// is left out. The tables' bounds keep every edge within the releases that
// have its package (the tests check all 33 manifests), so the second happens
// only with a manifest newer than the tables, which may rename packages.
//
// The static math libraries also need libculibos.a (cuda_cudart before
// 13.0, cuda_culibos from 13.0); that is not an edge, since an edge cannot
// be limited to static linking.
//
// # CUDA 13
//
// 13.0 split cuda_nvcc: cuda_crt (include/crt), libnvvm (nvvm/: bin/cicc,
// libdevice, lib64/libnvvm.so.4, include), libnvptxcompiler
// (lib/libnvptxcompiler_static.a and its header) and, from cuda_cudart,
// cuda_culibos (lib/libculibos.a). CCCL moved under include/cccl, which is
// then cuda_cccl's include folder. cuda_nvcc 13.0 keeps the binaries (its
// role becomes Exec); link.stub (bin/crt, for nvcc -dlink) is in every
// NVIDIA nvcc wheel of CUDA 13 but 13.0.0's, so it is claimed for 12.x and
// from 13.0.1 (ranges are checked against the wheels of every point
// release, docs/wheels.md). (NVTX's libnvToolsExt.so.1 gave way to
// libnvtx3interop.so.1 already in 12.9.)
//
// 13.1 to 13.3 added cuda_tileiras (bin/tileiras, the Tile IR assembler),
// libcuobjclient (cuObject, GPUDirect Storage for objects: libcuobjclient.so.1,
// linked against libcufile) and cuda_compat_orin, and 13.3 renamed cuda_cccl
// to cccl (the same include/cccl); both rows stay, and cuda_cudart's edge
// goes to whichever the release has.
//
// # Windows
//
// Every Windows archive (windows-x86_64, and windows-arm64 from CUDA 13.4)
// is unusable with the reason "Windows archives are not supported by
// cudapkgs' Bazel emission yet", and no Windows file is claimed. The Windows layout could not be described accurately: DLL names
// embed versions the manifest does not carry (cupti64_2025.3.1.dll,
// nvrtc64_120_0.dll), DLLs moved between lib/, bin/ and bin/x64 across
// releases, and the emission has no Windows support to consume them. Linux
// is covered precisely instead.
//
// # Where packages cannot be used
//
//   - nvidia_driver, driver_assistant: "use the system driver: <pkg> is part
//     of the NVIDIA driver, which must match the kernel module installed on
//     the machine that runs the binary".
//   - fabricmanager, imex, libnvidia_nscq, libnvsdm: driver-versioned system
//     services and libraries (NVSwitch/NVLink management).
//   - nvidia_fs: the GPUDirect Storage kernel module.
//   - mft, mft_autocomplete, mft_oem, nvlsm, collectx_bringup: data-center
//     fabric tools (NVLink switch firmware, subnet manager, telemetry).
//   - cuda_documentation, libnvvm_samples, cuda_nsight, nsight_vse,
//     visual_studio_integration: "not a build input". They have files, but
//     nothing a build consumes; marking them unusable makes a reference to
//     them fail with that reason instead of yielding an empty target.
//     (nsight_nvtx, NVTX 2 for Windows, is unusable through the Windows rule.)
//   - nsight_compute: not modelled, its archive layout changes between
//     releases. Nsight Systems (bin/nsys), cuda-gdb, compute-sanitizer,
//     nvprof, nvvp and the demo suite stay usable as runnable tools.
//   - cuda_compat through 13.0: usable only on linux-jetson
//     ("forward-compatibility libraries for Jetson; on other platforms the
//     driver provides them"), also on the platforms where it has no archive.
//     From 13.1 it is the data-center driver's forward compatibility
//     (versioned as the driver, 610.43.02 in 13.3, with linux-x86_64 and
//     linux-sbsa archives): usable there, not on linux-jetson, whose
//     forward compatibility is cuda_compat_orin (Orin), usable only there
//     and only when the configuration builds linux-jetson for Orin (8.7):
//     from CUDA 13.2 linux-jetson is Orin and Thor (11.0), both from the
//     linux-sbsa archives, and Orin's libcuda is not Thor's (NVIDIA's
//     manifests carry no forward-compatibility package for Thor). With
//     forward compatibility asked for, cuda_cudart has a runtime edge to
//     the one of its platform; on linux-jetson only when the build is for
//     Orin alone, since a binary built for Orin and Thor may run on a Thor.
//   - libcudla: usable only on linux-jetson; from 13.0 its archive is
//     linux-sbsa's (Jetson Thor is sbsa), which server ARM has no DLA for.
//   - A package the tables do not know (a newer manifest) is unusable on
//     every platform it has an archive for, with a reason naming it, rather
//     than passing as a package without files; the tests walk every manifest
//     so that no known package ever gets there.
//
// Answers are given for the configured targets only. The host keeps its own
// reasons (a platform without an archive); the plugin only adds.
//
// # Checked against NVIDIA's wheels
//
// wheels_test.go compares the tables with the file lists of NVIDIA's wheels
// of the same component versions (plugins/internal/wheelfiles; the rules
// and the allow-list are in docs/wheels.md): every shared library, header
// folder and tool named must be in the wheel, and every shared library of a
// wheel must be named. It found libnvToolsExt in 12.9 (gone),
// libpcsamplingutil and libcheckpoint (CUPTI) and libnvrtc.alt.
//
// # Differences from nixpkgs' scans
//
// features_test.go compares the files with nixpkgs' scans of the archives
// (features/feature_<cuda>.json, 11.4.4 to 12.3.0): lib ⇔ a shared library,
// static ⇔ a static library, bin ⇒ a binary, dev ⇒ headers. The known
// differences, each with its reason, are:
//
//   - cuda_nvcc (through 12.x): libNVVM is a shared library in nvvm/lib64,
//     which the scan (lib/ only) does not see.
//   - cuda_nvml_dev: lib/stubs/libnvidia-ml.so is listed as a stub, not a
//     shared library; the scan counts it.
//   - cuda_compat: its libraries are in compat/, not lib/.
//   - Platforms marked unusable are not compared: Windows, the driver and
//     system packages, documentation and IDE packages, Nsight Compute.
package redist
