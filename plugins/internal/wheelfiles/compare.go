package wheelfiles

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// A wheel keeps the archive's layout below its root (nvidia/cublas/lib,
// nvidia/cu13/include) with the exceptions below, which rewrite a wheel's
// path into the archive's before the two are compared. docs/wheels.md has
// the reasons.
type move struct {
	wheel    *regexp.Regexp // the wheels it applies to
	from, to string         // path prefix in the wheel, and in the archive
}

var moves = []move{
	// CUDA 12's nvcc wheel has libNVVM as nvvm/lib64/libnvvm.so, the
	// archive by its SONAME file (libnvvm.so.4, and the link).
	{wheel: regexp.MustCompile(`^nvidia-cuda-nvcc-cu12$`), from: "nvvm/lib64/libnvvm.so", to: "nvvm/lib64/libnvvm.so.4"},
	// CUDA 13's NVVM wheel shares nvidia/cu13 with the others, so its
	// files are in bin/, include/ and lib/; the archive keeps them in
	// nvvm/ (libdevice is nvvm/libdevice in both).
	{wheel: regexp.MustCompile(`^nvidia-nvvm$`), from: "bin/", to: "nvvm/bin/"},
	{wheel: regexp.MustCompile(`^nvidia-nvvm$`), from: "include/", to: "nvvm/include/"},
	{wheel: regexp.MustCompile(`^nvidia-nvvm$`), from: "lib/", to: "nvvm/lib64/"},
	// The Sanitizer API's libraries are in lib/ (and, from 13.0, one in
	// bin/ too) in the wheels, in compute-sanitizer/ in the archive.
	{wheel: regexp.MustCompile(`^nvidia-cuda-sanitizer-api(-cu12)?$`), from: "lib/", to: "compute-sanitizer/"},
	{wheel: regexp.MustCompile(`^nvidia-cuda-sanitizer-api(-cu12)?$`), from: "bin/libsanitizer-collection.so", to: "compute-sanitizer/libsanitizer-collection.so"},
	// 13.4.92's aarch64 wheel adds compute-sanitizer's process launcher
	// helpers (TreeLauncherSubreaper, TreeLauncherTargetLdPreloadHelper)
	// beside it in bin/; the archive keeps the tool's files together.
	{wheel: regexp.MustCompile(`^nvidia-cuda-sanitizer-api$`), from: "bin/TreeLauncher", to: "compute-sanitizer/TreeLauncher"},
	// cuBLASMp's wheels keep the archive's include/ and lib/ one folder
	// down, under nvidia/cublasmp/cu12 or cu13.
	{wheel: regexp.MustCompile(`^nvidia-cublasmp-cu12$`), from: "cu12/", to: ""},
	{wheel: regexp.MustCompile(`^nvidia-cublasmp-cu13$`), from: "cu13/", to: ""},
	// nvCOMP's wheels have lib64/; NVIDIA's nvCOMP archives have lib/
	// (plugins/nvcomp's doc.go says how that was established).
	{wheel: regexp.MustCompile(`^nvidia-libnvcomp-cu1[23]$`), from: "lib64/", to: "lib/"},
	// cuFFTMp's wheels keep everything below cu<major>/, which the
	// archive's strip prefix (nvidia/cufftmp/cu<major>) takes off.
	{wheel: regexp.MustCompile(`^nvidia-cufftmp-cu12$`), from: "cu12/", to: ""},
	{wheel: regexp.MustCompile(`^nvidia-cufftmp-cu13$`), from: "cu13/", to: ""},
}

// archivePath is where the archive keeps a wheel's file.
func archivePath(wheel, p string) string {
	for _, m := range moves {
		if m.wheel.MatchString(wheel) && strings.HasPrefix(p, m.from) {
			return m.to + strings.TrimPrefix(p, m.from)
		}
	}
	return p
}

// Allow is a known difference between a plugin and a wheel that is not a
// mistake of the plugin: what the wheel never carries, or what the wheel has
// that no archive package is meant to name.
type Allow struct {
	Wheel   string // regexp on the wheel's PyPI name
	Release string // regexp on the manifest release; "" is every release
	Path    string // path.Match pattern on the plugin's path or the wheel's file (archive layout)
	Reason  string
}

