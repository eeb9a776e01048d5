package emit

// Fact is one thing an archive carries that a format may write: a kind of
// file, a kind of edge, or something about the download. The values are
// the phrases docs and messages use.
type Fact string

// The facts of an archive (core/archives.Archive): its download, its files
// by kind (core/file.Kind), its edges by kind (core/pkgset.Dep), and what
// the fixups add (static link options, patches, merges, the generic
// layout).
const (
	Sources     Fact = "sources"          // sha256, strip prefix, every URL with mirrors first
	HeaderDirs  Fact = "header folders"   // file.Headers naming a folder
	HeaderFiles Fact = "single headers"   // file.Headers naming one header
	SharedLibs  Fact = "shared libraries" // file.SharedLib, by SONAME
	StaticLibs  Fact = "static libraries" // file.StaticLib
	Stubs       Fact = "stub libraries"   // file.StubLib
	Binaries    Fact = "tools"            // file.Binary
	Data        Fact = "data"             // file.Data and kinds newer than this code
	Deps        Fact = "linked edges"     // Dep: the package links the other
	RuntimeDeps Fact = "run-time edges"   // Dep.Runtime: loaded with dlopen
	// The static link set: edges of the set only (Dep.Static), and the
	// system libraries it needs (Package.StaticLinkopts).
	StaticDeps     Fact = "static link set edges"
	StaticLinkopts Fact = "static link set system libraries"
	HeaderDeps     Fact = "header-only edges" // Dep.Headers: the other's headers only
	Merges         Fact = "merged archives"   // Dep.Merge: unpacked into this archive's folder
	Patches        Fact = "patches"           // edits made to the archive when fetched
	// Generic is the conventional layout of a package no plugin knows:
	// every shared library under lib/ and tool under bin/, by glob.
	Generic Fact = "generic layout"
)

// Facts lists every fact, in the order docs list them.
func Facts() []Fact {
	return []Fact{Sources, HeaderDirs, HeaderFiles, SharedLibs, StaticLibs, Stubs, Binaries, Data,
		Deps, RuntimeDeps, StaticDeps, StaticLinkopts, HeaderDeps, Merges, Patches, Generic}
}
