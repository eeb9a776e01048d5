package redist

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
	"github.com/cudapkgs/cudapkgs/plugins/sdk/sdktest"
)

// fx holds the products this package's batches are built with.
var fx = fixuptest.New(New())

var allTargets = []string{linuxX86, linuxSBSA, linuxJetson, linuxPPC, windows, windowsARM}

// fixed is a batch and the plugin's answer to it, by package name.
type fixed struct {
	batch *sdk.Batch
	res   map[string]sdk.PackageResult
}

var (
	fixedMu    sync.Mutex
	fixedCache = map[string]fixed{}
)

// fix builds the real batch of a CUDA release for every target and runs the
// plugin on it (once per release per test binary).
func fix(t *testing.T, cuda string) fixed {
	t.Helper()
	fixedMu.Lock()
	defer fixedMu.Unlock()
	if f, ok := fixedCache[cuda]; ok {
		return f
	}
	b := fx.Batch(t, Product, cuda, allTargets)
	r, err := New().Fixup(context.Background(), b)
	if err != nil {
		t.Fatalf("Fixup(CUDA %s): %v", cuda, err)
	}
	f := fixed{batch: b, res: map[string]sdk.PackageResult{}}
	for _, p := range r.Packages {
		f.res[p.Name] = p
	}
	fixedCache[cuda] = f
	return f
}

func (f fixed) pkg(t *testing.T, name string) sdk.PackageResult {
	t.Helper()
	p, ok := f.res[name]
	if !ok {
		t.Fatalf("CUDA %s: no answer for %s", f.batch.CUDA, name)
	}
	return p
}

func (f fixed) files(t *testing.T, name, platform string) []sdk.File {
	t.Helper()
	pr, ok := f.pkg(t, name).Platforms[platform]
	if !ok {
		t.Fatalf("CUDA %s: %s has no answer for %s", f.batch.CUDA, name, platform)
	}
	if len(pr.Unusable) > 0 {
		t.Fatalf("CUDA %s: %s unusable on %s: %v", f.batch.CUDA, name, platform, pr.Unusable)
	}
	return pr.Files
}

// releases lists the CUDA releases that have a redistrib manifest.
func releases(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(shared.Manifests(t), "cuda")
	ms, err := filepath.Glob(filepath.Join(dir, "redistrib_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rs []string
	for _, m := range ms {
		rs = append(rs, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), "redistrib_"), ".json"))
	}
	if len(rs) < 33 {
		t.Fatalf("found %d CUDA manifests in %s, want at least 33", len(rs), dir)
	}
	return rs
}

func TestDescribe(t *testing.T) {
	d := New().Describe()
	if d.Name != "redist" || !cmp.Equal(d.Products, []string{"cuda"}) {
		t.Errorf("Describe() = %+v, want name redist for product cuda", d)
	}
}

