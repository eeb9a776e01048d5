// Package splice is stage 6: for a CUDA version and a pair of exec and
// target platforms, which archive serves each role of the generated
// toolchain. The compiler comes from the exec platform (it runs on the
// machine that builds); the headers it compiles against and the runtime it
// links come from the target platform (they end up in the binary).
//
// Which packages play those roles is product knowledge the caller brings
// (Toolchain); which archive serves a package where is core/archives'. Both
// emitters ask this package, so a Bazel and a Buck2 tree splice alike and
// differ only in how they write it.
package splice

import (
	"github.com/cudapkgs/cudapkgs/core/archives"
	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// Toolchain names the packages behind the generated compiler toolchain. It
// is plain data so that whoever knows the products (the host, from a
// plugin's product facts) can build one; the zero value means no toolchain.
type Toolchain struct {
	// Compiler is the package whose exec-platform archive holds the
	// compiler driver (CompilerPath).
	Compiler string
	// Runtime is the library every compiled library links.
	Runtime string
	// Headers lists, for a CUDA version, the packages whose target-platform
	// headers the compiler compiles against; nil for none.
	Headers func(cuda version.Version) []string
	// ClangHeaders lists, for a CUDA version, the packages whose
	// target-platform headers clang needs besides Headers; nil for none.
	ClangHeaders func(cuda version.Version) []string
}

// CompilerPath is where a compiler archive holds the driver: an archive of
// the Compiler package without it (a version or platform that ships the
// package without the tool) serves no toolchain.
const CompilerPath = "bin/nvcc"

// DeviceRuntimePath is where a runtime archive holds the device runtime
// that a device link (relocatable device code) links.
const DeviceRuntimePath = "lib/libcudadevrt.a"

// Splice answers the role questions for one collected index.
type Splice struct {
	ix *archives.Index
	tc Toolchain
}

// New splices the archives of ix by the toolchain's roles.
func New(ix *archives.Index, tc Toolchain) *Splice { return &Splice{ix: ix, tc: tc} }

// Toolchain is the toolchain the splice was made with.
func (s *Splice) Toolchain() Toolchain { return s.tc }

// Execs are the platforms a build can run on, sorted by name: those of the
// targets whose archives' tools run on a build machine (Linux). The exec
// platform is a constraint of the build, never the machine that generates.
func (s *Splice) Execs() []platform.Platform { return s.ix.ExecTargets() }

// Compiler is the archive that serves the compiler for CUDA cuda on the exec
// platform, with the driver in it; false where there is none (no Compiler
// package, unusable there, or shipped without the driver).
func (s *Splice) Compiler(cuda version.Version, exec platform.Platform) (*archives.Archive, bool) {
	if s.tc.Compiler == "" {
		return nil, false
	}
	u, ok := s.ix.Use(s.tc.Compiler, cuda, exec)
	if !ok || u.Archive == nil || !u.Archive.HasFile(CompilerPath) {
		return nil, false
	}
	return u.Archive, true
}

// Header is one package the compiler compiles against, as the target
// platform has it.
type Header struct {
	Package string
	// Archive serves the package's headers on the target; nil where it
	// does not (no archive there, or one without headers).
	Archive *archives.Archive
	// Unusable says the CUDA version's set has the package but nothing
	// serves it on the target: the emitters point at what fails with the
	// reasons.
	Unusable bool
}

// Headers are the header packages for CUDA cuda on target, in the order
// the Toolchain lists them.
func (s *Splice) Headers(cuda version.Version, target platform.Platform) []Header {
	return s.headers(s.tc.Headers, cuda, target)
}

// ClangHeaders are the header packages clang needs besides Headers for
// CUDA cuda on target.
func (s *Splice) ClangHeaders(cuda version.Version, target platform.Platform) []Header {
	return s.headers(s.tc.ClangHeaders, cuda, target)
}

func (s *Splice) headers(list func(version.Version) []string, cuda version.Version, target platform.Platform) []Header {
	if list == nil {
		return nil
	}
	var out []Header
	for _, p := range list(cuda) {
		h := Header{Package: p}
		u, ok := s.ix.Use(p, cuda, target)
		switch {
		case ok && u.Archive != nil && u.Archive.HasKind(file.Headers):
			h.Archive = u.Archive
		case ok && u.Archive == nil:
			h.Unusable = true
		}
		out = append(out, h)
	}
	return out
}
