package cutensor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// New returns the cuTENSOR plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// Declaration is cuTENSOR as the SDK builds its plugin from it, with
// flatLibDirs on top for the per-CUDA library folders of its flat archives.
func Declaration() sdk.Product {
	return sdk.Product{
		Name: "cutensor", Title: "cuTENSOR", Path: "compute/cutensor/redist", FlatCUDA: flatCUDA(),
		Platforms: []string{"linux-x86_64", "linux-sbsa", "linux-jetson", "linux-ppc64le"},
		Majors:    []int{1, 2},
		Packages: []sdk.PackageSpec{{
			Manifest: "libcutensor",
			// libcutensorMp is built against NCCL (undefined ncclSend,
			// ncclGroupEnd...: NVIDIA's 2.8.1 wheel, linked by the
			// real-binary tier), which no product here packages: linked by
			// default it would break every cuTENSOR program's link. It stays
			// in the package, as data, for programs that bring their own NCCL.
			Files: []sdk.FileSpec{
				sdk.Header("include"),
				sdk.Shared("lib/libcutensor.so", sdk.ReleaseMajor),
				sdk.Shared("lib/libcutensorMg.so", sdk.ReleaseMajor).From(mgSince),
				sdk.DataFile("lib/libcutensorMp.so." + sdk.ReleaseMajor).From(mpSince),
				sdk.Static("lib/libcutensor_static.a"),
				sdk.Static("lib/libcutensorMg_static.a").From(mgSince),
			},
			Deps: []sdk.DepSpec{{Package: "libcublas"}, {Package: "cuda_cudart"}},
			// nixpkgs' libcutensor asserts 7.5 from 2.3.0, after NVIDIA's
			// release notes.
			Floors: []sdk.Floor{{Range: sdk.Range{From: "2.3"}, Min: "7.5",
				Says: "{title} {release} supports capabilities {min} and newer (from cuTENSOR 2.3)"}},
		}},
		Amend: flatLibDirs,
	}
}

const (
	mgSince = "1.4" // cuTENSORMg, the multi-GPU library
	mpSince = "2.4" // cuTENSORMp, the multi-process library (beta)
)

// flatCUDA: before 2.3, cuTENSOR shipped one archive per platform with a
// lib/<cuda> folder per supported CUDA (cuTENSOR release notes; nixpkgs'
// cutensor expression picks lib/<major> the same way): 1.3 to 1.6 hold
// lib/10.2 and lib/11, 1.7 adds lib/12, 2.0 to 2.2 hold lib/11 and lib/12.
// From 2.3 archives are split by cuda_variant instead.
func flatCUDA() []sdk.FlatCUDA {
	return []sdk.FlatCUDA{
		{From: "1", Below: "1.7", CUDA: []string{"10.2", "11"}},
		{From: "1.7", Below: "2", CUDA: []string{"10.2", "11", "12"}},
		{From: "2", Below: "2.3", CUDA: []string{"11", "12"}},
	}
}

// flatLibDirs moves the libraries of a flat archive to its lib/<cuda>
// folder for the batch's CUDA, or makes the platform unusable where the
// archive has none.
func flatLibDirs(c sdk.Call, p sdk.Package, r *sdk.PackageResult) error {
	for _, a := range p.Archives {
		dir, reason := libDir(c.Release, c.CUDA, a.Variant)
		switch {
		case reason != "":
			r.Platforms[a.Platform] = sdk.PlatformResult{Unusable: []string{reason}}
		case dir != "lib":
			pr := r.Platforms[a.Platform]
			for i, f := range pr.Files {
				if rest, ok := strings.CutPrefix(f.Path, "lib/"); ok {
					pr.Files[i].Path = dir + "/" + rest
				}
			}
			r.Platforms[a.Platform] = pr
		}
	}
	return nil
}

// libDir is the folder of the archive that holds the libraries for a CUDA
// version: lib/<cuda> in a flat (pre-2.3, variant-less) archive, lib in a
// per-variant one. A flat archive without a folder for this CUDA major is
// a reason, not a folder.
func libDir(rel, cuda sdk.Version, variant string) (string, string) {
	if variant != "" {
		return "lib", ""
	}
	subs := flatSubdirs(rel)
	if subs == nil {
		return "", fmt.Sprintf("cuTENSOR %s ships one archive per CUDA major (cuda_variant), but this archive has no variant", rel)
	}
	want := strconv.Itoa(cuda.Major())
	if cuda.Major() == 10 {
		want = cuda.Truncate(2).String() // lib/10.2: the CUDA 10 folders are per minor
	}
	for _, s := range subs {
		if s == want {
			return "lib/" + s, ""
		}
	}
	return "", fmt.Sprintf("cuTENSOR %s's archive has lib/%s and no lib/%s for CUDA %s",
		rel, strings.Join(subs, ", lib/"), want, cuda)
}

// flatSubdirs are the lib/<cuda> folders of a flat cuTENSOR archive, nil for
// releases that ship one archive per CUDA major (2.3 on).
func flatSubdirs(rel sdk.Version) []string {
	switch {
	case rel.Major() == 1 && rel.Minor() < 7:
		return []string{"10.2", "11"}
	case rel.Major() == 1:
		return []string{"10.2", "11", "12"}
	case rel.Major() == 2 && rel.Minor() <= 2:
		return []string{"11", "12"}
	}
	return nil
}
