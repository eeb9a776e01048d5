package gpu

import (
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs/core/version"
)

func TestClangFor(t *testing.T) {
	for _, tc := range []struct {
		cuda string
		want int
	}{
		{"11.8.0", 16},
		{"12.0.1", 17},
		{"12.4.1", 19},
		{"12.5.0", 19},
		{"12.6.3", 20},
		{"12.8.1", 20},
	} {
		got, err := ClangFor(version.MustParse(tc.cuda))
		if err != nil || got != tc.want {
			t.Errorf("ClangFor(%s) = %d, %v; want %d", tc.cuda, got, err, tc.want)
		}
	}
	for _, cuda := range []string{"12.9.0", "13.3.0"} {
		_, err := ClangFor(version.MustParse(cuda))
		if err == nil || !strings.Contains(err.Error(), "no clang release known to cudapkgs compiles CUDA "+cuda+": clang 21, the newest in its table, knows CUDA up to 12.8") {
			t.Errorf("ClangFor(%s): error %v", cuda, err)
		}
	}
}

// A newer clang never knows less CUDA than an older one: ClangFor takes
// the first row that knows a version.
func TestClangTableOrdered(t *testing.T) {
	rows := clangTable
	for i := 1; i < len(rows); i++ {
		if rows[i].Clang <= rows[i-1].Clang || rows[i].Newest.Less(rows[i-1].Newest) {
			t.Errorf("row %d (clang %d, CUDA %s) after clang %d, CUDA %s", i, rows[i].Clang, rows[i].Newest, rows[i-1].Clang, rows[i-1].Newest)
		}
	}
}
