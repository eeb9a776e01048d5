package redist

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Reasons a package cannot be used. {pkg} and {version} are filled in.
const (
	reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"

	reasonDriver = "use the system driver: {pkg} is part of the NVIDIA driver, which must match the kernel module " +
		"installed on the machine that runs the binary"

	reasonDriverService = "use the system driver's packages: {pkg} {version} is an NVSwitch/NVLink management " +
		"service of the NVIDIA driver, not a build input"

	reasonKernelModule = "install it on the system: {pkg} is the GPUDirect Storage kernel module (nvidia-fs), " +
		"not a build input"

	reasonFabric = "install it on the system: {pkg} is a data-center fabric management tool (NVLink switch " +
		"firmware, subnet manager, telemetry), not a build input"

	reasonDocs = "not a build input: {pkg} holds the CUDA documentation, which no build rule consumes"

	reasonIDE = "not a build input: {pkg} is an IDE integration (Visual Studio, Eclipse), which no build rule consumes"

	reasonSamples = "not a build input: {pkg} holds libNVVM sample sources, which no build rule consumes"

	reasonNsightCompute = "not modelled: install Nsight Compute with NVIDIA's installer (its archives change " +
		"layout between releases, so cudapkgs claims none of their files)"

	reasonCompat = "{pkg} holds the CUDA forward-compatibility libraries for Jetson (L4T), usable only on " +
		"linux-jetson; on other platforms the driver provides them"

	// From CUDA 13.1 cuda_compat is the data-center driver's forward
	// compatibility (versioned as the driver, 610.43.02, with linux-x86_64
	// and linux-sbsa archives); Jetson Orin has its own cuda_compat_orin.
	reasonCompatDataCenter = "{pkg} {version} holds the data-center driver's CUDA forward-compatibility " +
		"libraries (linux-x86_64, linux-sbsa); Jetson Orin's is cuda_compat_orin"

	reasonCompatOrin = "{pkg} holds the CUDA forward-compatibility libraries for Jetson Orin (L4T) and is usable " +
		"only on linux-jetson"

	// Thor (11.0) shares linux-jetson, and its linux-sbsa archives, with
	// Orin from CUDA 13.2; Orin's libcuda is not Thor's.
	reasonCompatOrinNotOrin = "{pkg} holds the CUDA forward-compatibility libraries for Jetson Orin (capability 8.7), " +
		"and this configuration builds linux-jetson for other Jetson GPUs only (Thor is capability 11.0); add " +
		"capability 8.7 to build for Orin"

	reasonDLA = "{pkg} is the CUDA interface of the deep-learning accelerator (DLA) of Jetson and DRIVE SoCs, " +
		"usable only on linux-jetson (its CUDA 13 linux-sbsa archive is for those SoCs, not servers)"
)

// npp lists NPP's libraries (nppicom went away in CUDA 11.0, before the
// first redist manifest).
var npp = []string{"nppc", "nppial", "nppicc", "nppidei", "nppif", "nppig", "nppim", "nppist", "nppisu", "nppitc", "npps"}

// nvblas is lib/libnvblas.so.<cuBLAS major>, as data (see libcublas): a
// data path is not computed from the version, and cuBLAS's major is the
// CUDA release's.
func nvblas() []sdk.FileSpec {
	return []sdk.FileSpec{
		data("lib/libnvblas.so.11", sdk.Target).CUDAThrough("11"),
		data("lib/libnvblas.so.12", sdk.Target).CUDAFrom("12.0").CUDAThrough("12"),
		data("lib/libnvblas.so.13", sdk.Target).CUDAFrom("13.0").CUDAThrough("13"),
	}
}

// runtime is the math libraries' edge to cudart: their headers include
// cudart's (cublas_api.h: driver_types.h, cuComplex.h, library_types.h), so
// depending on @cuda//:libcublas alone must compile; and their static link
// sets need the static runtime's, which holds culibos (cuda_cudart's own
// through 12.x, cuda_culibos after) and the system libraries: NVIDIA's
// documented static link lines end in -lculibos -lcudart_static -lpthread
// -ldl.
func runtime() dep { return edge("cuda_cudart") }

