// Package sdk is what a cudapkgs fixup plugin is written with: the public Go
// types of the plugin protocol, a one-line Serve, and a test helper that runs
// a plugin in-process over real gRPC.
//
// A plugin receives a Batch (the evaluated configuration, one CUDA version,
// one product's packages with their archives) and answers, per package, what
// is specific to it: its files by output and role, its dependency edges and
// where it cannot be used. The built-in plugins (redist, cudnn, cutensor,
// tensorrt) are written with this package exactly as a third party's.
//
// The generated protobuf code is internal; these types are the API, and
// they change only with the protocol version (ProtocolVersion).
package sdk

import (
	"context"
	"fmt"
	"slices"
)

// ProtocolVersion is the plugin protocol's major version. It is in the
// protobuf package name (cudapkgs.plugin.v1) and negotiated at the go-plugin
// handshake: a host and a plugin of different versions refuse each other
// before any call.
const ProtocolVersion = 1

// Fixer is a plugin's implementation.
type Fixer interface {
	// Describe says who the plugin is and which products it fixes.
	Describe() Description
	// Fixup answers for every package of the batch.
	Fixup(ctx context.Context, b *Batch) (*Result, error)
}

// Description identifies a plugin.
type Description struct {
	Name     string
	Products []string
	// ProtocolVersion is filled in by Serve.
	ProtocolVersion int
	// Renames are packages of the plugin's products that take over an older
	// manifest name from a CUDA version on. The host then resolves edges
	// to the old name to the new package, and the hub keeps the old name
	// as an alias, so that a user's label keeps working across versions.
	Renames []Rename
	// Facts are what the plugin knows about its products that their
	// manifests do not carry. A product is added to cudapkgs by a plugin
	// that names it in Products and gives its Facts; a plugin that only
	// fixes a product another plugin (or the configuration) describes
	// gives none for it.
	Facts []ProductFacts
}

// ProductFacts describe a product: where its manifests and archives are
// published and what its manifests leave out.
type ProductFacts struct {
	Product string
	// Toolkit marks the product whose releases are the CUDA versions; one
	// plugin at most says so.
	Toolkit bool
	// Unlisted marks a product NVIDIA publishes no manifests for (TensorRT):
	// they come from a folder the user gives.
	Unlisted bool
	// Base and Path locate archives: Base + "/" + Path + "/" +
	// relative_path. Base is an https://, http:// or file:// URL; Path is
	// also where `manifests fetch` lists the product's manifests.
	Base, Path string
	// FlatCUDA says which CUDA versions a release serves when its archives
	// are not split by cuda_variant. A release in no range serves none.
	FlatCUDA []FlatCUDA
	// NoCUDA says the product needs no CUDA at all (NVPL's CPU libraries):
	// a release whose archives are not split by cuda_variant serves every
	// CUDA version, so the same archives are in every CUDA version's set,
	// including versions newer than any table. Exclusive with FlatCUDA and
	// Toolkit.
	NoCUDA bool
	// StripPrefix is the top folder of an archive when it is not the
	// archive's file name without its extension; "{version}" stands for the
	// package's version ("TensorRT-{version}").
	StripPrefix string
	// Toolchain is the nvcc toolchain's packages, for the toolkit only.
	Toolchain *Toolchain
	// LocalHints say where an installed toolkit states the versions its
	// layout lists nowhere; LocalIdentify are the components whose versions
	// tell which release an install is, most telling first.
	LocalHints    []LocalHint
	LocalIdentify []string
	// Platforms are the target platforms the plugin describes the product
	// on. An archive for any other platform is unusable, and the host says
	// why, in the same words for every product; empty leaves every
	// platform to the plugin.
	Platforms []string
	// Wheels are the Python package index projects the product's packages
	// come from (NCCL and NVSHMEM, which NVIDIA ships only as wheels):
	// `manifests fetch` reads their PEP 691 pages and turns each release
	// into a manifest in NVIDIA's shape (docs/wheels.md). A product with
	// Wheels and no Base needs no Base or Path.
	Wheels []WheelProject
}

