package tensorrt

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/internal/gpucap"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// New returns the TensorRT plugin.
func New() sdk.Fixer { return fixer{} }

type fixer struct{}

func (fixer) Describe() sdk.Description {
	return sdk.Description{Name: "tensorrt", Products: []string{"tensorrt"}, Facts: []sdk.ProductFacts{{
		Product: "tensorrt", Unlisted: true, Base: downloads, Path: "compute/machine-learning",
		// Tarballs unpack to TensorRT-<version>/, not to their file name.
		StripPrefix: "TensorRT-{version}",
	}}}
}

// downloads is where TensorRT tarballs are published; TensorRT has no
// NVIDIA manifest, and hand-written ones (as nixpkgs keeps) give paths
// relative to compute/machine-learning under it.
const downloads = "https://developer.nvidia.com/downloads"

// Fixup answers for every package of the batch.
func (fixer) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	cuda, err := version.Parse(b.CUDA)
	if err != nil {
		return nil, fmt.Errorf("batch CUDA version: %w", err)
	}
	set := indexSet(b.SetPackages)
	return sdk.EachPackage(ctx, b, "tensorrt", func(p sdk.Package) (sdk.PackageResult, error) {
		return fixPackage(b, cuda, set, p)
	})
}

// pkgTensorRT is the one package of the TensorRT manifests.
const pkgTensorRT = "tensorrt"

func known(manifest string) bool { return manifest == pkgTensorRT }

const jetson = "linux-jetson"

