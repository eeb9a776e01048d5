package cudapkgs_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/archives"
	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/emittest"
)

// TestFormatsDeclared: every listed format passes emit's checks, under a
// name of its own, and FormatNamed finds each one.
func TestFormatsDeclared(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range cudapkgs.Formats() {
		if err := f.Check(); err != nil {
			t.Error(err)
		}
		if seen[f.Name] {
			t.Errorf("format %s listed twice", f.Name)
		}
		seen[f.Name] = true
		if got, err := cudapkgs.FormatNamed(f.Name); err != nil || got.Name != f.Name {
			t.Errorf("FormatNamed(%q) = %q, %v", f.Name, got.Name, err)
		}
	}
	_, err := cudapkgs.FormatNamed("cmake")
	var unknown *cudapkgs.UnknownFormatError
	if !errors.As(err, &unknown) || err.Error() != `output format "cmake": expected bazel or buck2` {
		t.Errorf("FormatNamed(cmake) = %v, want an *UnknownFormatError naming the formats", err)
	}
	if got, want := cudapkgs.FormatHelp(), "bazel (a Bazel repository) or buck2 (a Buck2 cell)"; got != want {
		t.Errorf("FormatHelp() = %q, want %q", got, want)
	}
}

// TestFormatCheck: a declaration the pipeline could not use is refused.
func TestFormatCheck(t *testing.T) {
	gen := func(*config.Config, []*pkgset.Set, emit.Options) (buildfile.Tree, error) { return nil, nil }
	for _, tt := range []struct {
		f    emit.Format
		want string
	}{
		{emit.Format{Name: "my-format", Doc: "d", Generate: gen}, `format "my-format": expected a name`},
		{emit.Format{Name: "x", Generate: gen}, "format x: no Doc"},
		{emit.Format{Name: "x", Doc: "d"}, "format x: no Generate"},
		{emit.Format{Name: "x", Doc: "d", Generate: gen, Unsupported: []emit.Gap{{Fact: "colour", Reason: "r"}}}, `unsupported fact "colour" is none of`},
		{emit.Format{Name: "x", Doc: "d", Generate: gen, Unsupported: []emit.Gap{{Fact: emit.Patches, Reason: "r"}, {Fact: emit.Patches, Reason: "r"}}}, `"patches" listed twice`},
		{emit.Format{Name: "x", Doc: "d", Generate: gen, Unsupported: []emit.Gap{{Fact: emit.Patches}}}, `"patches" has no reason`},
	} {
		if err := tt.f.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %v, want an error containing %q", tt.f.Name, err, tt.want)
		}
	}
}

// archiveFields classifies every field of archives.Archive: the facts it
// carries, or none for what only names or places the archive. A field added
// to Archive fails TestFactsCoverArchives until it is classified here, and
// a new fact until some field carries it, so the parity below cannot miss
// what an archive says.
var archiveFields = map[string][]emit.Fact{
	"Name": nil, "Manifest": nil, "Version": nil, "CUDA": nil, "Platforms": nil,
	"Archive":        {emit.Sources},
	"Files":          {emit.HeaderDirs, emit.HeaderFiles, emit.SharedLibs, emit.StaticLibs, emit.Stubs, emit.Binaries, emit.Data},
	"Deps":           {emit.Deps},
	"Runtime":        {emit.RuntimeDeps},
	"StaticDeps":     {emit.StaticDeps},
	"StaticLinkopts": {emit.StaticLinkopts},
	"HeaderDeps":     {emit.HeaderDeps},
	"MergeDeps":      {emit.Merges},
	"Merged":         {emit.Merges},
	"Patches":        {emit.Patches},
	"Generic":        {emit.Generic},
}

// kindFacts is the fact of each kind of file.
var kindFacts = map[file.Kind]emit.Fact{
	file.Headers: emit.HeaderDirs, file.SharedLib: emit.SharedLibs, file.StaticLib: emit.StaticLibs,
	file.StubLib: emit.Stubs, file.Binary: emit.Binaries, file.Data: emit.Data,
}

func TestFactsCoverArchives(t *testing.T) {
	carried := map[emit.Fact]bool{}
	typ := reflect.TypeOf(archives.Archive{})
	for i := 0; i < typ.NumField(); i++ {
		name := typ.Field(i).Name
		facts, ok := archiveFields[name]
		if !ok {
			t.Errorf("archives.Archive.%s is new: classify it in archiveFields (the emit.Facts it carries, or nil), and give each format a detector", name)
		}
		for _, f := range facts {
			carried[f] = true
		}
	}
	for _, k := range file.Kinds() {
		if _, ok := kindFacts[k]; !ok {
			t.Errorf("file kind %s has no fact in kindFacts", k)
		}
	}
	for _, f := range emit.Facts() {
		if !carried[f] {
			t.Errorf("fact %q is carried by no field of archives.Archive", f)
		}
	}
}

