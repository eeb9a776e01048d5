package wheelfiles

// Allowed lists the known differences between the plugins and the wheels
// that are not mistakes of the plugins: what a wheel never carries although
// the archive of the same version does. docs/wheels.md explains each group.
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
}
