package redist

import (
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// pkg is what the plugin knows about one package of the CUDA redist: a row
// of the table in table.go, which Declaration turns into an
// sdk.PackageSpec.
type pkg struct {
	// about says what the package is, in a few words.
	about string
	// files are the package's outputs on Linux, relative to the archive
	// root; each holds for the CUDA versions and platforms its When bounds.
	files []sdk.FileSpec
	// deps are its edges to other packages; each holds for the CUDA versions
	// its Since and Until bound.
	deps []dep
	// unusable lists where the package cannot be used, and why; {pkg} and
	// {version} in a reason are filled in.
	unusable []sdk.Reason
	// staticLinkopts are the system libraries its static libraries need.
	staticLinkopts []string
	// patches fix NVIDIA's files where a newer system needs it (Amend).
	patches []patch
}

// spec is the row as the SDK declares a package.
func (s pkg) spec(manifest string) sdk.PackageSpec {
	ps := sdk.PackageSpec{Manifest: manifest, About: s.about, Files: s.files, Unusable: s.unusable,
		StaticLinkopts: s.staticLinkopts}
	for _, d := range s.deps {
		ps.Deps = append(ps.Deps, sdk.DepSpec(d))
	}
	return ps
}

// Shared libraries are written as the path without the ".so…" suffix and a
// SONAME scheme that gives the suffix from the package version:
// solib("lib/libcublas", soMajor) is lib/libcublas.so.12 with SONAME
// libcublas.so.12 for libcublas 12.4.5.8. The path listed is the SONAME
// file, the one the dynamic linker looks for. A scheme that changed with
// the package's version is a row per version range (untilV12, fromV12).
type soname func(base string) sdk.FileSpec

// soMajor: the package's own major version (libcublas 12.4.5.8 →
// libcublas.so.12, libcufft 11.2.1.3 → libcufft.so.11, libcurand 10.3 →
// libcurand.so.10). Most CUDA libraries follow it.
func soMajor(base string) sdk.FileSpec { return sdk.Shared(base+".so", sdk.PackageMajor) }

// soMajorMinor: the package's major.minor (libnvrtc-builtins 12.4.127 →
// libnvrtc-builtins.so.12.4, whose major.minor is the CUDA release's;
// libcuinj64 11.8.87 → libcuinj64.so.11.8).
func soMajorMinor(base string) sdk.FileSpec {
	return sdk.Shared(base+".so", sdk.PackageMajor+"."+sdk.PackageMinor)
}

// soNone: an unversioned library whose SONAME is its file name
// (libnvperf_host.so).
func soNone(base string) sdk.FileSpec { return sdk.Unversioned(base + ".so") }

// soFixed: a SONAME version that does not follow the package version
// (libcufile.so.0 for cuFile 1.x, libnvvm.so.4).
func soFixed(v string) soname {
	return func(base string) sdk.FileSpec { return sdk.Shared(base+".so", v) }
}

// untilV12 and fromV12 split a library's rows at the package's own version
// 12, where the runtime, NVRTC and CUPTI changed their SONAME schemes.
var (
	untilV12 = sdk.Range{Below: "12"}
	fromV12  = sdk.Range{From: "12"}
)

// File constructors. Roles: headers and libraries are for the target;
// tool() is a binary run on the build machine (compilers, binary
// utilities), runTool() a binary run beside the program on the target
// machine (debuggers, profilers, sanitizers, demos). Bounds are the SDK's
// CUDAFrom, CUDAThrough and OnlyOn.

func headers(p string) sdk.FileSpec { return sdk.Header(p) }

func solib(base string, so soname) sdk.FileSpec { return so(base) }

func static(p string) sdk.FileSpec { return sdk.Static(p) }

func stub(p string) sdk.FileSpec { return sdk.Stub(p) }

func tool(p string) sdk.FileSpec { return sdk.Tool(p) }

func runTool(p string) sdk.FileSpec { return sdk.RunTool(p) }

func data(p string, r sdk.Role) sdk.FileSpec { return sdk.FileSpec{Path: p, Kind: sdk.Data, Role: r} }

// dep is an edge, built with the methods below; the SDK's DepSpec.
type dep sdk.DepSpec

// edge is a dependency on the package with manifest name to, for every CUDA
// version; narrow it with since/until.
func edge(to string) dep { return dep{Package: to} }

func (d dep) since(v string) dep         { d.Since = v; return d }
func (d dep) until(v string) dep         { d.Until = v; return d }
func (d dep) runtime() dep               { d.Runtime = true; return d }
func (d dep) static() dep                { d.Static = true; return d }
func (d dep) headers() dep               { d.Headers = true; return d }
func (d dep) merge() dep                 { d.Merge = true; return d }
func (d dep) platforms(ps ...string) dep { d.Platforms = ps; return d }

// ifForwardCompat: the edge exists only when the configuration asks for
// CUDA forward compatibility.
func (d dep) ifForwardCompat() dep { d.ForwardCompat = true; return d }

// onlyForCapability: the edge holds on a platform only where every
// capability the configuration builds it for is mm (or where the batch
// names none): a Jetson module's forward-compatibility libraries replace
// the driver's libcuda, so a binary that may run on another module must
// not load them.
func (d dep) onlyForCapability(mm string) dep { d.OnlyFor = mm; return d }

// everywhere is an unusable reason for every platform and CUDA version.
func everywhere(reason string) sdk.Reason { return sdk.Everywhere(reason) }
