package cudnn

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/internal/gpucap"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// New returns the cuDNN plugin.
func New() sdk.Fixer { return fixer{} }

type fixer struct{}

func (fixer) Describe() sdk.Description {
	return sdk.Description{Name: "cudnn", Products: []string{"cudnn"},
		Facts: []sdk.ProductFacts{{Product: "cudnn", Base: sdk.NVIDIABase, Path: "compute/cudnn/redist"}}}
}

// Fixup answers for every package of the batch. Packages this plugin does not
// know (a release that adds one) keep their archives but are unusable, with
// a reason, rather than failing the whole run.
func (fixer) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	set := indexSet(b.SetPackages)
	return sdk.EachPackage(ctx, b, "cudnn", func(p sdk.Package) (sdk.PackageResult, error) {
		return fixPackage(b, set, p)
	})
}

// Package names of the cuDNN manifests.
const (
	pkgCudnn   = "cudnn"
	pkgJIT     = "cudnn_jit"
	pkgSamples = "cudnn_samples"
)

// known reports whether the plugin describes a manifest package.
func known(manifest string) bool {
	switch manifest {
	case pkgCudnn, pkgJIT, pkgSamples:
		return true
	}
	return false
}

func fixPackage(b *sdk.Batch, set setIndex, p sdk.Package) (sdk.PackageResult, error) {
	r := sdk.PackageResult{Name: p.Name, Platforms: map[string]sdk.PlatformResult{}}
	rel, err := version.Parse(p.Release)
	if err != nil {
		return r, fmt.Errorf("release: %w", err)
	}
	if !known(p.Manifest) {
		// NVIDIA's next package: served from the conventional layout.
		return sdk.Generic(p), nil
	}
	if _, ok := sublibs[rel.Major()]; !ok {
		for _, a := range p.Archives {
			r.Platforms[a.Platform] = sdk.PlatformResult{Unusable: []string{fmt.Sprintf(
				"the cudnn plugin describes cuDNN 8 and 9, not cuDNN %s", p.Release)}}
		}
		return r, nil
	}
	r.Deps = deps(p.Manifest, rel, set)
	if p.Manifest == pkgCudnn {
		// Static cuDNN compresses its kernels with zlib (NVIDIA's install
		// guide: link with -lz).
		r.StaticLinkopts = []string{"-lz"}
	}
	for _, a := range p.Archives {
		pr := sdk.PlatformResult{}
		switch p.Manifest {
		case pkgCudnn:
			pr.Files = libraryFiles(rel)
			pr.Unusable, pr.Judged = b.Config.JudgeCapabilities(a.Platform, func(caps []string) []string { return capabilityReasons(rel, caps) })
		case pkgJIT:
			pr.Files = jitFiles(rel)
			pr.Unusable, pr.Judged = b.Config.JudgeCapabilities(a.Platform, func(caps []string) []string { return jitReasons(rel, caps) })
		case pkgSamples:
			pr.Files = []sdk.File{{Path: fmt.Sprintf("src/cudnn_samples_v%d", rel.Major()), Kind: sdk.Data, Role: sdk.Target}}
		}
		if windows(a.Platform) {
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

func windows(platform string) bool { return strings.HasPrefix(platform, "windows-") }

// libraryFiles lists the cudnn package's files: the headers, the libcudnn
// shim and every sub-library by SONAME, and the static libraries.
func libraryFiles(rel version.Version) []sdk.File {
	return shimAndSubs(rel, subNames(rel), true)
}

// jitFiles lists cudnn_jit's files: GRAPH_JIT_ONLY works with the shared
// libraries only. NVIDIA publishes it for Linux x86_64 and SBSA.
func jitFiles(rel version.Version) []sdk.File {
	return shimAndSubs(rel, jitSublibs, false)
}

func subNames(rel version.Version) []string {
	var names []string
	for _, s := range sublibs[rel.Major()] {
		if s.since.IsZero() || !rel.Less(s.since) {
			names = append(names, s.name)
		}
	}
	return names
}

func shimAndSubs(rel version.Version, subs []string, static bool) []sdk.File {
	so := func(name string) sdk.File {
		f := fmt.Sprintf("lib%s.so.%d", name, rel.Major())
		return sdk.File{Path: "lib/" + f, Kind: sdk.SharedLib, Role: sdk.Target, SONAME: f}
	}
	files := []sdk.File{{Path: "include", Kind: sdk.Headers, Role: sdk.Target}, so("cudnn")}
	for _, s := range subs {
		files = append(files, so("cudnn_"+s))
	}
	if static {
		for _, s := range subs {
			files = append(files, sdk.File{Path: fmt.Sprintf("lib/libcudnn_%s_static.a", s), Kind: sdk.StaticLib, Role: sdk.Target})
		}
	}
	return files
}

// deps: cuDNN opens cuBLASLt (shipped in libcublas) and NVRTC by name at run
// time; its static libraries need cuBLASLt at link time, so libcublas is a
// link edge and NVRTC a runtime one (doc.go has the details). cudnn_jit has
// no legacy APIs and no precompiled engines, which are what use cuBLASLt.
// The samples build against the cuDNN of their own release.
func deps(manifest string, rel version.Version, set setIndex) []sdk.Dep {
	var out []sdk.Dep
	add := func(d sdk.Dep) {
		if set.has(d.Package) {
			out = append(out, d)
		}
	}
	switch manifest {
	case pkgCudnn:
		add(sdk.Dep{Package: "libcublas"})
		if !rel.Less(nvrtcSince) {
			add(sdk.Dep{Package: "cuda_nvrtc", Runtime: true})
			// Static cuDNN links NVRTC (and through it the PTX compiler)
			// rather than loading it; cuBLASLt's static set comes with the
			// libcublas edge.
			add(sdk.Dep{Package: "cuda_nvrtc", Static: true})
		}
	case pkgJIT:
		add(sdk.Dep{Package: "cuda_nvrtc", Runtime: true})
	case pkgSamples:
		if set.hasRelease(pkgCudnn, rel.Truncate(2)) {
			out = append(out, sdk.Dep{Package: pkgCudnn, Release: rel.Truncate(2).String()})
		}
		add(sdk.Dep{Package: "cuda_cudart"})
	}
	return out
}

// capabilityReasons names, in one sentence, the configured capabilities
// this cuDNN release no longer serves, and the last release that did. Which
// package of the set serves them instead is for the generated message to
// say, once every plugin has judged (core/archives, Use.Instead).
func capabilityReasons(rel version.Version, caps []string) []string {
	f := floorOf(rel)
	if f == nil {
		return nil
	}
	below := gpucap.Below(caps, f.min)
	if below == "" {
		return nil
	}
	return []string{fmt.Sprintf("cuDNN %s supports capabilities %s and newer (cuDNN %s dropped %s; %s was the last for them); %s",
		rel, f.min, f.since, f.dropped, f.last, below)}
}

func jitReasons(rel version.Version, caps []string) []string {
	below := gpucap.Below(caps, jitMin)
	if below == "" {
		return nil
	}
	return []string{fmt.Sprintf("cudnn_jit %s supports capabilities %s (NVIDIA Ampere) and newer, as its graph JIT engines do; %s", rel, jitMin, below)}
}

// floorOf is the capability floor of a cuDNN release, nil when none applies.
func floorOf(rel version.Version) *floor {
	for i := range floors {
		if !rel.Less(floors[i].since) {
			return &floors[i]
		}
	}
	return nil
}

// setIndex answers questions about the whole package set.
type setIndex struct {
	byManifest map[string][]sdk.SetPackage
}

func indexSet(all []sdk.SetPackage) setIndex {
	s := setIndex{byManifest: map[string][]sdk.SetPackage{}}
	for _, p := range all {
		s.byManifest[p.Manifest] = append(s.byManifest[p.Manifest], p)
	}
	return s
}

func (s setIndex) has(manifest string) bool { return len(s.byManifest[manifest]) > 0 }

func (s setIndex) hasRelease(manifest string, prefix version.Version) bool {
	for _, p := range s.byManifest[manifest] {
		if v, err := version.Parse(p.Release); err == nil && v.HasPrefix(prefix) {
			return true
		}
	}
	return false
}
