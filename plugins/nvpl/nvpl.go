package nvpl

import (
	"fmt"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// Product is the product's folder in a manifests tree, and its name.
const Product = "nvpl"

// New returns the NVPL plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// variants are the integer interface and threading variants of NVPL's BLAS
// and LAPACK: one is linked (lp64_gomp, the one nvpl_tensor NEEDs), the
// others are in the package as data, because they export the same symbols
// with other ABIs and cannot be linked together.
var variants = []string{"lp64_gomp", "lp64_seq", "ilp64_gomp", "ilp64_seq"}

// blasLike is a BLAS or LAPACK package: its core and its variants.
func blasLike(lib string) []sdk.FileSpec {
	files := []sdk.FileSpec{
		sdk.Header("include"),
		sdk.Shared("lib/lib"+lib+"_core.so", "0"),
		sdk.Shared("lib/lib"+lib+"_"+variants[0]+".so", "0"),
	}
	for _, v := range variants[1:] {
		files = append(files, sdk.DataFile("lib/lib"+lib+"_"+v+".so.0"))
	}
	return files
}

// scalapack: ScaLAPACK's libraries need a BLACS, and every BLACS needs an
// MPI no package provides: all are data, as cuDSS's communication layers.
func scalapack() []sdk.FileSpec {
	files := []sdk.FileSpec{sdk.Header("include")}
	for _, i := range []string{"lp64", "ilp64"} {
		files = append(files, sdk.DataFile("lib/libnvpl_scalapack_"+i+".so.0"))
	}
	for _, i := range []string{"lp64", "ilp64"} {
		for _, mpi := range []string{"mpich", "openmpi3", "openmpi4", "openmpi5"} {
			files = append(files, sdk.DataFile("lib/libnvpl_blacs_"+i+"_"+mpi+".so.0"))
		}
	}
	return files
}

// Declaration is NVPL as the SDK builds its plugin from it; doc.go gives
// the source of every fact.
func Declaration() sdk.Product {
	lib := func(p string) []sdk.FileSpec { return []sdk.FileSpec{sdk.Header("include"), sdk.Shared("lib/"+p, "0")} }
	return sdk.Product{
		Name: Product, Title: "NVPL", Path: "compute/nvpl/redist",
		// Grace CPU libraries: no CUDA, linux-sbsa only.
		NoCUDA:    true,
		Platforms: []string{"linux-sbsa"},
		// The release label is a date (26.5); the SONAMEs follow each
		// component's own version, which Amend checks.
		Packages: []sdk.PackageSpec{
			{Manifest: "nvpl_blas", Title: "NVPL BLAS", Files: blasLike("nvpl_blas")},
			{Manifest: "nvpl_lapack", Title: "NVPL LAPACK", Files: blasLike("nvpl_lapack"),
				Deps: []sdk.DepSpec{{Package: "nvpl_blas"}}},
			{Manifest: "nvpl_scalapack", Title: "NVPL ScaLAPACK", Files: scalapack(),
				Deps: []sdk.DepSpec{{Package: "nvpl_lapack"}, {Package: "nvpl_blas"}}},
			{Manifest: "nvpl_fft", Title: "NVPL FFT", Files: lib("libnvpl_fftw.so")},
			{Manifest: "nvpl_rand", Title: "NVPL RAND", Files: append(lib("libnvpl_rand.so"), sdk.DataFile("lib/libnvpl_rand_mt.so.0"))},
			{Manifest: "nvpl_sparse", Title: "NVPL SPARSE", Files: lib("libnvpl_sparse.so")},
			{Manifest: "nvpl_tensor", Title: "NVPL TENSOR", Files: lib("libnvpl_tensor.so"),
				Deps: []sdk.DepSpec{{Package: "nvpl_blas"}}},
			// Headers and CMake files only (its archive is 9 KB).
			{Manifest: "nvpl_common", Title: "NVPL Common", Files: []sdk.FileSpec{sdk.Header("include")}},
		},
		Amend: componentMajor,
	}
}

// componentMajor makes a package unusable where its component version's
// major is not 0: the declared SONAMEs (.so.0) are those of 0.x components.
func componentMajor(c sdk.Call, p sdk.Package, r *sdk.PackageResult) error {
	v, err := sdk.ParseVersion(p.Version)
	if err != nil {
		return fmt.Errorf("%s version: %w", p.Manifest, err)
	}
	if v.Major() == 0 {
		return nil
	}
	why := fmt.Sprintf("the nvpl plugin describes NVPL components 0.x, not %s %s: its files and dependencies are not described", p.Manifest, p.Version)
	for plat := range r.Platforms {
		r.Platforms[plat] = sdk.PlatformResult{Unusable: []string{why}}
	}
	return nil
}
