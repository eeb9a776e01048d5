package tensorrt

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// New returns the TensorRT plugin.
func New() sdk.Fixer { return Declaration().Fixer() }

// downloads is where TensorRT tarballs are published; TensorRT has no
// NVIDIA manifest, and hand-written ones (as nixpkgs keeps) give paths
// relative to compute/machine-learning under it.
const downloads = "https://developer.nvidia.com/downloads"

const jetson = "linux-jetson"

// Declaration is TensorRT as the SDK builds its plugin from it, with
// builds on top: what each archive's build (its CUDA, JetPack or SBSA)
// changes, which the tables of tables.go say.
func Declaration() sdk.Product {
	files := []sdk.FileSpec{sdk.Header("include")}
	for _, n := range libraries {
		files = append(files, sdk.Shared("lib/lib"+n+".so", sdk.ReleaseMajor))
	}
	for _, n := range staticLibraries {
		files = append(files, sdk.Static("lib/lib"+n+".a").Below(staticUntil))
	}
	files = append(files, sdk.Tool("bin/trtexec"))
	return sdk.Product{
		Name: "tensorrt", Title: "TensorRT", Unlisted: true, Base: downloads, Path: "compute/machine-learning",
		// Tarballs unpack to TensorRT-<version>/, not to their file name.
		StripPrefix: "TensorRT-{version}",
		Platforms:   []string{"linux-x86_64", "linux-sbsa", jetson},
		Majors:      []int{10, 11},
		Packages: []sdk.PackageSpec{{
			Manifest: "tensorrt", Files: files, Floors: capFloors,
			// cuda_cudart is linked, cuda_nvrtc loaded at run time; the
			// cuDNN and libcudla edges depend on the build (builds).
			Deps: []sdk.DepSpec{{Package: "cuda_cudart"}, {Package: "cuda_nvrtc", Runtime: true}},
		}},
		Amend: builds,
	}
}

// builds adds what each archive's build says: the builder's resource
// libraries, the JetPack and CUDA reasons before the capability floor's,
// the cuDNN the build loads (an edge, or a reason where the set has none),
// and libcudla on Jetson.
func builds(c sdk.Call, p sdk.Package, r *sdk.PackageResult) error {
	rel := c.Release
	pv, err := sdk.ParseVersion(p.Version)
	if err != nil {
		return fmt.Errorf("version: %w", err)
	}
	// The cuDNN each platform's build loads, and whether the set has it.
	needCudnn := map[string]string{}
	for _, a := range p.Archives {
		if cd := cudnnFor(rel, builtWith(a.RelativePath), a.Platform); cd != "" {
			needCudnn[a.Platform] = cd
		}
	}
	r.Deps = append(r.Deps, deps(p, c.Set, needCudnn, c.Batch.Config.Targets)...)
	for _, a := range p.Archives {
		pr := r.Platforms[a.Platform]
		built := builtWith(a.RelativePath)
		// The builder's resources are opened by libnvinfer by file name at
		// run time, never linked: their SONAME is do_not_link_against_nvinfer_
		// builder_resource (NVIDIA/TensorRT#2218), so a link would record a
		// dependency no loader finds. They are data of the package, after
		// its shared libraries.
		at := slices.IndexFunc(pr.Files, func(f sdk.File) bool { return f.Kind != sdk.Headers && f.Kind != sdk.SharedLib })
		var res []sdk.File
		for _, name := range builderResources(rel, pv, built) {
			res = append(res, sdk.File{Path: "lib/" + name, Kind: sdk.Data, Role: sdk.Target})
		}
		pr.Files = slices.Insert(pr.Files, at, res...)
		// One sentence per cause, no pointer at another release: which
		// one serves instead is known only once every plugin has judged
		// (the generated message names it then).
		var before, after []string
		if a.Platform == jetson && noJetson(rel) {
			before = append(before, fmt.Sprintf(
				"TensorRT %s does not support Jetson (TensorRT %s up to %s leaves JetPack out; %s serves it through the SBSA build)",
				p.Version, noJetsonFrom, noJetsonUntil, noJetsonUntil))
		}
		if why := cudaReason(p.Version, c.CUDA, built, a.Key); why != "" {
			before = append(before, why)
		}
		if want, ok := needCudnn[a.Platform]; ok && !c.Set.HasRelease("cudnn", sdk.MustVersion(want)) {
			after = append(after, fmt.Sprintf(
				"TensorRT %s loads cuDNN %s (libcudnn.so.%s) for its cuDNN-backed layers and plugins, but this set has %s and no cuDNN %s",
				p.Version, want, strings.SplitN(want, ".", 2)[0], describe(c.Set, "cudnn", "cuDNN"), want))
		}
		pr.Unusable = slices.Concat(before, pr.Unusable, after)
		if len(pr.Unusable) > 0 {
			// The host takes judged capabilities only from a usable package.
			pr.Judged = nil
		}
		r.Platforms[a.Platform] = pr
	}
	return nil
}

