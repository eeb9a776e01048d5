// Package emittest holds the package sets the emitters' golden tests share
// (core/bazel, core/buck2): two CUDA versions with a runtime, a compiler, a
// library with a versioned name that is unusable on Jetson, and a product
// no plugin described, on a ppc64le target; a product from wheels; and the tests every emitter runs
// on them (Emitter, over a format's emit.Format), on the golden harness of internal/golden.
package emittest

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudapkgs/cudapkgs/core/buildfile"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/golden"
)

// Config evaluates a configuration of these CUDA versions and targets.
func Config(t *testing.T, cudas, targets []string) *config.Config {
	t.Helper()
	var rel []version.Version
	for _, c := range cudas {
		rel = append(rel, version.MustParse(c))
	}
	cfg, err := config.Evaluate(config.Available{Toolkit: "cuda", Releases: map[string][]version.Version{"cuda": rel}},
		config.Defaults{}, config.Literal{From: "test", Options: config.Options{CUDA: cudas, Targets: targets}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const nv = "https://developer.download.nvidia.com/compute/"

func archive(product, name, key, ver, variant, sha string) pkgset.Archive {
	base := name + "-" + key + "-" + ver
	if variant != "" {
		base += "_" + variant
	}
	base += "-archive"
	rel := name + "/" + key + "/" + base + ".tar.xz"
	return pkgset.Archive{Key: key, Variant: variant, SHA256: sha, StripPrefix: base, RelativePath: rel,
		URLs: []string{"https://mirror.example.com/" + product + "/redist/" + rel, nv + product + "/redist/" + rel}}
}

func sha(s string) string { return strings.Repeat(s, 64/len(s)) }

func libFiles(lib, major string, extra ...pkgset.File) []pkgset.File {
	return append([]pkgset.File{
		{Path: "include", Kind: "headers", Role: "target"},
		{Path: "lib/" + lib + ".so." + major, Kind: "shared_lib", Role: "target", SONAME: lib + ".so." + major},
		{Path: "lib/" + lib + "_static.a", Kind: "static_lib", Role: "target"},
	}, extra...)
}

func cudart(cuda, ver, shaPrefix string) *pkgset.Package {
	p := &pkgset.Package{Name: "cuda_cudart", Product: "cuda", Manifest: "cuda_cudart",
		Release: version.MustParse(cuda), Version: version.MustParse(ver), Role: "target",
		Platforms: map[string]pkgset.Archive{}, Files: map[string][]pkgset.File{}}
	for i, pl := range []struct{ name, key string }{{"linux-x86_64", "linux-x86_64"}, {"linux-sbsa", "linux-sbsa"}, {"linux-jetson", "linux-aarch64"}} {
		p.Platforms[pl.name] = archive("cuda", "cuda_cudart", pl.key, ver, "", sha(shaPrefix+string(rune('a'+i))))
		p.Files[pl.name] = libFiles("libcudart", "12", pkgset.File{Path: "lib/stubs/libcuda.so", Kind: "stub_lib", Role: "target"})
	}
	return p
}

func cudnn(name string, cuda string, jetsonReason string) *pkgset.Package {
	p := &pkgset.Package{Name: name, Product: "cudnn", Manifest: "cudnn",
		Release: version.MustParse("8.9.7"), Version: version.MustParse("8.9.7.29"), Role: "target",
		Platforms: map[string]pkgset.Archive{
			"linux-x86_64": archive("cudnn", "cudnn", "linux-x86_64", "8.9.7.29", "cuda12", sha("d1")),
			"linux-sbsa":   archive("cudnn", "cudnn", "linux-sbsa", "8.9.7.29", "cuda12", sha("d2")),
		},
		Unavailable: map[string][]string{},
		Files:       map[string][]pkgset.File{},
		// A linked edge and one loaded at run time.
		Deps: []pkgset.Dep{{Name: "libcublas"}, {Name: "cuda_nvrtc", Runtime: true}},
	}
	for pl := range p.Platforms {
		p.Files[pl] = libFiles("libcudnn", "8",
			pkgset.File{Path: "lib/libcudnn_ops_infer.so.8", Kind: "shared_lib", Role: "target", SONAME: "libcudnn_ops_infer.so.8"},
			pkgset.File{Path: "include/cudnn_version.h", Kind: "headers", Role: "target"})
	}
	if jetsonReason != "" {
		p.Unavailable["linux-jetson"] = []string{jetsonReason, "cuDNN 8.9.7 has no linux-aarch64 archive for CUDA " + cuda}
	}
	return p
}

func nvcc(cuda string) *pkgset.Package {
	return &pkgset.Package{Name: "cuda_nvcc", Product: "cuda", Manifest: "cuda_nvcc",
		Release: version.MustParse(cuda), Version: version.MustParse(cuda), Role: "exec",
		Platforms: map[string]pkgset.Archive{
			"linux-x86_64": archive("cuda", "cuda_nvcc", "linux-x86_64", cuda, "", sha("e"+cuda[len(cuda)-1:])),
		},
		Unavailable: map[string][]string{"linux-sbsa": {"the test set has no sbsa nvcc"}},
		Files: map[string][]pkgset.File{"linux-x86_64": {
			{Path: "bin/nvcc", Kind: "binary", Role: "exec"},
			{Path: "bin/ptxas", Kind: "binary", Role: "exec"},
			{Path: "include", Kind: "headers", Role: "target"},
			{Path: "nvvm/libdevice/libdevice.10.bc", Kind: "data", Role: "exec"},
		}},
	}
}

// Case is one golden case: a configuration and its package sets.
type Case struct {
	Name    string
	CUDAs   []string
	Targets []string
	Sets    func() []*pkgset.Set
}

// Cases are the golden cases, in a fresh copy.
func Cases() []Case {
	return []Case{
		{
			// Two CUDA versions; cuDNN's cuda12 archive serves both (one
			// package); cudnn_8_9 is a versioned name only 12.4.1 has; cuDNN
			// is unusable on Jetson; nvcc only serves x86_64.
			Name: "two-versions", CUDAs: []string{"12.4.1", "12.6.3"},
			Targets: []string{"linux-x86_64", "linux-sbsa", "linux-jetson"},
			Sets: func() []*pkgset.Set {
				return []*pkgset.Set{
					{CUDA: version.MustParse("12.6.3"), Packages: []*pkgset.Package{
						cudart("12.6.3", "12.6.77", "b"), cudnn("cudnn", "12.6.3", "no Jetson build for this CUDA"), nvcc("12.6.3")}},
					{CUDA: version.MustParse("12.4.1"), Packages: []*pkgset.Package{
						cudart("12.4.1", "12.4.127", "a"), cudnn("cudnn", "12.4.1", "no Jetson build for this CUDA"), cudnn("cudnn_8_9", "12.4.1", ""), nvcc("12.4.1")}},
				}
			},
		},
		{
			// A product no plugin described (no Files), and a ppc64le target
			// (a CPU the prelude has no constraint for).
			Name: "unfixed-ppc64le", CUDAs: []string{"12.4.1"}, Targets: []string{"linux-x86_64", "linux-ppc64le"},
			Sets: func() []*pkgset.Set {
				return []*pkgset.Set{{CUDA: version.MustParse("12.4.1"), Packages: []*pkgset.Package{{
					Name: "mylib", Product: "mylib", Manifest: "mylib", Version: version.MustParse("1.2.3"),
					Platforms: map[string]pkgset.Archive{
						"linux-x86_64":  archive("mylib", "mylib", "linux-x86_64", "1.2.3", "", sha("f1")),
						"linux-ppc64le": archive("mylib", "mylib", "linux-ppc64le", "1.2.3", "", sha("f2")),
					}}}}}
			},
		},
		{
			// cuDSS from a Python package index (docs/wheels.md): its
			// archives are wheels, unpacked as zips and stripped of the
			// wheel's prefix, with no static library, so its static link
			// set fails with the reason; cudart is NVIDIA's, unchanged.
			Name: "wheel", CUDAs: []string{"12.6.3"}, Targets: []string{"linux-x86_64", "linux-sbsa"},
			Sets: func() []*pkgset.Set {
				cudss := &pkgset.Package{Name: "libcudss", Product: "cudss", Manifest: "libcudss",
					Release: version.MustParse("0.8.0.10"), Version: version.MustParse("0.8.0.10"), Role: "target",
					Platforms: map[string]pkgset.Archive{
						"linux-x86_64": wheel("cudss", "x86_64", sha("c1")),
						"linux-sbsa":   wheel("cudss", "aarch64", sha("c2")),
					},
					Files: map[string][]pkgset.File{}, Deps: []pkgset.Dep{{Name: "cuda_cudart"}}}
				for pl := range cudss.Platforms {
					cudss.Files[pl] = []pkgset.File{
						{Path: "include", Kind: "headers", Role: "target"},
						{Path: "lib/libcudss.so.0", Kind: "shared_lib", Role: "target", SONAME: "libcudss.so.0"},
					}
				}
				rt := cudart("12.6.3", "12.6.77", "b")
				delete(rt.Platforms, "linux-jetson")
				delete(rt.Files, "linux-jetson")
				return []*pkgset.Set{{CUDA: version.MustParse("12.6.3"), Packages: []*pkgset.Package{rt, cudss}}}
			},
		},
	}
}

// wheel is a product's CUDA 12 wheel as `manifests fetch` makes its
// archive from an index's page: the file's own URL, unpacked as a zip.
func wheel(product, arch, sha string) pkgset.Archive {
	key := map[string]string{"x86_64": "linux-x86_64", "aarch64": "linux-sbsa"}[arch]
	file := "nvidia_" + product + "_cu12-0.8.0.10-py3-none-manylinux_2_17_" + arch + ".whl"
	return pkgset.Archive{Key: key, Variant: "cuda12", SHA256: sha, StripPrefix: "nvidia/cu12", Type: "zip",
		RelativePath: "nvidia-" + product + "-cu12/" + file,
		URLs:         []string{"https://files.pythonhosted.org/packages/00/11/" + file}}
}

// Emitter is a format under test, for the tests every format shares.
type Emitter struct {
	// Format is the format's declaration; its Generate writes the tree of
	// a case's configuration and sets with Options, its Lint checks it.
	Format  emit.Format
	Options emit.Options
	// Copies maps a path of the tree to the repository file (relative to
	// the test's folder) it is a copy of, after CopyPrefix. testdata keeps
	// no second copy of these: the test holds each to its source instead,
	// so a copy bug still fails and the rule sources are stored once. The
	// source is read from disk, not from the emitter's embedded bytes, so
	// that an embed of the wrong file fails too.
	Copies     map[string]string
	CopyPrefix string
}

func (e Emitter) generate(t *testing.T, c Case) buildfile.Tree {
	t.Helper()
	tree, err := e.Format.Generate(Config(t, c.CUDAs, c.Targets), c.Sets(), e.Options)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestGolden holds each case's tree to testdata/golden/<case> (refreshed
// with -update), and the copies to their sources.
func (e Emitter) TestGolden(t *testing.T) {
	for _, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			tree := e.generate(t, c)
			written := maps.Clone(tree)
			for p, src := range e.Copies {
				want, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				got, ok := tree[p]
				if !ok {
					t.Errorf("%s: not written (a copy of %s)", p, src)
					continue
				}
				golden.Equal(t, p, append([]byte(e.CopyPrefix), want...), got)
				delete(written, p)
			}
			golden.Dir(t, filepath.Join("testdata", "golden", c.Name), written)
		})
	}
}

// TestDeterministic: generating a case again gives the same bytes.
func (e Emitter) TestDeterministic(t *testing.T) {
	for _, c := range Cases() {
		cfg := Config(t, c.CUDAs, c.Targets)
		a, err := e.Format.Generate(cfg, c.Sets(), e.Options)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			b, err := e.Format.Generate(cfg, c.Sets(), e.Options)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(a, b); d != "" {
				t.Fatalf("%s: run %d differs:\n%s", c.Name, i, d)
			}
		}
	}
}

// TestLint: every case's tree passes the emitter's lint.
func (e Emitter) TestLint(t *testing.T) {
	for _, c := range Cases() {
		for _, p := range e.Format.Lint(e.generate(t, c)) {
			t.Errorf("%s: %s", c.Name, p)
		}
	}
}
