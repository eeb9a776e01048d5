// Package nvpl is the fixup plugin for the NVIDIA Performance Libraries
// (NVPL), the math libraries for Grace CPUs: BLAS, LAPACK, ScaLAPACK, FFT,
// RAND, SPARSE, TENSOR and the common headers. It needs no CUDA at all
// (NoCUDA): core/pkgset puts its newest release in every CUDA version's
// set, for linux-sbsa only. It is a declaration (Declaration) the SDK
// builds the plugin from, with one Amend hook; New returns it.
//
// # Releases
//
// NVIDIA publishes NVPL under compute/nvpl/redist. Its release label is a
// date with two parts (26.5); each package has its own component version
// (nvpl_blas 0.6.0, nvpl_fft 0.6.0.1, ...) and one linux-sbsa archive, no
// variants. The SONAMEs follow the component versions (.so.0 for 0.x), not
// the label, so the declaration describes every release, and the Amend hook
// makes a package whose component major is not 0 unusable with a reason
// naming it, rather than guessing its SONAMEs.
//
// # Files
//
// From NVIDIA's wheels nvpl-blas 0.6.0, nvpl-fft 0.6.0.1, nvpl-lapack
// 0.4.0.1, nvpl-rand 0.5.4, nvpl-scalapack 0.2.4, nvpl-sparse 0.6.0 and
// nvpl-tensor 0.3.3 (aarch64; the versions are the 26.5 manifest's), listed
// in plugins/internal/wheelfiles; every SONAME read with readelf -d. Each
// archive has include/ and lib/ (NVIDIA's NVPL install guide: the redist
// tarballs are extracted under one prefix).
//
//   - nvpl_blas, nvpl_lapack: libnvpl_<x>_core.so.0 and one interface
//     variant, libnvpl_<x>_lp64_gomp.so.0, linked; lp64_seq, ilp64_gomp and
//     ilp64_seq are data in the package. The variants export the same
//     symbols with other integer sizes or threading, so linking all would
//     be wrong; lp64_gomp is the one nvpl_tensor NEEDs. Each LAPACK variant
//     NEEDs the matching BLAS variant: an edge to nvpl_blas.
//   - nvpl_scalapack: libnvpl_scalapack_{lp64,ilp64}.so.0 and the BLACS
//     libnvpl_blacs_{lp64,ilp64}_{mpich,openmpi3,openmpi4,openmpi5}.so.0,
//     all data: ScaLAPACK leaves the BLACS symbols undefined and every
//     BLACS needs an MPI (MPI_* undefined) that no package provides, so
//     linked by default they would break every link, as cuDSS's
//     communication layers would. Edges to nvpl_lapack and nvpl_blas,
//     whose symbols it also leaves undefined.
//   - nvpl_fft: libnvpl_fftw.so.0 (the FFTW-compatible API).
//   - nvpl_rand: libnvpl_rand.so.0 linked; libnvpl_rand_mt.so.0, the
//     multithreaded build of the same API, data.
//   - nvpl_sparse: libnvpl_sparse.so.0.
//   - nvpl_tensor: libnvpl_tensor.so.0, NEEDs libnvpl_blas_lp64_gomp.so.0:
//     an edge to nvpl_blas.
//   - nvpl_common has no wheel: its archive (9 KB) is taken to hold
//     headers and CMake files only; include/ is declared (an empty glob is
//     allowed), nothing else. Not checked against a listing.
//
// Static libraries: the wheels have none and nothing seen names one, so
// none is declared.
//
// # Unusable
//
// Every platform but linux-sbsa: the declaration's platforms say so, and
// NVIDIA publishes no other archive. NVPL needs no GPU, so no capability is
// judged.
package nvpl