// noJetson reports the releases that do not support JetPack.
func noJetson(rel sdk.Version) bool { return !rel.Less(noJetsonFrom) && rel.Less(noJetsonUntil) }

var cudaInName = regexp.MustCompile(`cuda-(\d+\.\d+)`)

// builtWith reads the CUDA major.minor an archive was built with from its
// file name ("...x86_64-gnu.cuda-12.6.tar.gz", "...-cuda-13.4-Release-external.tar.zst");
// zero when the name does not say.
func builtWith(relativePath string) sdk.Version {
	m := cudaInName.FindStringSubmatch(relativePath)
	if m == nil {
		return sdk.Version{}
	}
	v, err := sdk.ParseVersion(m[1])
	if err != nil {
		return sdk.Version{}
	}
	return v
}

// cudnnFor is the cuDNN a build of rel loads on a platform ("" for none).
func cudnnFor(rel, built sdk.Version, platform string) string {
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

// builderResources are the file names of the builder's resource libraries:
// libnvinfer_builder_resource.so.<x.y.z> before 10.16, then one per GPU
// architecture (tables.go).
func builderResources(rel, pv, built sdk.Version) []string {
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

// deps: the cuDNN the
// builds load (at run time, optional in NVIDIA's words) on the platforms
// that load one, and libcudla on Jetson, each only when the set has it.
func deps(p sdk.Package, set sdk.Set, needCudnn map[string]string, targets []string) []sdk.Dep {
	var out []sdk.Dep
	// One edge per cuDNN release, limited to the platforms that load it.
	byRelease := map[string][]string{}
	for plat, c := range needCudnn {
		byRelease[c] = append(byRelease[c], plat)
	}
	for _, c := range slices.Sorted(maps.Keys(byRelease)) {
		if !set.HasRelease("cudnn", sdk.MustVersion(c)) {
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
	if hasJetson && slices.Contains(targets, jetson) && set.Has("libcudla") {
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
func cudaReason(trt string, cuda, built sdk.Version, key string) string {
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
func minCUDA(built sdk.Version, key string) sdk.Version {
	switch key {
	case "linux-sbsa", "linux-aarch64":
		return built.Truncate(2)
	}
	return sdk.MustVersion(fmt.Sprintf("%d.0", built.Major()))
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

// describe says what the set has of a manifest package, for messages: the
// release under its default name ("cuDNN 9.12.0 (cudnn)"), or "no cuDNN".
func describe(s sdk.Set, manifest, product string) string {
	for _, p := range s.Packages(manifest) {
		if p.Name == manifest {
			return fmt.Sprintf("%s %s (%s)", product, p.Release, p.Name)
		}
	}
	if ps := s.Packages(manifest); len(ps) > 0 {
		return fmt.Sprintf("%s %s (%s)", product, ps[0].Release, ps[0].Name)
	}
	return "no " + product
}