// WheelProject is one package's wheels on a Python package index, one
// project per CUDA major.
type WheelProject struct {
	// Project is the index project, "{major}" standing for each of
	// CUDAMajors: "nvidia-nccl-cu{major}".
	Project string
	// CUDAMajors are the majors that have a project ("12", "13"); each
	// becomes the variant "cuda<major>".
	CUDAMajors []string
	// Package is the manifest package the wheels are ("nccl").
	Package string
	// Prefix is the folder inside the wheel that holds include/ and lib/
	// ("nvidia/nccl"; "{major}" allowed: "nvidia/cufftmp/cu{major}").
	Prefix string
}

// FlatCUDA: releases from From (inclusive) below Below (exclusive; "" is
// no bound) serve the CUDA versions CUDA ("11", "10.2": prefixes).
type FlatCUDA struct {
	From, Below string
	CUDA        []string
}

// Toolchain names the packages the nvcc toolchain is made of.
type Toolchain struct {
	// Compiler is the package whose exec-platform archive holds bin/nvcc.
	Compiler string
	// Runtime is the library every cuda_library links.
	Runtime string
	// Headers are the packages whose target-platform headers nvcc
	// compiles against: the last entry whose Since is at or below the CUDA
	// version applies ("" is every version).
	Headers []ToolchainHeaders
	// ClangHeaders are the packages whose target-platform headers clang
	// needs besides Headers when it compiles CUDA (clang's CUDA wrapper
	// header includes curand_mtgp32_kernel.h, which includes CCCL's
	// <nv/target>), by CUDA version as Headers. Only builds that choose
	// clang fetch them.
	ClangHeaders []ToolchainHeaders
}

// ToolchainHeaders are the header packages from CUDA Since on.
type ToolchainHeaders struct {
	Since    string
	Packages []string
}

// LocalHint says where an installed toolkit states one component's
// version: in the name of a file under the folder Rel ("name"), after Key
// in the text of the file Rel ("text"), as the macro Key ("define"), or at
// the dotted JSON path Key ("json").
type LocalHint struct {
	Component, Rel, Kind, Key string
}

// Rename says Package replaces the manifest name Replaces from CUDA Since
// on ("cccl" replaces "cuda_cccl" since "13.3").
type Rename struct {
	Package, Replaces, Since string
}

// NVIDIABase is the root of NVIDIA's download site, under which each redist
// product has its compute/<product>/redist folder.
const NVIDIABase = "https://developer.download.nvidia.com"

// Config is the evaluated configuration as a plugin sees it.
type Config struct {
	CUDAVersions  []string
	ForwardCompat bool
	Exec          string
	Targets       []string
	// Capabilities per target platform name, for the batch's CUDA version.
	Capabilities map[string][]string
	// DefaultCapabilityTargets are the targets whose Capabilities are the
	// CUDA version's defaults, not the user's; JudgeCapabilities narrows
	// them to what a package supports.
	DefaultCapabilityTargets []string
	// Architectures names the GPU architecture of each capability of
	// Capabilities ("8.0": "Ampere"), from the host's GPU table: the host
	// sends it, rather than the SDK keeping a copy, so that a plugin built
	// before NVIDIA's next GPU still names it as the host knows it. A
	// capability the host does not know is not listed.
	Architectures map[string]string
}

// JudgeCapabilities judges a package against the capabilities of a target.
// reasons says why the package cannot serve the capabilities it is given
// (nothing when it can), one reason per capability it rules out.
//
// Capabilities the user named all count: every reason is returned, and the
// package is unusable there. Default capabilities are the tool's guess, not
// the user's GPUs, so a package is judged against the defaults it supports:
// judged lists them when that is fewer than all (nothing is returned as
// unusable then), and the binary still builds for every default. Only a
// package that supports none of the defaults is unusable, with every
// reason.
func (c Config) JudgeCapabilities(target string, reasons func(caps []string) []string) (unusable, judged []string) {
	caps := c.Capabilities[target]
	all := reasons(caps)
	if len(all) == 0 || !slices.Contains(c.DefaultCapabilityTargets, target) {
		return all, nil
	}
	for _, cp := range caps {
		if len(reasons([]string{cp})) == 0 {
			judged = append(judged, cp)
		}
	}
	if len(judged) == 0 {
		return all, nil
	}
	return nil, judged
}

