package splice

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/archives"
	"github.com/cudapkgs/cudapkgs/core/file"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

var (
	x86  = platform.LinuxX86_64
	sbsa = platform.LinuxSBSA
	win  = platform.WindowsX86_64
	cuda = version.MustParse("1.0")
)

// pkg is a package with an archive per platform that has files listed
// (nil files: an archive without any), and reasons where given.
func pkg(name string, files map[platform.Platform][]file.File, unusable ...platform.Platform) *pkgset.Package {
	p := &pkgset.Package{Name: name, Manifest: name, Version: version.MustParse("1.0.0"),
		Platforms: map[string]pkgset.Archive{}, Files: map[string][]pkgset.File{}, Unavailable: map[string][]string{}}
	for t, fs := range files {
		rel := name + "/" + t.Name() + ".tar.xz"
		p.Platforms[t.Name()] = pkgset.Archive{Key: t.Name(), SHA256: name + t.Name(), RelativePath: rel, URLs: []string{"https://example.com/" + rel}}
		p.Files[t.Name()] = fs
	}
	for _, t := range unusable {
		p.Unavailable[t.Name()] = []string{"not for " + t.Name()}
	}
	return p
}

func index(t *testing.T) *archives.Index {
	t.Helper()
	tool := file.File{Path: CompilerPath, Kind: file.Binary, Role: file.Exec}
	other := file.File{Path: "bin/other", Kind: file.Binary, Role: file.Exec}
	include := file.File{Path: "include", Kind: file.Headers, Role: file.Target}
	lib := file.File{Path: "lib/librt.so.1", Kind: file.SharedLib, Role: file.Target, SONAME: "librt.so.1"}
	s := &pkgset.Set{CUDA: cuda, Packages: []*pkgset.Package{
		pkg("cc", map[platform.Platform][]file.File{x86: {tool}, sbsa: {other}, win: {tool}}),
		pkg("libonly", map[platform.Platform][]file.File{x86: {lib}}),
		pkg("rt", map[platform.Platform][]file.File{x86: {include, lib}, sbsa: {include}, win: {include}}, win),
	}}
	ix, err := archives.Collect([]*pkgset.Set{s}, []platform.Platform{x86, win, sbsa}, "")
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

var toolchain = Toolchain{Compiler: "cc", Runtime: "rt", Headers: func(version.Version) []string { return []string{"rt", "libonly", "absent"} }}

func TestExecs(t *testing.T) {
	if got, want := New(index(t), toolchain).Execs(), []platform.Platform{sbsa, x86}; !cmp.Equal(got, want) {
		t.Errorf("Execs = %v, want %v (Linux targets, by name)", got, want)
	}
}

func TestCompiler(t *testing.T) {
	ix := index(t)
	tests := []struct {
		name string
		tc   Toolchain
		exec platform.Platform
		want string // archive name, "" for none
	}{
		{"has the driver", toolchain, x86, "cc_1_0_0_linux_x86_64"},
		{"archive without the driver", toolchain, sbsa, ""},
		{"no toolchain", Toolchain{}, x86, ""},
		{"unknown package", Toolchain{Compiler: "absent"}, x86, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := New(ix, tt.tc).Compiler(cuda, tt.exec)
			got := ""
			if ok {
				got = a.Name
			}
			if got != tt.want {
				t.Errorf("Compiler(%s) = %q, want %q", tt.exec.Name(), got, tt.want)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	ix := index(t)
	type header struct {
		Package, Archive string
		Unusable         bool
	}
	tests := []struct {
		name   string
		tc     Toolchain
		target platform.Platform
		want   []header
	}{
		{"served", toolchain, x86, []header{{Package: "rt", Archive: "rt_1_0_0_linux_x86_64"}, {Package: "libonly"}, {Package: "absent"}}},
		{"unusable on the target", toolchain, win, []header{{Package: "rt", Unusable: true}, {Package: "libonly", Unusable: true}, {Package: "absent"}}},
		{"no header packages", Toolchain{Compiler: "cc"}, x86, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []header
			for _, h := range New(ix, tt.tc).Headers(cuda, tt.target) {
				g := header{Package: h.Package, Unusable: h.Unusable}
				if h.Archive != nil {
					g.Archive = h.Archive.Name
				}
				got = append(got, g)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Headers(%s) (-want +got):\n%s", tt.target.Name(), d)
			}
		})
	}
}