func fixPackage(b *sdk.Batch, cuda version.Version, set setIndex, p sdk.Package) (sdk.PackageResult, error) {
	r := sdk.PackageResult{Name: p.Name, Platforms: map[string]sdk.PlatformResult{}}
	rel, err := version.Parse(p.Release)
	if err != nil {
		return r, fmt.Errorf("release: %w", err)
	}
	pv, err := version.Parse(p.Version)
	if err != nil {
		return r, fmt.Errorf("version: %w", err)
	}
	switch {
	case !known(p.Manifest):
		// NVIDIA's next package: the conventional layout, with the
		// host's warning.
		return sdk.Generic(p), nil
	case rel.Major() != 10 && rel.Major() != 11:
		for _, a := range p.Archives {
			r.Platforms[a.Platform] = sdk.PlatformResult{Unusable: []string{fmt.Sprintf(
				"the tensorrt plugin describes TensorRT 10 and 11, not TensorRT %s", p.Release)}}
		}
		return r, nil
	}

	// The cuDNN each platform's build loads, and whether the set has it.
	needCudnn := map[string]string{}
	for _, a := range p.Archives {
		if c := cudnnFor(rel, builtWith(a.RelativePath), a.Platform); c != "" {
			needCudnn[a.Platform] = c
		}
	}
	r.Deps = deps(p, set, needCudnn, b.Config.Targets)

	for _, a := range p.Archives {
		pr := sdk.PlatformResult{Files: files(rel, pv, builtWith(a.RelativePath))}
		if a.Platform == jetson && noJetson(rel) {
			pr.Unusable = append(pr.Unusable, fmt.Sprintf(
				"TensorRT %s does not support Jetson (TensorRT %s up to %s leaves JetPack out; %s serves it through the SBSA build)",
				p.Version, noJetsonFrom, noJetsonUntil, noJetsonUntil))
		}
		// One sentence per cause, no pointer at another release: which
		// one serves instead is known only once every plugin has judged
		// (the generated message names it then).
		if r := cudaReason(p.Version, cuda, builtWith(a.RelativePath), a.Key); r != "" {
			pr.Unusable = append(pr.Unusable, r)
		}
		capReasons, judged := b.Config.JudgeCapabilities(a.Platform, func(caps []string) []string {
			if r := capabilityReason(rel, p.Version, caps); r != "" {
				return []string{r}
			}
			return nil
		})
		pr.Unusable = append(pr.Unusable, capReasons...)
		if want, ok := needCudnn[a.Platform]; ok && !set.hasRelease("cudnn", version.MustParse(want)) {
			pr.Unusable = append(pr.Unusable, fmt.Sprintf(
				"TensorRT %s loads cuDNN %s (libcudnn.so.%s) for its cuDNN-backed layers and plugins, but this set has %s and no cuDNN %s",
				p.Version, want, strings.SplitN(want, ".", 2)[0], set.describe("cudnn", "cuDNN"), want))
		}
		if len(pr.Unusable) == 0 {
			// The host takes judged capabilities only from a usable package.
			pr.Judged = judged
		}
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

// noJetson reports the releases that do not support JetPack.
func noJetson(rel version.Version) bool { return !rel.Less(noJetsonFrom) && rel.Less(noJetsonUntil) }

var cudaInName = regexp.MustCompile(`cuda-(\d+\.\d+)`)

// builtWith reads the CUDA major.minor an archive was built with from its
// file name ("...x86_64-gnu.cuda-12.6.tar.gz", "...-cuda-13.4-Release-external.tar.zst");
// zero when the name does not say.
func builtWith(relativePath string) version.Version {
	m := cudaInName.FindStringSubmatch(relativePath)
	if m == nil {
		return version.Version{}
	}
	v, err := version.Parse(m[1])
	if err != nil {
		return version.Version{}
	}
	return v
}

// cudnnFor is the cuDNN a build of rel loads on a platform ("" for none).
func cudnnFor(rel, built version.Version, platform string) string {
	if built.IsZero() {
		return ""
	}
	for _, row := range cudnnRows {
		if rel.Less(row.from) || !rel.Less(row.until) {
			continue
		}
		if slices.Contains(row.cudaMajors, built.Major()) && !slices.Contains(row.except, platform) {
			return row.cudnn
		}
	}
	return ""
}

// files lists TensorRT's files: include, lib/lib<name>.so.<major> for every
// library, the builder's resource libraries (see builderResources), the
// static libraries of 10.x, and bin/trtexec. built is the CUDA the archive
// is made with (zero when its name does not say).
func files(rel, pv, built version.Version) []sdk.File {
	m := rel.Major()
	out := []sdk.File{{Path: "include", Kind: sdk.Headers, Role: sdk.Target}}
	for _, n := range libraries {
		so := fmt.Sprintf("lib%s.so.%d", n, m)
		out = append(out, sdk.File{Path: "lib/" + so, Kind: sdk.SharedLib, Role: sdk.Target, SONAME: so})
	}
	// The builder's resources are opened by libnvinfer by file name at run
	// time, never linked: their SONAME is do_not_link_against_nvinfer_
	// builder_resource (NVIDIA/TensorRT#2218), so a link would record a
	// dependency no loader finds. They are data of the package.
	for _, res := range builderResources(rel, pv, built) {
		out = append(out, sdk.File{Path: "lib/" + res, Kind: sdk.Data, Role: sdk.Target})
	}
	if m < staticUntil {
		for _, n := range staticLibraries {
			out = append(out, sdk.File{Path: "lib/lib" + n + ".a", Kind: sdk.StaticLib, Role: sdk.Target})
		}
	}
	return append(out, sdk.File{Path: "bin/trtexec", Kind: sdk.Binary, Role: sdk.Exec})
}

// builderResources are the file names of the builder's resource libraries:
// libnvinfer_builder_resource.so.<x.y.z> before 10.16, then one per GPU
// architecture (tables.go).
func builderResources(rel, pv, built version.Version) []string {
	suffix := ".so." + pv.Truncate(3).String()
	if rel.Less(builderSplitSince) {
		return []string{"libnvinfer_builder_resource" + suffix}
	}
	archs := builderArchs
	if !rel.Less(builderThorSince) && built.Major() >= 13 {
		archs = append(archs[:len(archs):len(archs)], "sm110")
	}
	var out []string
	for _, a := range archs {
		out = append(out, "libnvinfer_builder_resource_"+a+suffix)
	}
	return out
}

// deps: cuda_cudart (linked), cuda_nvrtc (loaded at run time), the cuDNN the
// builds load (at run time, optional in NVIDIA's words) on the platforms
// that load one, and libcudla on Jetson, each only when the set has it.
func deps(p sdk.Package, set setIndex, needCudnn map[string]string, targets []string) []sdk.Dep {
	var out []sdk.Dep
	if set.has("cuda_cudart") {
		out = append(out, sdk.Dep{Package: "cuda_cudart"})
	}
	if set.has("cuda_nvrtc") {
		out = append(out, sdk.Dep{Package: "cuda_nvrtc", Runtime: true})
	}
	// One edge per cuDNN release, limited to the platforms that load it.
	byRelease := map[string][]string{}
	for plat, c := range needCudnn {
		byRelease[c] = append(byRelease[c], plat)
	}
	for _, c := range slices.Sorted(maps.Keys(byRelease)) {
		if !set.hasRelease("cudnn", version.MustParse(c)) {
			continue // a reason on those platforms instead
		}
		d := sdk.Dep{Package: "cudnn", Release: c, Runtime: true}
		if plats := byRelease[c]; len(plats) < len(p.Archives) {
			slices.Sort(plats)
			d.Platforms = plats
		}
		out = append(out, d)
	}
	hasJetson := slices.ContainsFunc(p.Archives, func(a sdk.Archive) bool { return a.Platform == jetson })
	if hasJetson && slices.Contains(targets, jetson) && set.has("libcudla") {
		out = append(out, sdk.Dep{Package: "libcudla", Platforms: []string{jetson}})
	}
	return out
}

// cudaReason checks the batch's CUDA against the archive's build ("" when
// it serves it). NVIDIA's
// support matrices list, for the x86_64 and Windows builds of CUDA M.m, every
// CUDA from M.0 ("a single build, built with CUDA toolkit 12.x... compatible
// with all CUDA 12.x versions"), and for the SBSA and JetPack builds only the
// CUDA they were made with. Later minors of the same major run through CUDA's
// minor-version compatibility (on Jetson with the CUDA upgrade packages,
// cuda_compat), so the range is [minimum, M.x]; another major never serves.
func cudaReason(trt string, cuda, built version.Version, key string) string {
	if built.IsZero() {
		return ""
	}
	if cuda.Major() != built.Major() {
		return fmt.Sprintf("TensorRT %s's %s archive is built with CUDA %s and serves CUDA %d.x only, not CUDA %s",
			trt, key, built, built.Major(), cuda)
	}
	if lo := minCUDA(built, key); cuda.Truncate(2).Less(lo) {
		return fmt.Sprintf("TensorRT %s's %s build is made with CUDA %s and serves CUDA %s to %d.x only (NVIDIA's support matrix), not CUDA %s",
			trt, buildName(key), built, built, built.Major(), cuda)
	}
	return ""
}

// minCUDA is the oldest CUDA an archive serves, after NVIDIA's matrices.
func minCUDA(built version.Version, key string) version.Version {
	switch key {
	case "linux-sbsa", "linux-aarch64":
		return built.Truncate(2)
	}
	return version.MustParse(fmt.Sprintf("%d.0", built.Major()))
}

func buildName(key string) string {
	switch key {
	case "linux-sbsa":
		return "SBSA"
	case "linux-aarch64":
		return "JetPack"
	}
	return key
}

// capabilityReason names, in one sentence, the configured capabilities
// older than this release's floor ("" for none).
func capabilityReason(rel version.Version, trt string, caps []string) string {
	f := floorOf(rel)
	if f == nil {
		return ""
	}
	below := gpucap.Below(caps, f.min)
	if below == "" {
		return ""
	}
	if f.note == "" {
		return fmt.Sprintf("TensorRT %s supports capabilities %s and newer; %s", trt, f.min, below)
	}
	return fmt.Sprintf("TensorRT %s supports capabilities %s and newer (%s); %s", trt, f.min, f.note, below)
}

func floorOf(rel version.Version) *capFloor {
	for i := range capFloors {
		if !rel.Less(capFloors[i].since) {
			return &capFloors[i]
		}
	}
	return nil
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

func (s setIndex) hasRelease(manifest string, prefix version.Version) bool {
	for _, p := range s[manifest] {
		if r, err := version.Parse(p.Release); err == nil && r.HasPrefix(prefix) {
			return true
		}
	}
	return false
}

// describe says what the set has of a manifest package, for messages: the
// release under its default name ("cuDNN 9.12.0 (cudnn)"), or "no cuDNN".
func (s setIndex) describe(manifest, product string) string {
	for _, p := range s[manifest] {
		if p.Name == manifest {
			return fmt.Sprintf("%s %s (%s)", product, p.Release, p.Name)
		}
	}
	if ps := s[manifest]; len(ps) > 0 {
		return fmt.Sprintf("%s %s (%s)", product, ps[0].Release, ps[0].Name)
	}
	return "no " + product
}