// Batch is one call's input: one CUDA version, one product.
type Batch struct {
	CUDA     string
	Product  string
	Config   Config
	Packages []Package
	// SetPackages lists every package of the whole set (all products, this
	// batch's own included), with its manifest name and release, so a plugin
	// can name dependencies on other products' packages. The order is not
	// meaningful.
	SetPackages []SetPackage
}

// SetPackage is a package of the set, as seen from another product.
type SetPackage struct {
	Name     string // name in the set: "cudnn_8_9"
	Manifest string // name in its manifest: "cudnn"
	Product  string
	Release  string
	Version  string
}

// Package is one package of a batch.
type Package struct {
	Name     string // name in the set ("cudnn", "cudnn_8_9")
	Manifest string // name in its manifest ("cudnn")
	Product  string
	Release  string // the product release (manifest) it comes from
	Version  string // the package's own version
	// Archives per target platform that has one.
	Archives []Archive
	// Unavailable: target platforms with no archive, and why.
	Unavailable map[string][]string
}

// Archive is the download that serves a target platform.
type Archive struct {
	Platform     string // target platform name: linux-x86_64, linux-sbsa, linux-jetson, ...
	Key          string // manifest key that serves it: linux-aarch64 for Jetson before CUDA 13
	Variant      string // "cuda12", or ""
	RelativePath string
	SHA256       string
}

// Kind is what a file is. The host reads these names into its own file
// model (core/file); the contract states them here so that a plugin depends
// on nothing of the host.
type Kind string

const (
	Headers   Kind = "headers"    // an include folder, or one header
	SharedLib Kind = "shared_lib" // a shared library, by its SONAME file
	StaticLib Kind = "static_lib"
	StubLib   Kind = "stub_lib" // a link-time stub (libcuda.so), never shipped
	Binary    Kind = "binary"
	Data      Kind = "data" // nvvm, libdevice, CCCL, crt, anything else
)

// Kinds lists every kind, in output order.
func Kinds() []Kind { return []Kind{Headers, SharedLib, StaticLib, StubLib, Binary, Data} }

// Role is which machine a file serves, for splicing.
type Role string

const (
	// Exec files run (or are read by tools) on the machine that builds.
	Exec Role = "exec"
	// Target files are for the machine the binary is built for.
	Target Role = "target"
	// Both is a package's role when its files are split between the two;
	// never a file's.
	Both Role = "both"
)

// File is one output of a package, relative to the archive's root (after its
// strip prefix). The host refuses an answer with a file whose path leaves
// its archive or is unsafe in a label, whose kind or role is unknown, or
// whose SONAME is missing on a shared library (or given on anything else).
type File struct {
	Path   string
	Kind   Kind
	Role   Role
	SONAME string // shared libraries only: the name the dynamic linker looks for
}

// Dep is a dependency edge to another package of the set.
type Dep struct {
	// Package is the manifest name of the package depended on ("libcublas").
	Package string
	// Release, when set, is the release prefix required ("8.9" for a cuDNN
	// 8.9): the edge goes to the package of the set with that release.
	Release string
	// Runtime marks a library loaded at run time (dlopen) rather than linked.
	Runtime bool
	// Since and Until bound the CUDA versions (inclusive prefixes) for which
	// the edge holds, as the plugin's knowledge says; empty means unbounded.
	// Only edges that hold for the batch's CUDA version are returned; the
	// bounds document why.
	Since, Until string
	// Static marks an edge of the static link set only: linking this
	// package's static libraries needs the other package's static libraries
	// (static cudart needs culibos; static cuDNN needs cublasLt and NVRTC).
	Static bool
	// Headers marks an edge to the other package's headers only, not its
	// libraries: cudart's headers include the crt headers that cuda_nvcc
	// holds through CUDA 12, and linking cuda_nvcc would bring libNVVM.
	Headers bool
	// Platforms limits the edge to some target platforms (libcudla on Jetson);
	// empty means all.
	Platforms []string
	// Merge unpacks the other package's archive (same platform, same CUDA
	// version) into this package's repository too, and gives this package
	// its files: CUDA 13's nvcc finds cicc and libdevice in $(TOP)/nvvm
	// (nvcc.profile), and from 13.0 they are in the libnvvm archive.
	Merge bool
}