func (a Allow) matches(l Listing, p string) bool {
	if ok, _ := regexp.MatchString(`^(?:`+a.Wheel+`)$`, l.Wheel); !ok {
		return false
	}
	if a.Release != "" {
		if ok, _ := regexp.MatchString(`^(?:`+a.Release+`)$`, l.Release); !ok {
			return false
		}
	}
	ok, err := path.Match(a.Path, p)
	return ok && err == nil
}

func allowed(allow []Allow, l Listing, p string) bool {
	for _, a := range allow {
		if a.matches(l, p) {
			return true
		}
	}
	return false
}

var sharedLib = regexp.MustCompile(`\.so(\.\d+)*$`)

// IsSharedLib reports whether a wheel's file is a shared library by its name.
func IsSharedLib(p string) bool { return sharedLib.MatchString(path.Base(p)) }

// Compare checks a plugin's answer against a wheel's listing and returns
// what disagrees, each a sentence naming the file:
//
//   - own (the files the plugin gives the wheel's packages on its platform)
//     names a shared library (by SONAME), a header folder or a tool the
//     wheel lacks;
//   - the wheel has a shared library that no file of all (every package of
//     the release on that platform) names, as a shared library or as data.
//
// Static libraries, stubs and data are not compared: wheels never carry the
// first two, and data (libdevice, bin/crt) is checked through the packages'
// tools and headers. allow lists the known differences.
func Compare(l Listing, own, all []sdk.File, allow []Allow) []string {
	files := map[string]bool{}
	bases := map[string]bool{}
	for _, f := range l.Files {
		p := archivePath(l.Wheel, f)
		files[p] = true
		bases[path.Base(p)] = true
	}
	hasUnder := func(dir string) bool {
		if files[dir] {
			return true // a single header
		}
		for p := range files {
			if strings.HasPrefix(p, dir+"/") {
				return true
			}
		}
		return false
	}
	var out []string
	for _, f := range own {
		var missing bool
		switch f.Kind {
		case sdk.SharedLib:
			missing = !bases[f.SONAME]
		case sdk.Headers:
			missing = !hasUnder(f.Path)
		case sdk.Binary:
			missing = !files[f.Path]
		case sdk.Data:
			// A data file or folder (bin/crt, nvvm/libdevice): claimed
			// where the wheel has none, a build that reads it fails
			// (nvcc -dlink without bin/crt/link.stub).
			missing = !hasUnder(f.Path)
		default:
			continue
		}
		if missing && !allowed(allow, l, f.Path) {
			out = append(out, fmt.Sprintf("%s: the plugin names %s %s, which the wheel lacks", l.Key(), f.Kind, f.Path))
		}
	}
	named := map[string]bool{}
	var dataDirs []string
	for _, f := range all {
		if f.Kind == sdk.Data {
			dataDirs = append(dataDirs, f.Path+"/")
		}
		switch f.Kind {
		case sdk.SharedLib:
			named[f.SONAME] = true
			named[path.Base(f.Path)] = true
		case sdk.Data:
			// A library kept out of the default link on purpose
			// (libnvblas) is named as data.
			named[path.Base(f.Path)] = true
		}
	}
	for _, f := range l.Files {
		p := archivePath(l.Wheel, f)
		inData := false
		for _, d := range dataDirs {
			// A library in a folder that is data (compute-sanitizer/) is
			// named by it.
			inData = inData || strings.HasPrefix(p, d)
		}
		if IsSharedLib(p) && !named[path.Base(p)] && !inData && !allowed(allow, l, p) {
			out = append(out, fmt.Sprintf("%s: the wheel has shared library %s, which no package names", l.Key(), p))
			continue
		}
		if !IsSharedLib(p) && !claimed(all, p) && !allowed(allow, l, p) {
			out = append(out, fmt.Sprintf("%s: the wheel has %s, which no package claims", l.Key(), p))
		}
	}
	sort.Strings(out)
	return out
}

// claimed reports whether a file of a wheel (archive layout) is one of the
// files, or lies in a folder, that a package claims.
func claimed(all []sdk.File, p string) bool {
	for _, f := range all {
		if f.Kind == sdk.SharedLib {
			continue // by SONAME, above
		}
		if p == f.Path || strings.HasPrefix(p, f.Path+"/") {
			return true
		}
	}
	return false
}
