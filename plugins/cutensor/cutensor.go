package cutensor

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/internal/gpucap"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// New returns the cuTENSOR plugin.
func New() sdk.Fixer { return fixer{} }

type fixer struct{}

func (fixer) Describe() sdk.Description {
	return sdk.Description{Name: "cutensor", Products: []string{"cutensor"}, Facts: []sdk.ProductFacts{{
		Product: "cutensor", Base: sdk.NVIDIABase, Path: "compute/cutensor/redist", FlatCUDA: flatCUDA(),
	}}}
}

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

// Fixup answers for every package of the batch.
func (fixer) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	cuda, err := version.Parse(b.CUDA)
	if err != nil {
		return nil, fmt.Errorf("batch CUDA version: %w", err)
	}
	set := indexSet(b.SetPackages)
	return sdk.EachPackage(ctx, b, "cutensor", func(p sdk.Package) (sdk.PackageResult, error) {
		return fixPackage(b, cuda, set, p)
	})
}

// pkgLib is the one package of every cuTENSOR manifest.
const pkgLib = "libcutensor"

func known(manifest string) bool { return manifest == pkgLib }

func fixPackage(b *sdk.Batch, cuda version.Version, set setIndex, p sdk.Package) (sdk.PackageResult, error) {
	r := sdk.PackageResult{Name: p.Name, Platforms: map[string]sdk.PlatformResult{}}
	rel, err := version.Parse(p.Release)
	if err != nil {
		return r, fmt.Errorf("release: %w", err)
	}
	if !known(p.Manifest) {
		// NVIDIA's next package: served from the conventional layout.
		return sdk.Generic(p), nil
	}
	if rel.Major() != 1 && rel.Major() != 2 {
		for _, a := range p.Archives {
			r.Platforms[a.Platform] = sdk.PlatformResult{Unusable: []string{fmt.Sprintf(
				"the cutensor plugin describes cuTENSOR 1 and 2, not cuTENSOR %s", p.Release)}}
		}
		return r, nil
	}
	for _, d := range []string{"libcublas", "cuda_cudart"} {
		if set.has(d) {
			r.Deps = append(r.Deps, sdk.Dep{Package: d})
		}
	}
	for _, a := range p.Archives {
		dir, reason := libDir(rel, cuda, a.Variant)
		if reason != "" {
			r.Platforms[a.Platform] = sdk.PlatformResult{Unusable: []string{reason}}
			continue
		}
		pr := sdk.PlatformResult{Files: files(rel, dir)}
		pr.Unusable, pr.Judged = b.Config.JudgeCapabilities(a.Platform, func(caps []string) []string { return capabilityReasons(rel, caps) })
		if strings.HasPrefix(a.Platform, "windows-") {
			// As the redist plugin: no Windows file is claimed (doc.go
			// keeps what is known of the layout for when there is).
			pr = sdk.PlatformResult{Unusable: append([]string{reasonWindows}, pr.Unusable...)}
		}
		r.Platforms[a.Platform] = pr
	}
	return r, nil
}

// reasonWindows is the redist plugin's reason, word for word, so that every
// product says the same about Windows.
const reasonWindows = "Windows archives are not supported by cudapkgs' Bazel emission yet"

// libDir is the folder of the archive that holds the libraries for a CUDA
// version: lib/<cuda> in a flat (pre-2.3, variant-less) archive, lib in a
// per-variant one. A flat archive without a folder for this CUDA major is
// a reason, not a folder.
func libDir(rel, cuda version.Version, variant string) (string, string) {
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
func flatSubdirs(rel version.Version) []string {
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

var (
	mgSince = version.MustParse("1.4") // cuTENSORMg, the multi-GPU library
	mpSince = version.MustParse("2.4") // cuTENSORMp, the multi-process library (beta)
)

// files lists the package's files: headers, libcutensor and libcutensorMg
// (from 1.4) by SONAME and as static libraries, libcutensorMp (from 2.4,
// shared only) as data, with the libraries in dir. libcutensorMp is built
// against NCCL (undefined ncclSend, ncclGroupEnd...: NVIDIA's 2.8.1 wheel,
// linked by the real-binary tier), which no product here packages: linked
// by default it would break every cuTENSOR program's link. It stays in the
// package for programs that bring their own NCCL.
func files(rel version.Version, dir string) []sdk.File {
	names := []string{"cutensor"}
	if !rel.Less(mgSince) {
		names = append(names, "cutensorMg")
	}
	out := []sdk.File{{Path: "include", Kind: sdk.Headers, Role: sdk.Target}}
	for _, n := range names {
		so := fmt.Sprintf("lib%s.so.%d", n, rel.Major())
		out = append(out, sdk.File{Path: dir + "/" + so, Kind: sdk.SharedLib, Role: sdk.Target, SONAME: so})
	}
	if !rel.Less(mpSince) {
		out = append(out, sdk.File{Path: fmt.Sprintf("%s/libcutensorMp.so.%d", dir, rel.Major()), Kind: sdk.Data, Role: sdk.Target})
	}
	for _, n := range names {
		out = append(out, sdk.File{Path: dir + "/lib" + n + "_static.a", Kind: sdk.StaticLib, Role: sdk.Target})
	}
	return out
}

// floorSince is the first cuTENSOR release that needs capability floorMin:
// nixpkgs' libcutensor asserts 7.5 from 2.3.0, after NVIDIA's release notes.
var (
	floorSince = version.MustParse("2.3")
	floorMin   = version.MustParse("7.5")
)

func capabilityReasons(rel version.Version, caps []string) []string {
	if rel.Less(floorSince) {
		return nil
	}
	below := gpucap.Below(caps, floorMin)
	if below == "" {
		return nil
	}
	return []string{fmt.Sprintf("cuTENSOR %s supports capabilities %s and newer (from cuTENSOR %s); %s", rel, floorMin, floorSince, below)}
}

type setIndex map[string][]sdk.SetPackage

func indexSet(all []sdk.SetPackage) setIndex {
	s := setIndex{}
	for _, p := range all {
		s[p.Manifest] = append(s[p.Manifest], p)
	}
	return s
}

func (s setIndex) has(manifest string) bool { return len(s[manifest]) > 0 }