// TestManifestNamesKnown reads every CUDA manifest directly: each package
// name must have a row in the table.
func TestManifestNamesKnown(t *testing.T) {
	dir := filepath.Join(shared.Manifests(t), "cuda")
	seen := map[string]bool{}
	for _, r := range releases(t) {
		raw, err := os.ReadFile(filepath.Join(dir, "redistrib_"+r+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		for name, v := range m {
			if !strings.HasPrefix(strings.TrimSpace(string(v)), "{") {
				continue // release_date, release_label, release_product
			}
			seen[name] = true
			if _, ok := table[name]; !ok {
				t.Errorf("CUDA %s: package %s is not in the redist plugin's table", r, name)
			}
		}
	}
	for name := range table {
		if !seen[name] {
			t.Errorf("table row %s matches no package of any CUDA manifest", name)
		}
	}
}

var pathRE = regexp.MustCompile(`^[A-Za-z0-9_.+/-]+$`)

// TestEveryRelease runs the plugin on the real batch of every CUDA release
// for every target and checks the answer's shape.
func TestEveryRelease(t *testing.T) {
	for _, r := range releases(t) {
		t.Run(r, func(t *testing.T) {
			f := fix(t, r)
			cuda, err := parseVer(f.batch.CUDA)
			if err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			for _, sp := range f.batch.SetPackages {
				if sp.Product == Product {
					set[sp.Manifest] = true
				}
			}
			if len(f.res) != len(f.batch.Packages) {
				t.Errorf("%d answers for %d packages", len(f.res), len(f.batch.Packages))
			}
			for _, p := range f.batch.Packages {
				pr := f.pkg(t, p.Name)
				if _, ok := table[p.Manifest]; !ok {
					t.Errorf("%s %s is unknown to the table", p.Manifest, p.Version)
				}
				for _, a := range p.Archives {
					pl, ok := pr.Platforms[a.Platform]
					switch {
					case !ok:
						t.Errorf("%s: no answer for %s, which has an archive", p.Name, a.Platform)
					case len(pl.Unusable) == 0 && len(pl.Files) == 0:
						t.Errorf("%s: usable on %s with no files", p.Name, a.Platform)
					case isWindows(a.Platform) && !slices.Contains(pl.Unusable, reasonWindows):
						t.Errorf("%s: %s not marked unsupported: %v", p.Name, a.Platform, pl.Unusable)
					}
				}
				for plat, pl := range pr.Platforms {
					if len(pl.Unusable) > 0 && len(pl.Files) > 0 {
						t.Errorf("%s on %s: both unusable and files", p.Name, plat)
					}
					for _, reason := range pl.Unusable {
						if strings.Contains(reason, "{") || strings.Contains(reason, "does not know") {
							t.Errorf("%s on %s: bad reason %q", p.Name, plat, reason)
						}
					}
					checkFiles(t, p.Name+" on "+plat, pl.Files)
				}
				for _, d := range pr.Deps {
					next, renamed := successor(d.Package, cuda)
					if !set[d.Package] && !(renamed && set[next]) {
						t.Errorf("%s depends on %s, which CUDA %s does not have", p.Name, d.Package, r)
					}
					if d.Package == p.Manifest {
						t.Errorf("%s depends on itself", p.Name)
					}
					if !within(cuda, d.Since, d.Until) {
						t.Errorf("%s -> %s returned outside its bounds %q..%q", p.Name, d.Package, d.Since, d.Until)
					}
				}
			}
		})
	}
}

func checkFiles(t *testing.T, where string, fs []sdk.File) {
	t.Helper()
	seen := map[string]bool{}
	for _, f := range fs {
		switch {
		case !pathRE.MatchString(f.Path):
			t.Errorf("%s: path %q has characters outside [A-Za-z0-9_.+/-]", where, f.Path)
		case strings.HasPrefix(f.Path, "/") || strings.HasSuffix(f.Path, "/"):
			t.Errorf("%s: path %q is not relative", where, f.Path)
		case path.Clean(f.Path) != f.Path || strings.Contains(f.Path, ".."):
			t.Errorf("%s: path %q is not clean or escapes", where, f.Path)
		}
		if seen[f.Path] {
			t.Errorf("%s: %s listed twice", where, f.Path)
		}
		seen[f.Path] = true
		if !slices.Contains([]string{string(sdk.Exec), string(sdk.Target)}, string(f.Role)) {
			t.Errorf("%s: %s has role %q", where, f.Path, f.Role)
		}
		kindOK := false
		for _, k := range sdk.Kinds() {
			kindOK = kindOK || k == f.Kind
		}
		if !kindOK {
			t.Errorf("%s: %s has kind %q", where, f.Path, f.Kind)
		}
		if f.Kind == sdk.SharedLib {
			if f.SONAME == "" || f.SONAME != path.Base(f.Path) || !strings.Contains(f.SONAME, ".so") {
				t.Errorf("%s: shared library %s has SONAME %q", where, f.Path, f.SONAME)
			}
		} else if f.SONAME != "" {
			t.Errorf("%s: %s (%s) has a SONAME", where, f.Path, f.Kind)
		}
		if f.Kind == sdk.StaticLib && !strings.HasSuffix(f.Path, ".a") {
			t.Errorf("%s: static library %s is not a .a", where, f.Path)
		}
	}
}

// depNames are the edges of the default link and run time; the static link
// set's own edges are TestStaticLinkSets'.
func depNames(pr sdk.PackageResult) []string {
	var ns []string
	for _, d := range pr.Deps {
		if !d.Static {
			ns = append(ns, d.Package)
		}
	}
	sort.Strings(ns)
	return ns
}

func TestDeps(t *testing.T) {
	for _, tc := range []struct {
		cuda, pkg string
		want      []string
	}{
		{"11.8.0", "libcusolver", []string{"cuda_cudart", "libcublas"}},
		{"12.0.0", "libcusolver", []string{"cuda_cudart", "libcublas", "libnvjitlink"}},
		{"12.1.0", "libcusolver", []string{"cuda_cudart", "libcublas", "libcusparse", "libnvjitlink"}},
		{"12.4.1", "libcusolver", []string{"cuda_cudart", "libcublas", "libcusparse", "libnvjitlink"}},
		{"13.0.0", "libcusolver", []string{"cuda_cudart", "libcublas", "libcusparse", "libnvjitlink"}},
		{"11.8.0", "libcusparse", []string{"cuda_cudart"}},
		{"12.0.0", "libcusparse", []string{"cuda_cudart", "libnvjitlink"}},
		{"12.6.3", "libcusparse", []string{"cuda_cudart", "libnvjitlink"}},
		{"12.9.0", "libcusparse", []string{"cuda_cudart", "libnvjitlink"}},
		// Through 12.x cudart's headers include the crt headers of
		// cuda_nvcc (a headers-only edge).
		{"11.4.2", "cuda_cudart", []string{"cuda_cccl", "cuda_nvcc"}},
		{"12.4.1", "cuda_cudart", []string{"cuda_cccl", "cuda_nvcc"}},
		{"13.0.0", "cuda_cudart", []string{"cuda_cccl", "cuda_crt"}},
		// The edge keeps the old name; the host follows the declared rename
		// to cccl (core/fixup, and testdata/script/rename.txtar).
		{"13.3.0", "cuda_cudart", []string{"cuda_cccl", "cuda_crt"}},
		{"13.3.0", "libcuobjclient", []string{"libcufile"}},
		{"12.9.0", "cuda_nvcc", nil},
		{"13.0.0", "cuda_nvcc", []string{"cuda_crt", "libnvvm"}},
		// The math libraries' headers include cudart's: an edge to it.
		{"11.8.0", "libcublas", []string{"cuda_cudart"}},
		{"12.0.1", "libcublas", []string{"cuda_cudart", "cuda_nvrtc"}},
		{"12.2.0", "libcublas", []string{"cuda_cudart"}},
		{"13.0.0", "libcublas", []string{"cuda_cudart"}},
		{"12.4.1", "cuda_nvrtc", nil},
		{"12.4.1", "libnpp", []string{"cuda_cudart"}},
		{"12.4.1", "libcufft", []string{"cuda_cudart"}},
		{"12.4.1", "libcurand", []string{"cuda_cudart"}},
		{"12.4.1", "cuda_cupti", nil},
		{"12.4.1", "libnvjpeg", []string{"cuda_cudart"}},
		{"12.4.1", "cuda_sanitizer_api", nil},
		{"12.4.1", "cuda_nvprof", []string{"cuda_cupti"}},
	} {
		f := fix(t, tc.cuda)
		if diff := cmp.Diff(tc.want, depNames(f.pkg(t, tc.pkg))); diff != "" {
			t.Errorf("CUDA %s %s deps (-want +got):\n%s", tc.cuda, tc.pkg, diff)
		}
	}

	// The edges say why they hold.
	for _, d := range fix(t, "12.4.1").pkg(t, "libcusolver").Deps {
		if d.Static {
			continue
		}
		want := map[string]string{"cuda_cudart": "", "libcublas": "", "libnvjitlink": "12.0", "libcusparse": "12.1"}[d.Package]
		if d.Since != want || d.Runtime {
			t.Errorf("libcusolver -> %s: since %q runtime %v, want since %q, linked", d.Package, d.Since, d.Runtime, want)
		}
	}
	for _, d := range fix(t, "12.0.1").pkg(t, "libcublas").Deps {
		if d.Static || d.Package == "cuda_cudart" {
			continue
		}
		if !d.Runtime || d.Since != "12.0" || d.Until != "12.1" {
			t.Errorf("libcublas -> %s: %+v, want a runtime edge for 12.0 to 12.1", d.Package, d)
		}
	}
	for _, d := range fix(t, "12.4.1").pkg(t, "cuda_nvprof").Deps {
		if !cmp.Equal(d.Platforms, []string{linuxX86, linuxPPC}) {
			t.Errorf("cuda_nvprof -> %s on %v, want linux-x86_64 and linux-ppc64le (sbsa's archive is headers only)", d.Package, d.Platforms)
		}
	}
}

func TestForwardCompat(t *testing.T) {
	b := fx.Batch(t, Product, "12.4.1", allTargets)
	b.Config.ForwardCompat = true
	r, err := New().Fixup(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Packages {
		if p.Name != "cuda_cudart" {
			continue
		}
		want := []sdk.Dep{
			{Package: "cuda_cccl"},
			{Package: "cuda_nvcc", Until: "12", Headers: true},
			{Package: "cuda_compat", Runtime: true, Since: "11.8", Until: "12", Platforms: []string{linuxJetson}},
		}
		if diff := cmp.Diff(want, p.Deps); diff != "" {
			t.Errorf("cuda_cudart deps with forward compatibility (-want +got):\n%s", diff)
		}
	}
}

func has(fs []sdk.File, p string) (sdk.File, bool) {
	for _, f := range fs {
		if f.Path == p {
			return f, true
		}
	}
	return sdk.File{}, false
}

func TestRoles(t *testing.T) {
	f := fix(t, "12.4.1")
	nvcc := f.files(t, "cuda_nvcc", linuxX86)
	if r := sdk.RoleOf(nvcc); r != sdk.Both {
		t.Errorf("cuda_nvcc role %q, want both", r)
	}
	for p, want := range map[string]sdk.Role{
		"bin/nvcc": sdk.Exec, "bin/ptxas": sdk.Exec, "bin/fatbinary": sdk.Exec, "bin/nvlink": sdk.Exec,
		"bin/bin2c": sdk.Exec, "bin/cudafe++": sdk.Exec, "nvvm/bin/cicc": sdk.Exec, "nvvm/libdevice": sdk.Exec,
		"include": sdk.Target, "lib/libnvptxcompiler_static.a": sdk.Target,
	} {
		if got, ok := has(nvcc, p); !ok || got.Role != want {
			t.Errorf("cuda_nvcc %s: %+v (listed %v), want role %s", p, got, ok, want)
		}
	}
	for name, want := range map[string]sdk.Role{
		"libcublas": sdk.Target, "cuda_cudart": sdk.Target, "cuda_nvdisasm": sdk.Exec, "cuda_cuobjdump": sdk.Exec,
		"cuda_nvprune": sdk.Exec, "cuda_cuxxfilt": sdk.Both, "cuda_gdb": sdk.Target, "cuda_cccl": sdk.Target,
	} {
		if got := sdk.RoleOf(f.files(t, name, linuxX86)); got != want {
			t.Errorf("%s role %q, want %q", name, got, want)
		}
	}
	f13 := fix(t, "13.0.0")
	if got := sdk.RoleOf(f13.files(t, "cuda_nvcc", linuxX86)); got != sdk.Exec {
		t.Errorf("cuda_nvcc 13.0 role %q, want exec (its headers moved to cuda_crt)", got)
	}
	if got := sdk.RoleOf(f13.files(t, "libnvvm", linuxSBSA)); got != sdk.Both {
		t.Errorf("libnvvm role %q, want both (cicc and libdevice exec, libnvvm.so target)", got)
	}
}

func TestFiles(t *testing.T) {
	type lib struct{ path, soname string }
	for _, tc := range []struct {
		cuda, pkg, platform string
		want                []lib // each must be listed, with this SONAME ("" for non-shared)
		absent              []string
	}{
		{"12.4.1", "libcublas", linuxX86, []lib{
			{"lib/libcublas.so.12", "libcublas.so.12"}, {"lib/libcublasLt.so.12", "libcublasLt.so.12"},
			{"lib/libcublas_static.a", ""}, {"lib/stubs/libcublas.so", ""}, {"include", ""}}, nil},
		{"11.8.0", "libcublas", linuxJetson, []lib{{"lib/libcublas.so.11", "libcublas.so.11"}}, nil},
		{"12.4.1", "libcufft", linuxSBSA, []lib{{"lib/libcufft.so.11", "libcufft.so.11"}, {"lib/libcufftw.so.11", "libcufftw.so.11"}}, nil},
		{"11.8.0", "libcufft", linuxX86, []lib{{"lib/libcufft.so.10", "libcufft.so.10"}}, nil},
		{"13.0.0", "libcufft", linuxX86, []lib{{"lib/libcufft.so.12", "libcufft.so.12"}}, []string{"lib/libcufft_static_nocallback.a"}},
		{"12.4.1", "libcusparse", linuxX86, []lib{{"lib/libcusparse.so.12", "libcusparse.so.12"}}, nil},
		{"12.4.1", "libcurand", linuxX86, []lib{{"lib/libcurand.so.10", "libcurand.so.10"}}, nil},
		{"12.4.1", "libcusolver", linuxX86, []lib{{"lib/libcusolver.so.11", "libcusolver.so.11"}, {"lib/libcusolver_lapack_static.a", ""}}, []string{"lib/liblapack_static.a"}},
		{"12.4.1", "libnpp", linuxX86, []lib{{"lib/libnppc.so.12", "libnppc.so.12"}, {"lib/libnpps.so.12", "libnpps.so.12"}, {"lib/libnppig_static.a", ""}}, nil},
		{"11.4.2", "cuda_cudart", linuxX86, []lib{{"lib/libcudart.so.11.0", "libcudart.so.11.0"}, {"lib/libculibos.a", ""}, {"lib/stubs/libcuda.so", ""}}, nil},
		{"12.4.1", "cuda_cudart", linuxX86, []lib{{"lib/libcudart.so.12", "libcudart.so.12"}}, nil},
		{"13.0.0", "cuda_cudart", linuxX86, []lib{{"lib/libcudart.so.13", "libcudart.so.13"}}, []string{"lib/libculibos.a"}},
		{"13.0.0", "cuda_culibos", linuxSBSA, []lib{{"lib/libculibos.a", ""}}, nil},
		{"11.8.0", "cuda_nvrtc", linuxX86, []lib{{"lib/libnvrtc.so.11.2", "libnvrtc.so.11.2"}, {"lib/libnvrtc-builtins.so.11.8", "libnvrtc-builtins.so.11.8"}}, nil},
		{"11.4.2", "cuda_nvrtc", linuxX86, nil, []string{"lib/libnvrtc_static.a"}},
		{"12.4.1", "cuda_nvrtc", linuxX86, []lib{{"lib/libnvrtc.so.12", "libnvrtc.so.12"}, {"lib/libnvrtc-builtins.so.12.4", "libnvrtc-builtins.so.12.4"}, {"lib/libnvrtc_static.a", ""}}, nil},
		{"13.0.0", "cuda_nvrtc", linuxX86, []lib{{"lib/libnvrtc.so.13", "libnvrtc.so.13"}, {"lib/libnvrtc-builtins.so.13.0", "libnvrtc-builtins.so.13.0"}}, nil},
		{"12.4.1", "libnvjitlink", linuxX86, []lib{{"lib/libnvJitLink.so.12", "libnvJitLink.so.12"}}, nil},
		{"12.4.1", "libcufile", linuxX86, []lib{{"lib/libcufile.so.0", "libcufile.so.0"}, {"lib/libcufile_rdma.so.1", "libcufile_rdma.so.1"}}, nil},
		{"12.4.1", "libnvjpeg", linuxX86, []lib{{"lib/libnvjpeg.so.12", "libnvjpeg.so.12"}}, nil},
		{"11.8.0", "cuda_cupti", linuxX86, []lib{{"lib/libcupti.so.11.8", "libcupti.so.11.8"}, {"lib/libcupti_static.a", ""}}, nil},
		{"12.4.1", "cuda_cupti", linuxSBSA, []lib{{"lib/libcupti.so.12", "libcupti.so.12"}, {"lib/libnvperf_host.so", "libnvperf_host.so"}}, []string{"lib/libcupti_static.a"}},
		// Static CUPTI ships for sbsa from 12.6.
		{"12.6.3", "cuda_cupti", linuxSBSA, []lib{{"lib/libcupti_static.a", ""}}, nil},
		{"13.0.0", "cuda_cupti", linuxSBSA, []lib{{"lib/libcupti_static.a", ""}}, nil},
		{"12.4.1", "cuda_nvcc", linuxX86, []lib{{"bin/nvcc", ""}, {"nvvm/bin/cicc", ""}, {"nvvm/libdevice", ""}, {"nvvm/lib64/libnvvm.so.4", "libnvvm.so.4"}, {"include", ""}}, nil},
		{"13.0.0", "cuda_nvcc", linuxX86, []lib{{"bin/nvcc", ""}, {"bin/ptxas", ""}}, []string{"nvvm/bin/cicc", "include", "lib/libnvptxcompiler_static.a"}},
		{"13.0.0", "libnvvm", linuxX86, []lib{{"nvvm/bin/cicc", ""}, {"nvvm/libdevice", ""}, {"nvvm/lib64/libnvvm.so.4", "libnvvm.so.4"}}, nil},
		{"13.0.0", "libnvptxcompiler", linuxX86, []lib{{"lib/libnvptxcompiler_static.a", ""}}, nil},
		{"13.0.0", "cuda_crt", linuxX86, []lib{{"include", ""}}, nil},
		{"12.9.0", "cuda_cccl", linuxX86, []lib{{"include", ""}}, []string{"include/cccl"}},
		{"13.0.0", "cuda_cccl", linuxX86, []lib{{"include/cccl", ""}}, []string{"include"}},
		{"12.8.1", "cuda_nvtx", linuxX86, []lib{{"lib/libnvToolsExt.so.1", "libnvToolsExt.so.1"}}, []string{"lib/libnvtx3interop.so.1"}},
		// NVIDIA removed libnvToolsExt in 12.9 (pytorch/pytorch#152756).
		{"12.9.0", "cuda_nvtx", linuxX86, []lib{{"lib/libnvtx3interop.so.1", "libnvtx3interop.so.1"}}, []string{"lib/libnvToolsExt.so.1"}},
		{"12.4.1", "cuda_cupti", linuxX86, []lib{{"lib/libpcsamplingutil.so", "libpcsamplingutil.so"}, {"lib/libcheckpoint.so", "libcheckpoint.so"}}, nil},
		{"12.9.0", "cuda_nvrtc", linuxX86, []lib{{"lib/libnvrtc.alt.so.12", ""}, {"lib/libnvrtc-builtins.alt.so.12.9", ""}}, []string{"lib/libnvrtc-builtins.alt.so.12.8"}},
		{"13.0.0", "cuda_nvtx", linuxX86, []lib{{"lib/libnvtx3interop.so.1", "libnvtx3interop.so.1"}}, []string{"lib/libnvToolsExt.so.1"}},
		{"12.2.2", "cuda_nvprof", linuxX86, []lib{{"bin/nvprof", ""}, {"lib/libcuinj64.so.12.2", "libcuinj64.so.12.2"}}, []string{"include"}},
		{"11.6.2", "cuda_nvprof", linuxX86, []lib{{"include", ""}, {"lib/libaccinj64.so.11.6", "libaccinj64.so.11.6"}}, nil},
		{"11.7.1", "cuda_nvprof", linuxSBSA, []lib{{"include", ""}}, []string{"bin/nvprof"}},
		{"12.4.1", "cuda_compat", linuxJetson, []lib{{"compat/libcuda.so.1", "libcuda.so.1"}}, nil},
		{"12.4.1", "libcudla", linuxJetson, []lib{{"lib/libcudla.so.1", "libcudla.so.1"}}, nil},
		{"13.3.0", "libcudla", linuxJetson, []lib{{"lib/libcudla.so.1", "libcudla.so.1"}}, nil},
		{"13.3.0", "cccl", linuxX86, []lib{{"include/cccl", ""}}, []string{"include"}},
		{"13.3.0", "cuda_tileiras", linuxSBSA, []lib{{"bin/tileiras", ""}}, nil},
		{"13.3.0", "libcuobjclient", linuxX86, []lib{{"lib/libcuobjclient.so.1", "libcuobjclient.so.1"}, {"include", ""}}, nil},
		{"13.3.0", "cuda_compat", linuxX86, []lib{{"compat/libcuda.so.1", "libcuda.so.1"}}, nil},
		{"13.3.0", "cuda_compat", linuxSBSA, []lib{{"compat/libcuda.so.1", "libcuda.so.1"}}, nil},
		{"13.3.0", "cuda_compat_orin", linuxJetson, []lib{{"compat/libcuda.so.1", "libcuda.so.1"}}, nil},
	} {
		fs := fixedFiles(t, tc.cuda, tc.pkg, tc.platform)
		for _, w := range tc.want {
			got, ok := has(fs, w.path)
			if !ok {
				t.Errorf("CUDA %s %s on %s: %s not listed (have %v)", tc.cuda, tc.pkg, tc.platform, w.path, paths(fs))
				continue
			}
			if got.SONAME != w.soname {
				t.Errorf("CUDA %s %s: %s has SONAME %q, want %q", tc.cuda, tc.pkg, w.path, got.SONAME, w.soname)
			}
		}
		for _, a := range tc.absent {
			if _, ok := has(fs, a); ok {
				t.Errorf("CUDA %s %s on %s: %s listed, want it absent", tc.cuda, tc.pkg, tc.platform, a)
			}
		}
	}
}

func fixedFiles(t *testing.T, cuda, name, platform string) []sdk.File {
	t.Helper()
	return fix(t, cuda).files(t, name, platform)
}

func paths(fs []sdk.File) []string {
	var ps []string
	for _, f := range fs {
		ps = append(ps, f.Path)
	}
	return ps
}

func unusableOn(t *testing.T, f fixed, name, platform string) []string {
	t.Helper()
	return f.pkg(t, name).Platforms[platform].Unusable
}

func TestUnusable(t *testing.T) {
	for _, r := range []string{"11.4.2", "12.4.1", "13.0.0"} {
		f := fix(t, r)
		for _, plat := range allTargets {
			want := "use the system driver: nvidia_driver is part of the NVIDIA driver, which must match the kernel module installed on the machine that runs the binary"
			if got := unusableOn(t, f, "nvidia_driver", plat); !slices.Contains(got, want) {
				t.Errorf("CUDA %s nvidia_driver on %s: %q, want %q", r, plat, got, want)
			}
			for _, sys := range []string{"fabricmanager", "nvidia_fs"} {
				if len(unusableOn(t, f, sys, plat)) == 0 {
					t.Errorf("CUDA %s %s usable on %s", r, sys, plat)
				}
			}
		}
	}
	f := fix(t, "12.4.1")
	if got := unusableOn(t, f, "cuda_compat", linuxJetson); len(got) > 0 {
		t.Errorf("cuda_compat unusable on Jetson: %v", got)
	}
	got := unusableOn(t, f, "cuda_compat", linuxX86)
	if len(got) != 1 || !strings.Contains(got[0], "forward-compatibility libraries for Jetson") ||
		!strings.Contains(got[0], "on other platforms the driver provides them") {
		t.Errorf("cuda_compat on linux-x86_64: %q, want the Jetson-only reason", got)
	}
	for _, name := range []string{"cuda_documentation", "nsight_vse", "visual_studio_integration"} {
		found := false
		for _, r := range unusableOn(t, f, name, windows) {
			found = found || strings.HasPrefix(r, "not a build input")
		}
		if !found {
			t.Errorf("%s not marked as not a build input", name)
		}
	}
	if got := unusableOn(t, f, "libcublas", windows); !cmp.Equal(got, []string{reasonWindows}) {
		t.Errorf("libcublas on Windows: %q", got)
	}
	// Windows on Arm (from CUDA 13.4) is Windows like any other.
	if got := unusableOn(t, fix(t, "13.4.1"), "libcublas", windowsARM); !cmp.Equal(got, []string{reasonWindows}) {
		t.Errorf("libcublas 13.4.1 on windows-arm64: %q", got)
	}
	// A platform without an archive keeps the host's reasons: the plugin adds
	// nothing for an ordinary package there.
	if _, ok := fix(t, "11.4.2").pkg(t, "libcublas").Platforms[linuxJetson]; ok {
		t.Errorf("libcublas 11.4.2 has an answer for linux-jetson, which has no archive")
	}
}

// TestNVBLASNotLinked: NVBLAS rebinds the CPU BLAS symbols of whatever links
// it, so cuBLAS's default link (its shared libraries) must not hold it; it
// is there as data, for who asks for it.
func TestNVBLASNotLinked(t *testing.T) {
	for _, tc := range []struct{ cuda, nvblas string }{
		{"11.8.0", "lib/libnvblas.so.11"}, {"12.4.1", "lib/libnvblas.so.12"}, {"13.0.0", "lib/libnvblas.so.13"},
	} {
		fs := fixedFiles(t, tc.cuda, "libcublas", linuxX86)
		for _, f := range fs {
			if f.Kind == sdk.SharedLib && strings.Contains(f.Path, "nvblas") {
				t.Errorf("CUDA %s libcublas links %s", tc.cuda, f.Path)
			}
		}
		if f, ok := has(fs, tc.nvblas); !ok || f.Kind != sdk.Data || f.Role != sdk.Target {
			t.Errorf("CUDA %s libcublas: %s is %+v (listed %v), want target data", tc.cuda, tc.nvblas, f, ok)
		}
	}
}

// TestJetsonOnly: what only a Jetson (or DRIVE) SoC can use is unusable
// elsewhere, also where CUDA 13's linux-sbsa archive serves both; from 13.1
// cuda_compat is the data-center driver's and the other way round.
func TestJetsonOnly(t *testing.T) {
	for _, tc := range []struct {
		cuda, pkg string
		usable    []string
		unusable  map[string]string // platform: a part of the reason
	}{
		{"12.4.1", "cuda_compat", []string{linuxJetson}, map[string]string{linuxX86: "for Jetson (L4T)"}},
		{"12.9.0", "libcudla", []string{linuxJetson}, nil},
		{"13.3.0", "cuda_compat", []string{linuxX86, linuxSBSA}, map[string]string{linuxJetson: "data-center driver"}},
		{"13.3.0", "cuda_compat_orin", []string{linuxJetson}, map[string]string{linuxSBSA: "Jetson Orin"}},
		{"13.3.0", "libcudla", []string{linuxJetson}, map[string]string{linuxSBSA: "deep-learning accelerator"}},
	} {
		f := fix(t, tc.cuda)
		for _, pl := range tc.usable {
			if got := unusableOn(t, f, tc.pkg, pl); len(got) > 0 {
				t.Errorf("CUDA %s %s unusable on %s: %q", tc.cuda, tc.pkg, pl, got)
			}
		}
		for pl, want := range tc.unusable {
			got := unusableOn(t, f, tc.pkg, pl)
			if len(got) == 0 || !strings.Contains(strings.Join(got, "; "), want) {
				t.Errorf("CUDA %s %s on %s: %q, want a reason with %q", tc.cuda, tc.pkg, pl, got, want)
			}
		}
	}

}

// TestCompatOrinForOrinOnly: from CUDA 13.2 linux-jetson is Orin (8.7) and
// Thor (11.0), both through linux-sbsa archives; cuda_compat_orin is Orin's
// alone. A build for Thor only cannot use it, and cuda_cudart's
// forward-compatibility edge to it exists only for a build for Orin alone (a
// binary that may run on Thor must not load Orin's libcuda).
func TestCompatOrinForOrinOnly(t *testing.T) {
	for _, tc := range []struct {
		cuda      string
		caps      []string // Jetson capabilities named; none: the defaults (8.7 and 11.0 from 13.2)
		usable    bool
		edges     []string // cuda_cudart's runtime edges with forward compatibility
		reasonHas string
	}{
		{"13.3.0", []string{"8.7"}, true, []string{"cuda_compat on linux-x86_64,linux-sbsa", "cuda_compat_orin on linux-jetson"}, ""},
		// 13.4.1's manifest has no cuda_compat.
		{"13.4.1", []string{"8.7"}, true, []string{"cuda_compat_orin on linux-jetson"}, ""},
		{"13.3.0", []string{"11.0"}, false, []string{"cuda_compat on linux-x86_64,linux-sbsa"}, "Jetson Orin (capability 8.7)"},
		{"13.4.1", []string{"11.0a"}, false, nil, "Thor is capability 11.0"},
		{"13.3.0", []string{"8.7", "11.0"}, true, []string{"cuda_compat on linux-x86_64,linux-sbsa"}, ""},
		{"13.3.0", nil, true, []string{"cuda_compat on linux-x86_64,linux-sbsa"}, ""},
	} {
		b := fx.Batch(t, Product, tc.cuda, allTargets, tc.caps...)
		b.Config.ForwardCompat = true
		r, err := New().Fixup(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		name := tc.cuda + " " + strings.Join(b.Config.Capabilities[linuxJetson], ",")
		for _, p := range r.Packages {
			switch p.Name {
			case "cuda_cudart":
				var got []string
				for _, d := range p.Deps {
					if d.Runtime {
						got = append(got, d.Package+" on "+strings.Join(d.Platforms, ","))
					}
				}
				if diff := cmp.Diff(tc.edges, got); diff != "" {
					t.Errorf("CUDA %s: cuda_cudart forward-compatibility edges (-want +got):\n%s", name, diff)
				}
			case "cuda_compat_orin":
				pr, ok := p.Platforms[linuxJetson]
				switch {
				case !ok:
					t.Errorf("CUDA %s: cuda_compat_orin has no answer for linux-jetson", name)
				case tc.usable && (len(pr.Unusable) > 0 || len(pr.Files) == 0):
					t.Errorf("CUDA %s: cuda_compat_orin on linux-jetson %+v, want usable with files", name, pr)
				case !tc.usable && (len(pr.Unusable) != 1 || !strings.Contains(pr.Unusable[0], tc.reasonHas)):
					t.Errorf("CUDA %s: cuda_compat_orin on linux-jetson reasons %q, want one with %q", name, pr.Unusable, tc.reasonHas)
				}
			}
		}
	}
}

func TestUnknownPackage(t *testing.T) {
	b := &sdk.Batch{CUDA: "13.1.0", Product: Product, Config: sdk.Config{Targets: []string{linuxX86, linuxSBSA}},
		Packages: []sdk.Package{{Name: "cuda_futurepkg", Manifest: "cuda_futurepkg", Product: Product, Release: "13.1.0", Version: "13.1.80",
			Archives:    []sdk.Archive{{Platform: linuxX86, Key: linuxX86}},
			Unavailable: map[string][]string{linuxSBSA: {"no sbsa archive"}}}}}
	r, err := New().Fixup(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Packages[0]
	if got := p.Platforms[linuxX86]; !got.Generic || len(got.Unusable) != 0 || len(got.Files) != 0 {
		t.Errorf("unknown package on linux-x86_64: %+v, want generic", got)
	}
	if _, ok := p.Platforms[linuxSBSA]; ok {
		t.Errorf("unknown package answered for a platform without archive: %+v", p.Platforms[linuxSBSA])
	}
	if len(p.Deps) != 0 {
		t.Errorf("unknown package has deps %v", p.Deps)
	}
}

func TestBadBatch(t *testing.T) {
	ctx := context.Background()
	if _, err := New().Fixup(ctx, &sdk.Batch{CUDA: "12.4.1", Product: "cudnn"}); err == nil {
		t.Error("a cudnn batch was accepted")
	}
	if _, err := New().Fixup(ctx, &sdk.Batch{CUDA: "twelve", Product: Product}); err == nil {
		t.Error("a bad CUDA version was accepted")
	}
	b := &sdk.Batch{CUDA: "12.4.1", Product: Product, Packages: []sdk.Package{{Name: "libcublas", Manifest: "libcublas", Version: "x"}}}
	if _, err := New().Fixup(ctx, b); err == nil || !strings.Contains(err.Error(), "libcublas") {
		t.Errorf("a bad package version: %v, want an error naming the package", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := New().Fixup(cancelled, fix(t, "12.4.1").batch); err == nil {
		t.Error("a cancelled context was ignored")
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		v, since, until string
		want            bool
	}{
		{"12.0.0", "12.0", "", true},
		{"11.8.0", "12.0", "", false},
		{"12.9.1", "", "12", true},
		{"13.0.0", "", "12", false},
		{"12.1.1", "12.0", "12.1", true},
		{"12.2.0", "12.0", "12.1", false},
		{"11.7.1", "", "11.7", true},
		{"11.8", "", "11.7", false},
		{"12", "12.0", "", true},
	} {
		v, err := parseVer(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := within(v, tc.since, tc.until); got != tc.want {
			t.Errorf("%s within %q..%q = %v, want %v", tc.v, tc.since, tc.until, got, tc.want)
		}
	}
	for _, bad := range []string{"", "12.x", "1..2", "-1"} {
		if _, err := parseVer(bad); err == nil {
			t.Errorf("parseVer(%q) accepted", bad)
		}
	}
}

// TestDepsFitTheBatch: the host refuses an edge limited to a platform that is
// not a target, and an edge to a package the set does not have.
func TestDepsFitTheBatch(t *testing.T) {
	ctx := context.Background()
	depsOf := func(b *sdk.Batch, name string) []sdk.Dep {
		t.Helper()
		r, err := New().Fixup(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Packages {
			if p.Name == name {
				return p.Deps
			}
		}
		t.Fatalf("no answer for %s", name)
		return nil
	}

	b := fx.Batch(t, Product, "12.4.1", []string{linuxX86, linuxSBSA})
	b.Config.ForwardCompat = true
	if diff := cmp.Diff([]sdk.Dep{{Package: "cuda_cupti", Platforms: []string{linuxX86}}}, depsOf(b, "cuda_nvprof")); diff != "" {
		t.Errorf("cuda_nvprof deps without ppc64le (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sdk.Dep{{Package: "cuda_cccl"}, {Package: "cuda_nvcc", Until: "12", Headers: true}}, depsOf(b, "cuda_cudart")); diff != "" {
		t.Errorf("cuda_cudart deps with forward compatibility but no Jetson target (-want +got):\n%s", diff)
	}
	for _, p := range fix(t, "12.4.1").res {
		for plat := range p.Platforms {
			if !slices.Contains(allTargets, plat) {
				t.Errorf("%s answered for %s, not a target", p.Name, plat)
			}
		}
	}

	b = fx.Batch(t, Product, "12.4.1", []string{linuxX86})
	var kept []sdk.SetPackage
	for _, sp := range b.SetPackages {
		if sp.Manifest != "libnvjitlink" {
			kept = append(kept, sp)
		}
	}
	b.SetPackages = kept
	if diff := cmp.Diff([]string{"cuda_cudart", "libcublas", "libcusparse"}, depNames(sdk.PackageResult{Deps: depsOf(b, "libcusolver")})); diff != "" {
		t.Errorf("libcusolver deps in a set without libnvjitlink (-want +got):\n%s", diff)
	}
}

// TestOverGRPC: the answer survives the plugin protocol unchanged.
func TestOverGRPC(t *testing.T) {
	c := sdktest.Run(t, New())
	d, err := c.Describe(context.Background())
	if err != nil || d.Name != "redist" || !cmp.Equal(d.Products, []string{Product}) {
		t.Fatalf("Describe over gRPC: %+v, %v", d, err)
	}
	for _, r := range []string{"11.8.0", "13.0.0"} {
		f := fix(t, r)
		got, err := c.Fixup(context.Background(), f.batch)
		if err != nil {
			t.Fatalf("Fixup(CUDA %s) over gRPC: %v", r, err)
		}
		want, err := New().Fixup(context.Background(), f.batch)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("CUDA %s over gRPC (-in process +gRPC):\n%s", r, diff)
		}
	}
}

// Every declared rename names two packages the table knows, and NVIDIA's
// manifests agree: from Since on the new name is there and the old is not.
func TestRenamesMatchTheManifests(t *testing.T) {
	rs := New().Describe().Renames
	if len(rs) == 0 {
		t.Fatal("no renames declared; CUDA 13.3 renamed cuda_cccl to cccl")
	}
	manifests := fixuptest.Manifests(t, Product)
	for _, r := range rs {
		if _, ok := table[r.Package]; !ok {
			t.Errorf("rename to %s: not in the table", r.Package)
		}
		if _, ok := table[r.Replaces]; !ok {
			t.Errorf("rename of %s: not in the table", r.Replaces)
		}
		since := sdk.MustVersion(r.Since)
		for f, top := range manifests {
			release := sdk.MustVersion(strings.TrimSuffix(strings.TrimPrefix(f, "redistrib_"), ".json"))
			_, hasNew := top[r.Package]
			_, hasOld := top[r.Replaces]
			if after := !release.Less(since); after && (!hasNew || hasOld) || !after && hasNew {
				t.Errorf("CUDA %s: %s present %v, %s present %v, against the rename since %s", release, r.Package, hasNew, r.Replaces, hasOld, r.Since)
			}
		}
	}
}

// Static link sets carry what NVIDIA's static link lines need beyond the
// package's own archives: culibos and the system libraries for static
// cudart, the PTX compiler
// library for static NVRTC.
func TestStaticLinkSets(t *testing.T) {
	static := func(pr sdk.PackageResult) []string {
		var ns []string
		for _, d := range pr.Deps {
			if d.Static {
				ns = append(ns, d.Package)
			}
		}
		sort.Strings(ns)
		return ns
	}
	sys := linuxStaticSystemLibs()
	for _, tc := range []struct {
		cuda, pkg string
		deps      []string
		linkopts  []string
	}{
		{"12.4.1", "cuda_cudart", nil, sys},
		{"13.0.0", "cuda_cudart", []string{"cuda_culibos"}, sys},
		{"13.0.0", "cuda_culibos", nil, sys},
		{"12.4.1", "cuda_nvrtc", []string{"cuda_nvcc"}, nil},
		{"13.0.0", "cuda_nvrtc", []string{"libnvptxcompiler"}, nil},
		{"12.4.1", "libcublas", nil, nil},   // the static runtime through its regular cudart edge
		{"13.0.0", "libcufft", nil, nil},    // the static runtime through its regular cudart edge
		{"12.4.1", "libcurand", nil, nil},   // the static runtime through its regular cudart edge
		{"12.4.1", "libcusolver", nil, nil}, // the static runtime through its regular cudart edge
		{"12.4.1", "libcusparse", nil, nil}, // the static runtime through its regular cudart edge
		{"12.4.1", "libnpp", nil, nil},      // the static runtime through its regular cudart edge
		{"12.4.1", "libnvjpeg", nil, nil},   // the static runtime through its regular cudart edge
	} {
		pr := fix(t, tc.cuda).pkg(t, tc.pkg)
		if diff := cmp.Diff(tc.deps, static(pr)); diff != "" {
			t.Errorf("CUDA %s %s static edges (-want +got):\n%s", tc.cuda, tc.pkg, diff)
		}
		if diff := cmp.Diff(tc.linkopts, pr.StaticLinkopts); diff != "" {
			t.Errorf("CUDA %s %s static link options (-want +got):\n%s", tc.cuda, tc.pkg, diff)
		}
	}
}

// isWindows: no Windows archive's layout is described yet, whatever its CPU.
func isWindows(target string) bool { return strings.HasPrefix(target, "windows-") }

// successor is the package that replaces name in CUDA cuda, if renamed.
func successor(name string, cuda ver) (string, bool) {
	for _, r := range renames() {
		if r.Replaces == name && within(cuda, r.Since, "") {
			return r.Package, true
		}
	}
	return "", false
}