// The parity fixture: alpha carries every fact (each kind of file, each
// kind of edge, static link options, a patch), its edges are packages of
// their own, zeta is merged into it, and omega is a package no plugin knows.
const (
	alphaSHA  = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
	alphaURL  = "https://mirror.example.com/acme/redist/alpha/linux-x86_64/alpha-linux-x86_64-1.0.0-archive.tar.xz"
	alphaStrp = "alpha-linux-x86_64-1.0.0-archive"
)

func paritySets() []*pkgset.Set {
	const plat = "linux-x86_64"
	n := 0
	pkg := func(name string, files ...pkgset.File) *pkgset.Package {
		n++
		sha := strings.Repeat(string(rune('a'+n))+"0", 32)
		base := name + "-linux-x86_64-1.0.0-archive"
		rel := name + "/linux-x86_64/" + base + ".tar.xz"
		if name == "alpha" {
			sha = alphaSHA
		}
		return &pkgset.Package{Name: name, Product: "acme", Manifest: name, Release: version.MustParse("1.0.0"), Version: version.MustParse("1.0.0"), Role: file.Target,
			Platforms: map[string]pkgset.Archive{plat: {Key: plat, SHA256: sha, StripPrefix: base, RelativePath: rel,
				URLs: []string{"https://mirror.example.com/acme/redist/" + rel, "https://developer.download.nvidia.com/compute/acme/redist/" + rel}}},
			Files: map[string][]pkgset.File{plat: files}}
	}
	headers := pkgset.File{Path: "include", Kind: file.Headers, Role: file.Target}
	shared := func(lib string) pkgset.File {
		return pkgset.File{Path: "lib/" + lib + ".so.1", Kind: file.SharedLib, Role: file.Target, SONAME: lib + ".so.1"}
	}
	alpha := pkg("alpha", headers,
		pkgset.File{Path: "extra/alpha.h", Kind: file.Headers, Role: file.Target},
		shared("libalpha"),
		pkgset.File{Path: "lib/libalpha_static.a", Kind: file.StaticLib, Role: file.Target},
		pkgset.File{Path: "lib/stubs/libalphadrv.so", Kind: file.StubLib, Role: file.Target},
		pkgset.File{Path: "bin/alphac", Kind: file.Binary, Role: file.Exec},
		pkgset.File{Path: "share/alpha.dat", Kind: file.Data, Role: file.Exec})
	alpha.Role = file.Both
	alpha.Deps = []pkgset.Dep{{Name: "beta"}, {Name: "gamma", Runtime: true}, {Name: "delta", Static: true}, {Name: "eps", Headers: true}, {Name: "zeta", Merge: true}}
	alpha.StaticLinkopts = []string{"-lrt"}
	alpha.Patches = map[string][]pkgset.Patch{plat: {{Name: "fix-alpha-header", Why: "a typo", Edits: []pkgset.Edit{{Path: "extra/alpha.h", Old: "typo", New: "type"}}}}}
	s := &pkgset.Set{CUDA: version.MustParse("12.4.1"), Packages: []*pkgset.Package{alpha,
		pkg("beta", headers, shared("libbeta")),
		pkg("gamma", headers, shared("libgamma")),
		pkg("delta", headers, pkgset.File{Path: "lib/libdelta_static.a", Kind: file.StaticLib, Role: file.Target}),
		pkg("eps", headers),
		pkg("zeta", pkgset.File{Path: "nvvm/libzeta.so.1", Kind: file.SharedLib, Role: file.Target, SONAME: "libzeta.so.1"}),
	}}
	omega := pkg("omega")
	omega.Files = nil
	pkgset.MarkGeneric(s, omega, plat)
	s.Packages = append(s.Packages, omega)
	return []*pkgset.Set{s}
}

// detector finds a fact of the fixture in a format's tree.
type detector func(tree buildfile.Tree) bool

// in is a detector that holds when the file at p contains every want.
func in(p string, want ...string) detector {
	return func(tree buildfile.Tree) bool {
		b, ok := tree[p]
		if !ok {
			return false
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				return false
			}
		}
		return true
	}
}

