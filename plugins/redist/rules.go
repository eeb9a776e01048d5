package redist

import (
	"fmt"

	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// pkg is what the plugin knows about one package of the CUDA redist: a row
// of the table in table.go.
type pkg struct {
	// about says what the package is, in a few words.
	about string
	// files are the package's outputs on Linux, relative to the archive root.
	files []file
	// deps are its edges to other packages; each holds for the CUDA versions
	// its Since and Until bound.
	deps []dep
	// unusable lists where the package cannot be used, and why.
	unusable []unusable
	// staticLinkopts are the system libraries its static libraries need.
	staticLinkopts []string
	// patches fix NVIDIA's files where a newer system needs it.
	patches []patch
}

// when bounds a rule by CUDA version (inclusive prefixes, "" open), by
// target platform (on: only these; off: not these) and, with lacks set, to
// targets the configuration builds for GPUs none of which has that
// capability (major.minor, "8.7": a Jetson module's); a target whose
// capabilities the batch does not name never lacks one.
type when struct {
	since, until string
	on, off      []string
	lacks        string
}

// file is one output. Shared libraries are written as the path without the
// ".so…" suffix and a soname scheme that computes the suffix from the
// package version: solib("lib/libcublas", soMajor) is lib/libcublas.so.12
// with SONAME libcublas.so.12 for libcublas 12.4.5.8. The path listed is the
// SONAME file, the one the dynamic linker looks for.
type file struct {
	when
	path string
	kind sdk.Kind
	role sdk.Role
	so   soname
}

// dep is an edge. forwardCompat edges exist only when the configuration
// asks for CUDA forward compatibility. With onlyFor set (a capability's
// major.minor), the edge holds on a platform only where every capability the
// configuration builds it for is that one (or where the batch names none):
// a Jetson module's forward-compatibility libraries replace the driver's
// libcuda, so a binary that may run on another module must not load them.
type dep struct {
	sdk.Dep
	forwardCompat bool
	onlyFor       string
}

// unusable is a reason the package cannot be used, where its when holds.
// {pkg} and {version} in the reason are filled in.
type unusable struct {
	when
	reason string
}

// soname computes a shared library's version suffix (".12", ".11.0", or ""
// for an unversioned library) from the package version.
type soname func(pkg ver) string

// soMajor: the package's own major version (libcublas 12.4.5.8 →
// libcublas.so.12, libcufft 11.2.1.3 → libcufft.so.11, libcurand 10.3 →
// libcurand.so.10). Most CUDA libraries follow it.
func soMajor(p ver) string { return fmt.Sprintf(".%d", p.Major()) }

// soMajorMinor: the package's major.minor (libnvrtc-builtins 12.4.127 →
// libnvrtc-builtins.so.12.4, whose major.minor is the CUDA release's;
// libcuinj64 11.8.87 → libcuinj64.so.11.8).
func soMajorMinor(p ver) string { return fmt.Sprintf(".%d.%d", p.Part(0), p.Part(1)) }

// soNone: an unversioned library whose SONAME is its file name
// (libnvperf_host.so).
func soNone(ver) string { return "" }

// soFixed: a SONAME version that does not follow the package version
// (libcufile.so.0 for cuFile 1.x, libnvvm.so.4).
func soFixed(s string) soname { return func(ver) string { return "." + s } }

// soCudart: CUDA 11's runtime is libcudart.so.11.0 for every 11.x; from 12
// it is the major alone (libcudart.so.12, .13).
func soCudart(p ver) string {
	if p.Major() == 11 {
		return ".11.0"
	}
	return soMajor(p)
}

// soNvrtc: NVRTC 11.2 to 11.8 is libnvrtc.so.11.2 (minor-version
// compatible from 11.2 on); from 12 the major alone.
func soNvrtc(p ver) string {
	if p.Major() == 11 {
		return ".11.2"
	}
	return soMajor(p)
}

// soCupti: CUPTI 11.x is libcupti.so.11.<minor> (libcupti.so.11.8); from 12
// the major alone (libcupti.so.12).
func soCupti(p ver) string {
	if p.Major() == 11 {
		return soMajorMinor(p)
	}
	return soMajor(p)
}

// File constructors. Roles: headers and libraries are for the target;
// tool() is a binary run on the build machine (compilers, binary
// utilities), runTool() a binary run beside the program on the target
// machine (debuggers, profilers, sanitizers, demos).

func headers(p string) file { return file{path: p, kind: sdk.Headers, role: sdk.Target} }

func solib(base string, so soname) file {
	return file{path: base, kind: sdk.SharedLib, role: sdk.Target, so: so}
}

func static(p string) file { return file{path: p, kind: sdk.StaticLib, role: sdk.Target} }

func stub(p string) file { return file{path: p, kind: sdk.StubLib, role: sdk.Target} }

func tool(p string) file { return file{path: p, kind: sdk.Binary, role: sdk.Exec} }

func runTool(p string) file { return file{path: p, kind: sdk.Binary, role: sdk.Target} }

func data(p string, r sdk.Role) file { return file{path: p, kind: sdk.Data, role: r} }

// from bounds a file to CUDA ≥ v.
func (f file) from(v string) file { f.since = v; return f }

// through bounds a file to CUDA ≤ v (a prefix: "12" is every 12.x).
func (f file) through(v string) file { f.until = v; return f }

// only limits a file to some target platforms.
func (f file) only(ps ...string) file { f.on = ps; return f }

// edge is a dependency on the package with manifest name to, for every CUDA
// version; narrow it with since/until.
func edge(to string) dep { return dep{Dep: sdk.Dep{Package: to}} }

func (d dep) since(v string) dep         { d.Since = v; return d }
func (d dep) until(v string) dep         { d.Until = v; return d }
func (d dep) runtime() dep               { d.Runtime = true; return d }
func (d dep) static() dep                { d.Static = true; return d }
func (d dep) headers() dep               { d.Headers = true; return d }
func (d dep) merge() dep                 { d.Merge = true; return d }
func (d dep) platforms(ps ...string) dep { d.Platforms = ps; return d }
func (d dep) ifForwardCompat() dep       { d.forwardCompat = true; return d }
func (d dep) onlyForCapability(mm string) dep {
	d.onlyFor = mm
	return d
}

// everywhere is an unusable reason for every platform and CUDA version.
func everywhere(reason string) unusable { return unusable{reason: reason} }
