package redist

import (
	"strings"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// patch is a fix of NVIDIA's files for the CUDA versions within bounds.
type patch struct {
	sdk.Patch
	when
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
// are the same text, once each, in every 12.x release (checked against
// NVIDIA's nvidia-cuda-nvcc-cu12 wheels of 12.0 to 12.9).
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
		when: when{until: "12"},
	}
}
