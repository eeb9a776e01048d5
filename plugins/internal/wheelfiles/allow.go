package wheelfiles

// Allowed lists the known differences between the plugins and the wheels
// that are not mistakes of the plugins: what a wheel never carries although
// the archive of the same version does, and what a wheel carries that is no
// build input. docs/wheels.md explains each group.
// (Static libraries and stubs are never compared: no wheel has them.)
var Allowed = []Allow{
	// CUDA 12's nvcc wheel carries ptxas, the crt headers, libNVVM and
	// libdevice: what JIT users and Triton need, not the compiler driver.
	{Wheel: `nvidia-cuda-nvcc-cu12`, Path: "bin/*", Reason: "the CUDA 12 nvcc wheel has ptxas and no other tool"},
	{Wheel: `nvidia-cuda-nvcc-cu12`, Path: "nvvm/bin/cicc", Reason: "the CUDA 12 nvcc wheel has no cicc"},
	// The cu++filt wheels carry the demangler's header only: no tool, and
	// (as every wheel) no static library.
	{Wheel: `nvidia-cuda-cuxxfilt(-cu12)?`, Path: "bin/cu++filt", Reason: "the cuxxfilt wheels have nv_decode.h only"},
	// CUDA 12's Sanitizer API wheel carries the API, not compute-sanitizer.
	{Wheel: `nvidia-cuda-sanitizer-api-cu12`, Path: "bin/compute-sanitizer", Reason: "the CUDA 12 sanitizer wheel has the Sanitizer API libraries, not the tool"},

	// What wheels have that no package is meant to claim (every file of a
	// wheel is otherwise claimed by a package of its release).
	{Wheel: `.*`, Path: ".metadata/*", Reason: "NVIDIA's packaging records (guard-word scans, sizes, provenance), not part of the component"},
	{Wheel: `.*`, Path: "LICENSE*", Reason: "the licence text (cuTENSOR, cuSPARSELt), not a build input"},
	// CCCL's wheels keep CMake files and packaging records at lib/cmake
	// and .metadata, from 13.2.1 under cuda_cccl/ and from 13.3 under
	// cccl/ (the headers stay in include/cccl).
	{Wheel: `nvidia-cuda-cccl(-cu12)?`, Path: "lib/cmake/*/*", Reason: "CCCL's CMake package files, which Bazel and Buck2 builds do not read"},
	{Wheel: `nvidia-cuda-cccl`, Path: "*/lib/cmake/*/*", Reason: "CCCL's CMake package files, which Bazel and Buck2 builds do not read"},
	{Wheel: `nvidia-cuda-cccl`, Path: "*/.metadata/*", Reason: "CCCL's packaging records (commit, version, guard-word scans)"},
	{Wheel: `nvidia-cuda-cccl`, Path: "*/.metadata/*/*", Reason: "CCCL's packaging records (kitmaker)"},
	{Wheel: `nvidia-cuda-cccl`, Path: "*/LICENSE", Reason: "CCCL's licence text, not a build input"},
	{Wheel: `nvidia-libnvcomp-cu1[23]`, Path: "NOTICE", Reason: "nvCOMP's third-party notices, not a build input"},
	{Wheel: `nvidia-libnvcomp-cu1[23]`, Path: "load.py", Reason: "the wheel's Python loader, not part of the component"},
	{Wheel: `nvidia-libnvcomp-cu1[23]`, Path: "lib/cmake/*/*", Reason: "nvCOMP's CMake package files, which Bazel and Buck2 builds do not read"},
	{Wheel: `nvidia-nvjitlink(-cu12)?`, Path: "res/*.def", Reason: "nvJitLink's export list for Windows-style linkers, not a build input"},
}
