package redist

import (
	"strings"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// patch is a fix of NVIDIA's files for the CUDA versions from since
// through until (inclusive prefixes, as sdk.When's).
type patch struct {
	sdk.Patch
	since, until string
}

// glibcC23Throw is the one marker the glibc patch adds. glibc 2.41 declares
// the C23 functions sinpi, sinpif, cospi and cospif in <math.h>, and 2.42
// rsqrt and rsqrtf, all with __THROW, which is noexcept(true) in C++; CUDA
// 12's crt/math_functions.h declares the same functions first without an
// exception specification, so every nvcc compile that includes it fails:
// "exception specification is incompatible with that of previous function
// cospi". CUDA 13.0 fixed it the same way (__NV_IEC_60559_FUNCS_EXCEPTION_
// SPECIFIER). The marker is empty with an older glibc, so the header is
// unchanged where it worked.
const glibcC23Throw = "__CUDAPKGS_GLIBC_C23_THROW"

const glibcC23Define = `#include "builtin_types.h"

/* cudapkgs: glibc >= 2.41 declares these C23 functions noexcept (patch glibc-2.41-math-functions). */
#if defined(__has_include)
#if __has_include(<features.h>)
#include <features.h>
#endif
#endif
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 41))
#define ` + glibcC23Throw + ` noexcept(true)
#else
#define ` + glibcC23Throw + `
#endif
`

// glibcMathFunctions is the patch for CUDA 12's crt/math_functions.h (in
// cuda_nvcc until 13.0 split it into cuda_crt). The declarations it edits
// are the same text, once each, in every release from 11.7 to 12.9 (checked
// against NVIDIA's nvidia-cuda-nvcc-cu11 and -cu12 wheels of 11.7, 11.8 and
// 12.0 to 12.9); older releases have no wheel to check against and are left
// alone.
func glibcMathFunctions() patch {
	const h = "include/crt/math_functions.h"
	decl := func(ret, name, arg string) sdk.Edit {
		// NVIDIA aligns the names in a column: the return type is padded.
		pad := strings.Repeat(" ", 23-len(ret))
		old := "extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ " + ret + pad + name + "(" + arg + ");"
		return sdk.Edit{Path: h, Old: old, New: old[:len(old)-1] + " " + glibcC23Throw + ";"}
	}
	return patch{
		Patch: sdk.Patch{
			Name: "glibc-2.41-math-functions",
			Why:  "glibc 2.41+ declares sinpi, cospi (2.42: rsqrt) noexcept; CUDA 12's declarations conflict",
			Edits: []sdk.Edit{
				{Path: h, Old: "#include \"builtin_types.h\"\n", New: glibcC23Define},
				decl("double", "rsqrt", "double x"),
				decl("float", "rsqrtf", "float x"),
				decl("double", "sinpi", "double x"),
				decl("float", "sinpif", "float x"),
				decl("double", "cospi", "double x"),
				decl("float", "cospif", "float x"),
			},
		},
		since: "11.7", until: "12",
	}
}

// aarch64VectorTypes is the patch for the same header when it is compiled
// for aarch64 against a recent glibc (sid's 2.43): glibc's aarch64
// <bits/math-vector.h> declares its vector math functions with GCC's
// built-in types __Float32x4_t, __Float64x2_t and the SVE types, which the
// EDG front ends of CUDA 12 (cudafe++, cicc) do not know ("identifier
// "__Float32x4_t" is undefined"); CUDA 13's know them. The patch names them
// as plain GCC vector types of the same size around the header's one
// #include <math.h>, the only way math-vector.h is reached in an nvcc
// compile, and removes the names again after it, so the program's own code
// (arm_neon.h) sees GCC's types. Nothing changes off aarch64.
func aarch64VectorTypes() patch {
	const h = "include/crt/math_functions.h"
	types := [][2]string{{"__Float32x4_t", "float"}, {"__Float64x2_t", "double"}, {"__SVFloat32_t", "float"}, {"__SVFloat64_t", "double"}, {"__SVBool_t", "unsigned char"}}
	var def, undef strings.Builder
	def.WriteString("/* cudapkgs: GCC's aarch64 vector types for glibc's math-vector.h (patch aarch64-vector-types). */\n")
	def.WriteString("#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__)\n#define __CUDAPKGS_AARCH64_VECTOR_TYPES\n")
	undef.WriteString("#if defined(__CUDAPKGS_AARCH64_VECTOR_TYPES)\n#undef __CUDAPKGS_AARCH64_VECTOR_TYPES\n")
	for _, t := range types {
		def.WriteString("#define " + t[0] + " __attribute__((__vector_size__(16))) " + t[1] + "\n")
		undef.WriteString("#undef " + t[0] + "\n")
	}
	def.WriteString("#endif\n")
	undef.WriteString("#endif\n")
	return patch{
		Patch: sdk.Patch{
			Name:  "aarch64-vector-types",
			Why:   "glibc's aarch64 math-vector.h uses GCC vector types CUDA 12's cudafe++ and cicc do not know",
			Edits: []sdk.Edit{{Path: h, Old: "#include <math.h>\n", New: def.String() + "#include <math.h>\n" + undef.String()}},
		},
		since: "11.7", until: "12",
	}
}