// PlatformResult is a package's answer for one target platform.
type PlatformResult struct {
	Files []File
	// Unusable, when not empty, says why the package cannot be used there.
	Unusable []string
	// Judged are the default capabilities the package was judged against
	// when it supports fewer than all (Config.JudgeCapabilities); empty
	// when it was judged against every capability of the target.
	Judged []string
	// Generic says the plugin does not know the package (a package NVIDIA
	// added after the plugin was written): the host serves it from the
	// archive's conventional layout, headers from include/, shared libraries
	// from lib/, tools from bin/, marks it generic and warns. Files and
	// Unusable are empty then.
	Generic bool
}

// PackageResult is the answer for one package.
type PackageResult struct {
	Name string
	Deps []Dep
	// StaticLinkopts are the system libraries the package's static link set
	// needs, as linker flags ("-ldl", "-lpthread", "-lrt", "-lz"). The host
	// accepts only -l<name> and -pthread.
	StaticLinkopts []string
	// Patches are edited into the package's archives when they are fetched,
	// on every platform: fixes of NVIDIA's files that a newer system needs
	// (CUDA 12's crt/math_functions.h against glibc 2.41).
	Patches []Patch
	// Platforms per target platform name; platforms not listed keep what the
	// host knew (an archive with no files, or the reasons it has none).
	Platforms map[string]PlatformResult
}

// Patch is a named set of text edits, with the reason it is needed.
type Patch struct {
	Name  string // short, unique in the package: "glibc-2.41-math-functions"
	Why   string
	Edits []Edit
}

// Edit replaces Old by New in the archive's file Path. Old must occur
// exactly once: a patch written for other text fails the fetch, naming the
// file and the patch, rather than doing nothing.
type Edit struct {
	Path, Old, New string
}

// Result is a Fixup's answer.
type Result struct {
	Packages []PackageResult
}

// RoleOf is the role of a set of files: Exec or Target when all agree, Both
// when they are split, "" when there are none.
func RoleOf(files []File) Role {
	var r Role
	for _, f := range files {
		switch {
		case r == "":
			r = f.Role
		case r != f.Role:
			return Both
		}
	}
	return r
}

// EachPackage is the loop most fixers are: it checks that the batch is for
// product, then calls fix for every package in order, stopping at a
// cancelled context or at the first error, which it wraps with the package.
func EachPackage(ctx context.Context, b *Batch, product string, fix func(Package) (PackageResult, error)) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if b.Product != product {
		return nil, fmt.Errorf("batch is for product %q; this plugin fixes %q", b.Product, product)
	}
	out := &Result{Packages: make([]PackageResult, 0, len(b.Packages))}
	for _, p := range b.Packages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := fix(p)
		if err != nil {
			return nil, fmt.Errorf("package %s (%s %s): %w", p.Name, p.Manifest, p.Version, err)
		}
		out.Packages = append(out.Packages, r)
	}
	return out, nil
}

// Generic is the answer for a package the plugin does not know: generic on
// every platform the package has an archive for (the host serves it from the
// conventional layout and warns), rather than unusable or empty.
func Generic(p Package) PackageResult {
	r := PackageResult{Name: p.Name, Platforms: map[string]PlatformResult{}}
	for _, a := range p.Archives {
		r.Platforms[a.Platform] = PlatformResult{Generic: true}
	}
	return r
}