// detectors find each fact of the fixture in each format's tree. A format
// without a detector for a fact fails the test: a new format (or fact)
// says where it writes each one.
func detectors() map[string]map[emit.Fact]detector {
	const bzl = "repos/cuda_alpha_1_0_0_linux_x86_64.BUILD"
	const bck = "repos/alpha_1_0_0_linux_x86_64/BUCK"
	return map[string]map[emit.Fact]detector{
		bazel.Name: {
			emit.Sources:        in("generated.bzl", alphaSHA, alphaStrp, alphaURL),
			emit.HeaderDirs:     in(bzl, `"include/**"`),
			emit.HeaderFiles:    in(bzl, `"extra/alpha.h"`),
			emit.SharedLibs:     in(bzl, `shared_library = "lib/libalpha.so.1"`),
			emit.StaticLibs:     in(bzl, `static_library = "lib/libalpha_static.a"`),
			emit.Stubs:          in(bzl, "cuda_stub_library(", `"lib/stubs/libalphadrv.so"`),
			emit.Binaries:       in(bzl, `"bin/alphac"`),
			emit.Data:           in(bzl, `"share/alpha.dat"`),
			emit.Deps:           in(bzl, `"@cuda//:beta"`),
			emit.RuntimeDeps:    in(bzl, `"@cuda//:gamma"`),
			emit.StaticDeps:     in(bzl, `"@cuda//:delta_static"`),
			emit.StaticLinkopts: in(bzl, `linkopts = ["-lrt"]`),
			emit.HeaderDeps:     in(bzl, `"@cuda//:eps_headers"`),
			emit.Merges:         in("generated.bzl", `"merge": ["cuda_zeta_1_0_0_linux_x86_64"]`),
			emit.Patches:        in("generated.bzl", `"name": "fix-alpha-header"`),
			emit.Generic:        in("repos/cuda_omega_1_0_0_linux_x86_64.BUILD", `"lib/*.so"`, `"bin/**"`),
		},
		buck2.Name: {
			emit.Sources:        in(bck, alphaSHA, alphaStrp, alphaURL),
			emit.HeaderDirs:     in(bck, `header_dirs = [":archive[include]"]`),
			emit.HeaderFiles:    in(bck, `"alpha.h": ":archive[extra/alpha.h]"`),
			emit.SharedLibs:     in(bck, `shared_lib = ":archive[lib/libalpha.so.1]"`),
			emit.StaticLibs:     in(bck, `static_lib = ":archive[lib/libalpha_static.a]"`),
			emit.Stubs:          in(bck, `":archive[lib/stubs/libalphadrv.so]"`),
			emit.Binaries:       in(bck, `":archive[bin/alphac]"`),
			emit.Data:           in(bck, `":archive[share/alpha.dat]"`),
			emit.Deps:           in(bck, `"//:beta"`),
			emit.RuntimeDeps:    in(bck, `"//:gamma"`),
			emit.StaticDeps:     in(bck, `"//:delta_static"`),
			emit.StaticLinkopts: in(bck, `exported_linker_flags = ["-lrt"]`),
			emit.HeaderDeps:     in(bck, `"//:eps_headers"`),
			emit.Merges:         in(bck, `"//repos/zeta_1_0_0_linux_x86_64:archive"`),
			emit.Patches:        in(bck, "fix-alpha-header"),
			emit.Generic:        in("repos/omega_1_0_0_linux_x86_64/BUCK", "lib/*.so"),
		},
	}
}

// parity says where a format's tree of the fixture and its Unsupported
// list disagree: a fact neither written nor listed (dropped silently), or
// written and listed (a stale list).
func parity(t *testing.T, f emit.Format) []string {
	t.Helper()
	tree, err := f.Generate(emittest.Config(t, []string{"12.4.1"}, []string{"linux-x86_64"}), paritySets(), emit.Options{})
	if err != nil {
		t.Fatalf("format %s: %v", f.Name, err)
	}
	det := detectors()[f.Name]
	var out []string
	for _, fact := range emit.Facts() {
		d, ok := det[fact]
		switch {
		case !ok:
			out = append(out, "no detector for "+string(fact)+": add one to detectors()")
		case d(tree) && !f.Supports(fact):
			out = append(out, "writes "+string(fact)+" but lists it as unsupported")
		case !d(tree) && f.Supports(fact):
			out = append(out, "drops "+string(fact)+" silently: write it, or list it in Unsupported with why")
		}
	}
	return out
}

// TestFormatParity holds every format to the facts: each one written, or
// named in the format's Unsupported list.
func TestFormatParity(t *testing.T) {
	for _, f := range cudapkgs.Formats() {
		for _, p := range parity(t, f) {
			t.Errorf("format %s: %s", f.Name, p)
		}
	}
}

// TestFormatParityFails shows the parity test failing where it must: a
// format that stops writing a fact without listing it, and one whose list
// names a fact it writes.
func TestFormatParityFails(t *testing.T) {
	dropping := bazel.Format()
	gen := dropping.Generate
	dropping.Generate = func(cfg *config.Config, sets []*pkgset.Set, opts emit.Options) (buildfile.Tree, error) {
		for _, s := range sets {
			for _, p := range s.Packages {
				p.StaticLinkopts = nil // as an emitter that forgot them would
			}
		}
		return gen(cfg, sets, opts)
	}
	if got := parity(t, dropping); !slices.Contains(got, "drops "+string(emit.StaticLinkopts)+" silently: write it, or list it in Unsupported with why") {
		t.Errorf("a format dropping static link options: parity says %q", got)
	}
	stale := bazel.Format()
	stale.Unsupported = []emit.Gap{{Fact: emit.Patches, Reason: "r"}}
	if got := parity(t, stale); !slices.Equal(got, []string{"writes patches but lists it as unsupported"}) {
		t.Errorf("a format listing a fact it writes: parity says %q", got)
	}
}
