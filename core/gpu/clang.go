package gpu

import (
	"fmt"

	"github.com/cudapkgs/cudapkgs/core/version"
)

// ClangCUDA is one row of the clang table: the newest CUDA release a clang
// major knows (below or at clang's "partially supported" mark, so it
// compiles without the unknown-CUDA-version warning). Newer clang releases
// know every CUDA version an older one knows.
type ClangCUDA struct {
	Clang int
	// Newest is the newest CUDA major.minor that clang major knows.
	Newest version.Version
}

// clangTable is written from LLVM's documentation: the CUDA Support
// sections of the clang release notes ("Clang now supports CUDA SDK up to
// …") and the CudaVersion list of clang/include/clang/Basic/Cuda.h at each
// release. The rows for clang 19 and 21 were checked against Debian's
// builds (a cuda.h with CUDA_VERSION 12050, 12060, 12080, 12090): clang 19
// knows 12.5, clang 21 knows 12.8.
var clangTable = []ClangCUDA{
	{16, version.MustParse("11.8")},
	{17, version.MustParse("12.1")},
	{18, version.MustParse("12.3")},
	{19, version.MustParse("12.5")},
	{20, version.MustParse("12.8")},
	{21, version.MustParse("12.8")},
}

// ClangFor is the oldest clang major that compiles CUDA version cuda. A
// CUDA version newer than every row is an error that names the newest
// clang in the table and what it knows; clang majors newer than the table
// are taken to know what its newest row does.
func ClangFor(cuda version.Version) (int, error) {
	mm := cuda.MajorMinor()
	for _, row := range clangTable {
		if !row.Newest.Less(mm) {
			return row.Clang, nil
		}
	}
	last := clangTable[len(clangTable)-1]
	return 0, fmt.Errorf("no clang release known to cudapkgs compiles CUDA %s: clang %d, the newest in its table, knows CUDA up to %s", cuda, last.Clang, last.Newest)
}