// linuxStaticSystemLibs are the system libraries static cudart and culibos
// need on Linux.
func linuxStaticSystemLibs() []string { return []string{"-ldl", "-lpthread", "-lrt"} }

func nppFiles() []sdk.FileSpec {
	fs := []sdk.FileSpec{headers("include")}
	for _, l := range npp {
		fs = append(fs, solib("lib/lib"+l, soMajor), static("lib/lib"+l+"_static.a"), stub("lib/stubs/lib"+l+".so"))
	}
	return fs
}

// table is the plugin's knowledge: a row per manifest package name of every
// CUDA redistrib manifest from 11.4.2 to 13.3.0 (the tests walk them all).
//
// Paths are relative to the archive root, in the Linux layout (bin/, include/,
// lib/, lib/stubs/, nvvm/). Sources: NVIDIA's manifests and the CUDA toolkit
// layout; nixpkgs' scans of the archives (features); the file lists of
// conda-forge's cuda-* feedstocks, of Fedora (negativo17) and Gentoo
// packages of the same archives, and of Julia's Yggdrasil recipes. A comment
// says "inferred" where a name is not confirmed by one of those for the
// versions it is claimed for.
var table = map[string]pkg{
	// --- Compiler ---

	"cuda_nvcc": {
		about: "the CUDA compiler driver and its tools; before 13.0 also the crt headers, NVVM and the PTX compiler library",
		files: []sdk.FileSpec{
			tool("bin/nvcc"),
			data("bin/nvcc.profile", sdk.Exec),
			tool("bin/ptxas"),
			tool("bin/fatbinary"),
			tool("bin/nvlink"),
			tool("bin/bin2c"),
			tool("bin/cudafe++"),
			// nvcc runs it for -arch=native, to ask the build machine's
			// GPU. Every CUDA 13 nvcc wheel has it; CUDA 12's wheels carry
			// no tools, so it is not claimed there unconfirmed.
			tool("bin/__nvcc_device_query").CUDAFrom("13.0"),
			// link.stub and prelink.stub for nvcc -dlink. Every nvcc wheel
			// of CUDA 13 has them (bin/crt) but 13.0.0's (nvcc 13.0.48);
			// 13.0.1 (nvcc 13.0.88) has them again.
			data("bin/crt", sdk.Exec).CUDAThrough("12"),
			data("bin/crt", sdk.Exec).CUDAFrom("13.0.1"),
			// include/ holds crt/, fatbinary_section.h, nvPTXCompiler.h...:
			// what nvcc compiles against, so Target. From 13.0 crt is
			// cuda_crt's and the PTX compiler libnvptxcompiler's.
			headers("include").CUDAThrough("12"),
			// From 13.0 include/ keeps only fatbinary_section.h, which the
			// host half of every nvcc compile includes (the generated
			// fatbin.c): read on the build machine, beside nvcc.
			data("include/fatbinary_section.h", sdk.Exec).CUDAFrom("13.0"),
			static("lib/libnvptxcompiler_static.a").CUDAThrough("12"),
			// NVVM: cicc and libdevice run and are read on the build
			// machine; libNVVM itself (SONAME libnvvm.so.4 since CUDA 11.2)
			// and nvvm.h are for programs that link it. From 13.0: libnvvm.
			tool("nvvm/bin/cicc").CUDAThrough("12"),
			data("nvvm/libdevice", sdk.Exec).CUDAThrough("12"),
			headers("nvvm/include").CUDAThrough("12"),
			solib("nvvm/lib64/libnvvm", soFixed("4")).CUDAThrough("12"),
		},
		deps: []dep{
			// nvcc 13 force-includes crt/host_config.h and drives cicc with
			// libdevice, which moved out of cuda_nvcc.
			edge("cuda_crt").since("13.0"),
			// nvcc.profile's $(TOP)/nvvm: the repository holds both.
			edge("libnvvm").since("13.0").merge(),
		},
		patches: []patch{glibcMathFunctions(), aarch64VectorTypes()},
	},
	"cuda_crt": {
		about: "nvcc's crt headers (include/crt: host_config.h, math_functions.h...), split from cuda_nvcc in 13.0",
		// The include folder's root is include/, which holds crt/ (sources
		// #include "crt/host_config.h").
		files: []sdk.FileSpec{headers("include")},
	},
	"libnvvm": {
		about: "NVVM, split from cuda_nvcc in 13.0: cicc, libdevice, libNVVM",
		files: []sdk.FileSpec{
			tool("nvvm/bin/cicc"),
			data("nvvm/libdevice", sdk.Exec),
			headers("nvvm/include"),
			// inferred for 13.0: libNVVM's API version is still 4
			// (nvvm64_40_0.dll on Windows), so libnvvm.so.4.
			solib("nvvm/lib64/libnvvm", soFixed("4")),
		},
	},
	"libnvptxcompiler": {
		about: "the PTX compiler library (static), split from cuda_nvcc in 13.0",
		// inferred: the two files cuda_nvcc held before 13.0.
		files: []sdk.FileSpec{headers("include"), static("lib/libnvptxcompiler_static.a")},
	},
	"cuda_cuobjdump": {about: "cuobjdump", files: []sdk.FileSpec{tool("bin/cuobjdump")}},
	"cuda_nvdisasm":  {about: "nvdisasm", files: []sdk.FileSpec{tool("bin/nvdisasm")}},
	"cuda_nvprune":   {about: "nvprune", files: []sdk.FileSpec{tool("bin/nvprune")}},
	"cuda_cuxxfilt": {
		about: "cu++filt, the CUDA demangler, and its library",
		files: []sdk.FileSpec{tool("bin/cu++filt"), headers("include"), static("lib/libcufilt.a")},
	},
	"cuda_tileiras": {
		about: "tileiras, the CUDA Tile IR assembler (Tile IR bytecode to cubin), new in 13.1",
		// nvidia-cuda-tileiras 13.3.36 holds bin/tileiras alone; from
		// 13.4 (13.4.59) also tileirdisasm, its disassembler.
		files: []sdk.FileSpec{tool("bin/tileiras"), tool("bin/tileirdisasm").CUDAFrom("13.4")},
	},
	"cuda_ctadvisor": {
		about: "ctadvisor, the compile-time advisor that reads nvcc's traces (new in 13.0)",
		files: []sdk.FileSpec{tool("bin/ctadvisor")}, // inferred from the package name
	},

	// --- Runtime and headers ---

	"cuda_cudart": {
		about: "the CUDA runtime, its headers and the driver API stub",
		files: []sdk.FileSpec{
			headers("include"),
			// CUDA 11's runtime is libcudart.so.11.0 for every 11.x; from
			// 12 the major alone (libcudart.so.12, .13).
			solib("lib/libcudart", soFixed("11.0")).Versions(untilV12),
			solib("lib/libcudart", soMajor).Versions(fromV12),
			static("lib/libcudart_static.a"),
			static("lib/libcudadevrt.a"),
			static("lib/libculibos.a").CUDAThrough("12"), // cuda_culibos from 13.0
			stub("lib/stubs/libcuda.so"),
		},
		deps: []dep{
			// cuda_runtime.h includes nv/target (CCCL) and, from 13.0,
			// crt/host_config.h from cuda_crt (before 13.0 those crt headers
			// come with cuda_nvcc, which the toolchain brings).
			// CCCL is cccl from 13.3: the declared rename (redist.go)
			// takes the edge there.
			edge("cuda_cccl"),
			edge("cuda_crt").since("13.0"),
			// Static cudart needs culibos, its own through 12.x.
			edge("cuda_culibos").since("13.0").static(),
			// Its headers include crt/host_defines.h, which ships in
			// cuda_nvcc through 12.x (cuda_crt after): a host-compiled C
			// file that includes cuda_runtime_api.h needs them too, and
			// nothing of cuda_nvcc's libraries.
			edge("cuda_nvcc").until("12").headers(),
			// With forward compatibility, a Jetson program loads the
			// cuda_compat libcuda.so.1 ahead of the driver's.
			edge("cuda_compat").since("11.8").until("12").runtime().platforms(linuxJetson).ifForwardCompat(),
			// From 13.1 cuda_compat is the data-center driver's, and Orin's
			// is cuda_compat_orin.
			edge("cuda_compat").since("13.1").runtime().platforms(linuxX86, linuxSBSA).ifForwardCompat(),
			// Only for a build for Orin alone: a binary that may also run
			// on Thor must not load Orin's libcuda.
			edge("cuda_compat_orin").since("13.1").runtime().platforms(linuxJetson).ifForwardCompat().onlyForCapability("8.7"),
		},
		// NVIDIA's static runtime (and culibos in it through 12.x) needs
		// these on the link line (nvcc adds them for -cudart static).
		staticLinkopts: linuxStaticSystemLibs(),
	},
	"cuda_cccl": {
		about: "CUDA C++ Core Libraries (Thrust, CUB, libcu++): headers",
		files: []sdk.FileSpec{
			headers("include").CUDAThrough("12"),
			// From 13.0 CCCL lives under include/cccl (nvcc adds it to the
			// include path).
			headers("include/cccl").CUDAFrom("13.0"),
		},
	},
	"cccl": {
		about: "CUDA C++ Core Libraries (Thrust, CUB, libcu++): headers; cuda_cccl renamed in 13.3",
		// nvidia-cuda-cccl 13.3.3.3.1 (the wheel of the same version) has
		// include/cccl/{cub,cuda,nv,thrust} and lib/cmake.
		files: []sdk.FileSpec{headers("include/cccl")},
	},
	"cuda_culibos": {
		about:          "libculibos.a, the OS abstraction the static CUDA libraries link (in cuda_cudart before 13.0)",
		files:          []sdk.FileSpec{static("lib/libculibos.a")}, // inferred: the file cuda_cudart held before 13.0
		staticLinkopts: linuxStaticSystemLibs(),
	},
	"cuda_profiler_api": {
		about: "cuda_profiler_api.h and cudaProfiler.h (in cuda_nvprof before 11.8)",
		files: []sdk.FileSpec{headers("include")},
	},
	"cuda_nvml_dev": {
		about: "NVML's header and link stub; the library itself comes with the driver",
		files: []sdk.FileSpec{headers("include"), stub("lib/stubs/libnvidia-ml.so")},
	},
	"cuda_sandbox_dev": {
		about: "nvsandboxutils headers",
		files: []sdk.FileSpec{headers("include")}, // inferred from the manifest's "CUDA nvsandboxutils Headers"
	},
	"cuda_opencl": {
		about: "OpenCL headers and ICD loader",
		files: []sdk.FileSpec{headers("include"), solib("lib/libOpenCL", soFixed("1"))},
	},
	"cuda_nvtx": {
		about: "NVTX: the header-only NVTX 3 and, through 12.8, the NVTX 2 library",
		files: []sdk.FileSpec{
			headers("include"),
			// NVIDIA removed libnvToolsExt in 12.9 (pytorch/pytorch#152756)
			// for the NVTX 3 interop library: nvidia-nvtx-cu12 12.9.19 has
			// lib/libnvtx3interop.so.1 and no libnvToolsExt.
			solib("lib/libnvToolsExt", soFixed("1")).CUDAThrough("12.8"),
			solib("lib/libnvtx3interop", soFixed("1")).CUDAFrom("12.9"),
		},
	},
	"cuda_nvrtc": {
		about: "NVRTC, the runtime compiler, and its builtins",
		files: []sdk.FileSpec{
			headers("include"),
			// NVRTC 11.2 to 11.8 is libnvrtc.so.11.2 (minor-version
			// compatible from 11.2 on); from 12 the major alone.
			solib("lib/libnvrtc", soFixed("11.2")).Versions(untilV12),
			solib("lib/libnvrtc", soMajor).Versions(fromV12),
			// libnvrtc-builtins.so.<CUDA major.minor>: the package's
			// major.minor is the CUDA release's.
			solib("lib/libnvrtc-builtins", soMajorMinor),
			// An alternative build of NVRTC and its builtins (same API),
			// x86_64 only, in the wheels of 12.8.1, 12.9.0 and 13.0.0 and
			// not of 13.3.0. Linking it beside libnvrtc would give two
			// definitions of every NVRTC symbol, so it is data: a file to
			// ask for instead of libnvrtc.
			data("lib/libnvrtc.alt.so.12", sdk.Target).CUDAFrom("12.8").CUDAThrough("12").OnlyOn(linuxX86),
			data("lib/libnvrtc-builtins.alt.so.12.8", sdk.Target).CUDAFrom("12.8").CUDAThrough("12.8").OnlyOn(linuxX86),
			data("lib/libnvrtc-builtins.alt.so.12.9", sdk.Target).CUDAFrom("12.9").CUDAThrough("12.9").OnlyOn(linuxX86),
			data("lib/libnvrtc.alt.so.13", sdk.Target).CUDAFrom("13.0").CUDAThrough("13.0").OnlyOn(linuxX86),
			data("lib/libnvrtc-builtins.alt.so.13.0", sdk.Target).CUDAFrom("13.0").CUDAThrough("13.0").OnlyOn(linuxX86),
			static("lib/libnvrtc_static.a").CUDAFrom("11.5"),
			static("lib/libnvrtc-builtins_static.a").CUDAFrom("11.5"),
			stub("lib/stubs/libnvrtc.so").CUDAFrom("12.1"), // seen from 12.1; 12.0 not confirmed
		},
		deps: []dep{
			// Static NVRTC compiles PTX with the PTX compiler library:
			// libnvptxcompiler_static.a, in cuda_nvcc through 12.x and in
			// libnvptxcompiler from 13.0.
			edge("cuda_nvcc").since("11.5").until("12").static(),
			edge("libnvptxcompiler").since("13.0").static(),
		},
	},
	"libnvjitlink": {
		about: "nvJitLink, JIT link-time optimization (new in 12.0)",
		files: []sdk.FileSpec{
			headers("include"),
			solib("lib/libnvJitLink", soMajor),
			static("lib/libnvJitLink_static.a"),
			// Its lib/stubs was missing in 12.4 (conda-forge notes it), so no
			// stub is claimed.
		},
	},
	"libnvfatbin": {
		about: "nvFatbin, building fatbins at run time (new in 12.4)",
		files: []sdk.FileSpec{
			headers("include"),
			solib("lib/libnvfatbin", soMajor),
			static("lib/libnvfatbin_static.a"),
			stub("lib/stubs/libnvfatbin.so"),
		},
	},
	"cuda_cupti": {
		about: "CUPTI, the profiling tools interface, and the NVIDIA perf SDK libraries",
		files: []sdk.FileSpec{
			headers("include"),
			// CUPTI 11.x is libcupti.so.11.<minor> (libcupti.so.11.8);
			// from 12 the major alone (libcupti.so.12).
			solib("lib/libcupti", soMajorMinor).Versions(untilV12),
			solib("lib/libcupti", soMajor).Versions(fromV12),
			solib("lib/libnvperf_host", soNone),
			solib("lib/libnvperf_target", soNone),
			// The PC sampling utility and checkpoint APIs, in every CUPTI
			// wheel from 12.0 (11.x not confirmed).
			solib("lib/libpcsamplingutil", soNone).CUDAFrom("12.0"),
			solib("lib/libcheckpoint", soNone).CUDAFrom("12.0"),
			// Static CUPTI is shipped for x86_64, and for sbsa from 12.6.
			static("lib/libcupti_static.a").OnlyOn(linuxX86),
			static("lib/libcupti_static.a").OnlyOn(linuxSBSA).CUDAFrom("12.6"),
			static("lib/libnvperf_host_static.a").OnlyOn(linuxX86),
		},
	},
	"cuda_compat": {
		about: "CUDA forward compatibility for Jetson (L4T): a newer libcuda for an older driver",
		// Kept in compat/, to be put ahead of the driver's libraries only
		// when wanted (SONAMEs as the driver's: libcuda.so.1).
		files: []sdk.FileSpec{
			solib("compat/libcuda", soFixed("1")),
			solib("compat/libnvidia-ptxjitcompiler", soFixed("1")),
		},
		unusable: []sdk.Reason{
			// Through 13.0 the archives are Jetson's (linux-aarch64).
			{When: sdk.When{Until: "13.0", Off: []string{linuxJetson}}, Says: reasonCompat},
			// From 13.1 they are the data-center driver's: the sbsa archive
			// also reaches linux-jetson, where it does not belong.
			{When: sdk.When{Since: "13.1", On: []string{linuxJetson}}, Says: reasonCompatDataCenter},
		},
	},
	"cuda_compat_orin": {
		about: "CUDA forward compatibility for Jetson Orin (L4T), from 13.x; a newer libcuda for an older driver",
		// inferred: the layout of cuda_compat's Jetson archives (compat/,
		// the driver's SONAMEs).
		files: []sdk.FileSpec{
			solib("compat/libcuda", soFixed("1")),
			solib("compat/libnvidia-ptxjitcompiler", soFixed("1")),
		},
		unusable: []sdk.Reason{
			{When: sdk.When{Off: []string{linuxJetson}}, Says: reasonCompatOrin},
			{When: sdk.When{On: []string{linuxJetson}, Lacks: "8.7"}, Says: reasonCompatOrinNotOrin},
		},
	},

	// --- Math and media libraries ---

	"libcublas": {
		about: "cuBLAS, cuBLASLt and NVBLAS",
		files: append([]sdk.FileSpec{
			headers("include"),
			solib("lib/libcublas", soMajor),
			solib("lib/libcublasLt", soMajor),
			// NVBLAS intercepts the CPU BLAS calls (dgemm_...) of whatever
			// it is linked into or preloaded in, so it must not be in
			// cuBLAS's default link: it is data, an opt-in file for
			// LD_PRELOAD or an explicit link. (The SDK has no way to say
			// "a shared library outside the default link" yet.)
			static("lib/libcublas_static.a"),
			static("lib/libcublasLt_static.a"),
			stub("lib/stubs/libcublas.so"),
			stub("lib/stubs/libcublasLt.so"),
		}, nvblas()...),
		deps: []dep{
			// cuBLAS 12.0 and 12.1 dlopen libnvrtc at initialisation (a bug
			// fixed in 12.2; conda-forge's libcublas feedstock, issue 9).
			edge("cuda_nvrtc").since("12.0").until("12.1").runtime(),
			runtime(),
		},
	},
	"libcufft": {
		about: "cuFFT and cuFFTW",
		files: []sdk.FileSpec{
			headers("include"),
			solib("lib/libcufft", soMajor),
			solib("lib/libcufftw", soMajor),
			static("lib/libcufft_static.a"),
			static("lib/libcufftw_static.a"),
			// Not confirmed for 13.0 (cuFFT 12), so not claimed there.
			static("lib/libcufft_static_nocallback.a").CUDAThrough("12"),
			stub("lib/stubs/libcufft.so"),
			stub("lib/stubs/libcufftw.so"),
		},
		deps: []dep{runtime()},
	},
	"libcurand": {
		about: "cuRAND",
		files: []sdk.FileSpec{
			headers("include"),
			solib("lib/libcurand", soMajor),
			static("lib/libcurand_static.a"),
			stub("lib/stubs/libcurand.so"),
		},
		deps: []dep{runtime()},
	},
	"libcusolver": {
		about: "cuSOLVER and cuSOLVERMg",
		files: []sdk.FileSpec{
			headers("include"),
			solib("lib/libcusolver", soMajor),
			solib("lib/libcusolverMg", soMajor),
			static("lib/libcusolver_static.a"),
			// LAPACK for static cuSOLVER: liblapack_static.a through 11.x,
			// libcusolver_lapack_static.a from 11.8 (seen in 11.8; 11.7 not
			// confirmed), which replaced it in 12.0.
			static("lib/liblapack_static.a").CUDAThrough("11"),
			static("lib/libcusolver_lapack_static.a").CUDAFrom("11.8"),
			// METIS, seen through 12.6; not claimed for 13.0.
			static("lib/libmetis_static.a").CUDAThrough("12"),
			stub("lib/stubs/libcusolver.so"),
			stub("lib/stubs/libcusolverMg.so"),
		},
		deps: []dep{
			edge("libcublas"),
			edge("libnvjitlink").since("12.0"),
			edge("libcusparse").since("12.1"),
			runtime(),
		},
	},
	"libcusparse": {
		about: "cuSPARSE",
		files: []sdk.FileSpec{
			headers("include"),
			solib("lib/libcusparse", soMajor),
			static("lib/libcusparse_static.a"),
			stub("lib/stubs/libcusparse.so"),
		},
		deps: []dep{edge("libnvjitlink").since("12.0"), runtime()},
	},
	"libnpp": {about: "NPP, the NVIDIA Performance Primitives", files: nppFiles(), deps: []dep{runtime()}},
	"libnvjpeg": {
		about: "nvJPEG",
		files: []sdk.FileSpec{
			headers("include"),
			solib("lib/libnvjpeg", soMajor),
			static("lib/libnvjpeg_static.a"),
			stub("lib/stubs/libnvjpeg.so"),
		},
		deps: []dep{runtime()},
	},
	"libcufile": {
		about: "cuFile, GPUDirect Storage's library (needs the nvidia-fs kernel module to do direct I/O)",
		files: []sdk.FileSpec{
			headers("include"),
			// cuFile's SONAMEs do not follow its 1.x version.
			solib("lib/libcufile", soFixed("0")),
			solib("lib/libcufile_rdma", soFixed("1")),
			static("lib/libcufile_static.a"),
			static("lib/libcufile_rdma_static.a"),
		},
	},
	"libcudla": {
		about: "cuDLA, the Jetson deep-learning accelerator's CUDA interface",
		// The stub is confirmed for 13.x archives; inferred for 11.8 to 12.x.
		files: []sdk.FileSpec{headers("include"), solib("lib/libcudla", soFixed("1")), stub("lib/stubs/libcudla.so")},
		// From 13.0 its archive is linux-sbsa's (Jetson Thor is sbsa), which
		// the host also offers for server ARM, which has no DLA.
		unusable: []sdk.Reason{{When: sdk.When{Off: []string{linuxJetson}}, Says: reasonDLA}},
	},
	"libcuobjclient": {
		about: "cuObject client, GPUDirect Storage for objects (S3 over RDMA), new in 13.x",
		// libcuobjclient.so.1 (libcuobjclient.so.1.2.0 in CUDA 13.3; the
		// SONAME programs that dlopen it name) and its header; no wheel.
		files: []sdk.FileSpec{headers("include"), solib("lib/libcuobjclient", soFixed("1"))},
		// It calls cuFile's RDMA API (cuFileRDMADescStrGet, cuFile 1.18+).
		deps: []dep{edge("libcufile")},
	},

	// --- Debuggers, profilers, sanitizers, demos: run beside the program ---

	"cuda_gdb": {
		about: "cuda-gdb",
		files: []sdk.FileSpec{runTool("bin/cuda-gdb"), runTool("bin/cuda-gdbserver")},
	},
	"cuda_sanitizer_api": {
		about: "compute-sanitizer and the Sanitizer API",
		files: []sdk.FileSpec{runTool("bin/compute-sanitizer"), data("compute-sanitizer", sdk.Target)},
	},
	"cuda_memcheck": {about: "cuda-memcheck (through 11.8)", files: []sdk.FileSpec{runTool("bin/cuda-memcheck")}},
	"cuda_nvprof": {
		about: "nvprof and its injection libraries; on linux-sbsa only headers",
		files: []sdk.FileSpec{
			runTool("bin/nvprof").OnlyOn(linuxX86, linuxPPC),
			// libcuinj64.so.<major.minor> (libcuinj64.so.11.8, .12.2).
			solib("lib/libcuinj64", soMajorMinor).OnlyOn(linuxX86, linuxPPC),
			solib("lib/libaccinj64", soMajorMinor).OnlyOn(linuxX86, linuxPPC),
			// The profiler API headers were here until cuda_profiler_api
			// took them in 11.8; the sbsa archive (through 11.7) is headers
			// only.
			headers("include").OnlyOn(linuxX86, linuxPPC).CUDAThrough("11.7"),
			headers("include").OnlyOn(linuxSBSA),
		},
		deps: []dep{edge("cuda_cupti").platforms(linuxX86, linuxPPC)},
	},
	"cuda_nvvp": {
		about: "the NVIDIA Visual Profiler",
		files: []sdk.FileSpec{runTool("bin/nvvp"), data("libnvvp", sdk.Target)},
	},
	"nsight_systems": {about: "Nsight Systems", files: []sdk.FileSpec{runTool("bin/nsys")}},
	"nsight_compute": {
		about:    "Nsight Compute",
		unusable: []sdk.Reason{everywhere(reasonNsightCompute)},
	},
	"cuda_demo_suite": {
		about: "prebuilt CUDA demos (deviceQuery, bandwidthTest...)",
		// Where the toolkit installs them; inferred for the archives, which
		// nixpkgs' scan shows without bin/.
		files: []sdk.FileSpec{
			runTool("extras/demo_suite/deviceQuery"),
			runTool("extras/demo_suite/bandwidthTest"),
			runTool("extras/demo_suite/busGrind"),
			runTool("extras/demo_suite/vectorAdd"),
		},
	},

	// --- Not build inputs ---

	"cuda_documentation":        {about: "the CUDA documentation", unusable: []sdk.Reason{everywhere(reasonDocs)}},
	"libnvvm_samples":           {about: "libNVVM samples (12.0, 12.1)", unusable: []sdk.Reason{everywhere(reasonSamples)}},
	"cuda_nsight":               {about: "Nsight Eclipse Edition plugin", unusable: []sdk.Reason{everywhere(reasonIDE)}},
	"nsight_vse":                {about: "Nsight Visual Studio Edition (Windows)", unusable: []sdk.Reason{everywhere(reasonIDE)}},
	"visual_studio_integration": {about: "CUDA Visual Studio integration (Windows)", unusable: []sdk.Reason{everywhere(reasonIDE)}},
	// Windows only (nvToolsExt64_1.dll): unusable through the Windows rule.
	"nsight_nvtx": {about: "NVTX 2 for Windows (through 11.8)"},

	// --- Driver and system side ---

	"nvidia_driver":    {about: "the NVIDIA Linux driver", unusable: []sdk.Reason{everywhere(reasonDriver)}},
	"driver_assistant": {about: "the NVIDIA driver installation assistant", unusable: []sdk.Reason{everywhere(reasonDriver)}},
	"fabricmanager":    {about: "the NVSwitch fabric manager service", unusable: []sdk.Reason{everywhere(reasonDriverService)}},
	"imex":             {about: "the IMEX (multi-node memory export) service", unusable: []sdk.Reason{everywhere(reasonDriverService)}},
	"libnvidia_nscq":   {about: "NSCQ, the NVSwitch configuration and query library", unusable: []sdk.Reason{everywhere(reasonDriverService)}},
	"libnvsdm":         {about: "NVSDM, the NVSwitch device monitoring library", unusable: []sdk.Reason{everywhere(reasonDriverService)}},
	"nvidia_fs":        {about: "the GPUDirect Storage kernel module", unusable: []sdk.Reason{everywhere(reasonKernelModule)}},
	"mft":              {about: "NVLink 5 switch firmware tools", unusable: []sdk.Reason{everywhere(reasonFabric)}},
	"mft_autocomplete": {about: "shell completion for the NVLink 5 firmware tools", unusable: []sdk.Reason{everywhere(reasonFabric)}},
	"mft_oem":          {about: "OEM NVLink 5 firmware tools", unusable: []sdk.Reason{everywhere(reasonFabric)}},
	"nvlsm":            {about: "the NVLink subnet manager", unusable: []sdk.Reason{everywhere(reasonFabric)}},
	"collectx_bringup": {about: "UFM telemetry CollectX", unusable: []sdk.Reason{everywhere(reasonFabric)}},
}
