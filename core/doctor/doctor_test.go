package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofrs/flock"

	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// fake writes an executable shell script named name into dir.
func fake(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// macrosOf is what a compiler of that family and major prints for -dM -E.
func macrosOf(family string, major string) string {
	if family == "clang" {
		return "echo '#define __GNUC__ 4'; echo '#define __clang_major__ " + major + "'; echo '#define __clang__ 1'"
	}
	return "echo '#define __GNUC__ " + major + "'; echo '#define __GNUC_MINOR__ 2'"
}

func one(t *testing.T, fs []Finding, substr string) Finding {
	t.Helper()
	var hit []Finding
	for _, f := range fs {
		if strings.Contains(f.Summary, substr) {
			hit = append(hit, f)
		}
	}
	if len(hit) != 1 {
		t.Fatalf("%d findings with %q in %+v", len(hit), substr, fs)
	}
	return hit[0]
}

func env(path string, vars map[string]string) Env {
	return Env{Path: path, Getenv: func(k string) string { return vars[k] }}
}

func TestHostCompilersOverTheTable(t *testing.T) {
	bin := t.TempDir()
	fake(t, bin, "gcc-16", macrosOf("gcc", "16"))
	fake(t, bin, "gcc-13", macrosOf("gcc", "13"))
	fake(t, bin, "clang-18", macrosOf("clang", "18"))
	fake(t, bin, "gcc-4", macrosOf("gcc", "4"))
	fake(t, bin, "clang-tidy", "echo not a compiler") // not a name nvcc takes
	fake(t, bin, "g++-weird", "exit 1")               // nor this
	fake(t, bin, "g++", "echo nothing known")         // a compiler that names no family
	if err := os.Symlink("gcc-16", filepath.Join(bin, "gcc")); err != nil {
		t.Fatal(err)
	}
	fs := HostCompilers(context.Background(), env(bin, nil))
	if len(fs) != 5 {
		t.Fatalf("%d findings: %+v", len(fs), fs)
	}
	f := one(t, fs, "gcc 16")
	if f.Status != OK || !strings.Contains(f.Summary, "/gcc (also gcc-16), the C++ toolchain's compiler (Bazel's default, CC not set): gcc 16, accepted by nvcc of CUDA 13.4 to ") {
		t.Errorf("%+v", f)
	}
	if f := one(t, fs, "gcc 13"); f.Status != OK || !strings.HasSuffix(f.Summary, "accepted by nvcc of CUDA 12.4 to 13.5") {
		t.Errorf("%+v", f)
	}
	if f := one(t, fs, "clang 18"); f.Status != OK || !strings.Contains(f.Summary, "accepted by nvcc of CUDA 12.6 to 13.5") {
		t.Errorf("%+v", f)
	}
	if f := one(t, fs, "gcc 4"); f.Status != Warn || !strings.Contains(f.Summary, "which no nvcc in cudapkgs' table accepts") || !strings.Contains(f.Fix, "install g++-") {
		t.Errorf("%+v", f)
	}
	if f := one(t, fs, "no version"); f.Status != Info || !strings.Contains(f.Summary, "/g++: no version") {
		t.Errorf("%+v", f)
	}
}

func TestHostCompilersAgainstCUDA(t *testing.T) {
	bin := t.TempDir()
	fake(t, bin, "gcc", macrosOf("gcc", "16"))
	e := env(bin, nil)
	e.CUDA = []version.Version{version.MustParse("12.6.3"), version.MustParse("13.5")}
	// The default compiler is too new for 12.6 and nothing else is there:
	// a warning, with what to install.
	f := one(t, HostCompilers(context.Background(), e), "gcc 16")
	if f.Status != Warn || !strings.Contains(f.Summary, "gcc 16 is not supported by nvcc from CUDA 12.6.3: supported gcc 6 to 13") ||
		!strings.Contains(f.Fix, "CUDA 12.6.3: nvcc of CUDA 12.6 accepts gcc 6 to 13: install g++-13") {
		t.Errorf("%+v", f)
	}
	// A g++-13 on PATH: the generated repositories give nvcc that one.
	fake(t, bin, "g++-13", macrosOf("gcc", "13"))
	fs := HostCompilers(context.Background(), e)
	f = one(t, fs, "gcc 16")
	if f.Status != Info || f.Fix != "" || !strings.Contains(f.Summary, "for CUDA 12.6.3 nvcc gets "+filepath.Join(bin, "g++-13")+" instead") {
		t.Errorf("%+v", f)
	}
	if f := one(t, fs, "gcc 13"); f.Status != OK || !strings.HasSuffix(f.Summary, "accepted by nvcc of CUDA 12.6.3, 13.5") {
		t.Errorf("%+v", f)
	}
	// $CC names the default.
	e.Getenv = func(k string) string { return map[string]string{"CC": filepath.Join(bin, "g++-13")}[k] }
	if f := one(t, HostCompilers(context.Background(), e), "gcc 13"); !strings.Contains(f.Summary, "the C++ toolchain's compiler (from CC)") {
		t.Errorf("%+v", f)
	}
	// None at all.
	fs = HostCompilers(context.Background(), env(t.TempDir(), nil))
	if len(fs) != 1 || fs[0].Status != Warn || !strings.Contains(fs[0].Summary, "no gcc, g++, clang or clang++ on PATH") {
		t.Errorf("%+v", fs)
	}
}

func TestGlibc(t *testing.T) {
	for _, tc := range []struct {
		getconf string
		cuda    []string
		want    []string // status: summary substring
	}{
		{"echo glibc 2.36", nil, []string{"ok: glibc 2.36: older than 2.41"}},
		{"echo glibc 2.41", nil, []string{"info: glibc 2.41: glibc 2.41 and newer declare sinpi and cospi"}},
		{"echo glibc 2.43", []string{"11.4.4", "12.4.1", "13.0.2"}, []string{
			"warn: glibc 2.43 with CUDA 11.4.4: glibc 2.41 and newer declare",
			"ok: glibc 2.43 with CUDA 12.4.1: the generated repositories patch crt/math_functions.h",
			"ok: glibc 2.43 with CUDA 13.0.2: its headers know"}},
		{"echo 'getconf: Unrecognized variable' >&2; exit 1", nil, []string{"info: no glibc version (getconf GNU_LIBC_VERSION: exit status 1: getconf: Unrecognized variable)"}},
		{"", nil, []string{"info: no glibc version (getconf GNU_LIBC_VERSION: getconf: not found on PATH)"}},
	} {
		t.Run(tc.getconf, func(t *testing.T) {
			bin := t.TempDir()
			if tc.getconf != "" {
				fake(t, bin, "getconf", `[ "$1" = GNU_LIBC_VERSION ] || exit 2; `+tc.getconf)
			}
			e := env(bin, nil) // the fake getconf, not the host's
			for _, c := range tc.cuda {
				e.CUDA = append(e.CUDA, version.MustParse(c))
			}
			fs := Glibc(context.Background(), e)
			if len(fs) != len(tc.want) {
				t.Fatalf("%+v", fs)
			}
			for i, w := range tc.want {
				if got := string(fs[i].Status) + ": " + fs[i].Summary; !strings.HasPrefix(got, w) {
					t.Errorf("got %q, want %q…", got, w)
				}
			}
		})
	}
}

func TestBazel(t *testing.T) {
	ctx := context.Background()
	bin := t.TempDir()
	// None.
	if f := Bazel(ctx, env(bin, nil))[0]; f.Status != Warn || !strings.Contains(f.Summary, "no bazel or bazelisk on PATH") || f.Fix == "" {
		t.Errorf("%+v", f)
	}
	for _, tc := range []struct{ out, want string }{
		{"bazel 7.7.1", "ok: " + filepath.Join(bin, "bazel") + ": bazel 7.7.1: bzlmod"},
		{"bazel 8.4.2", "ok: "},
		{"bazel 6.5.0", "warn: " + filepath.Join(bin, "bazel") + ": bazel 6.5.0: WORKSPACE only"},
		{"bazel 3.7.2", "warn: " + filepath.Join(bin, "bazel") + ": bazel 3.7.2: older than"},
		{"bazel no_version", "info: " + filepath.Join(bin, "bazel") + `: "bazel no_version", a build without a version`},
	} {
		fake(t, bin, "bazel", `[ "$1" = --version ] || exit 2; echo "`+tc.out+`"`)
		if f := Bazel(ctx, env(bin, nil))[0]; !strings.HasPrefix(string(f.Status)+": "+f.Summary, tc.want) {
			t.Errorf("%s: got %s: %s", tc.out, f.Status, f.Summary)
		}
	}
	// Bazelisk is not run: its version comes from USE_BAZEL_VERSION or .bazelversion.
	bin = t.TempDir()
	fake(t, bin, "bazelisk", "echo ran >> "+filepath.Join(bin, "ran")+"; exit 1")
	if err := os.Symlink("bazelisk", filepath.Join(bin, "bazel")); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	e := env(bin, nil)
	e.Workspace = ws
	if f := Bazel(ctx, e)[0]; f.Status != Info || !strings.Contains(f.Summary, "downloads the newest Bazel") {
		t.Errorf("%+v", f)
	}
	if err := os.WriteFile(filepath.Join(ws, ".bazelversion"), []byte("7.4.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := Bazel(ctx, e)[0]; f.Status != OK || !strings.Contains(f.Summary, "is Bazelisk: Bazel 7.4.1 from "+filepath.Join(ws, ".bazelversion")) {
		t.Errorf("%+v", f)
	}
	e.Getenv = func(k string) string { return map[string]string{"USE_BAZEL_VERSION": "6.1.0"}[k] }
	if f := Bazel(ctx, e)[0]; f.Status != Warn || !strings.Contains(f.Summary, "Bazel 6.1.0 from $USE_BAZEL_VERSION") {
		t.Errorf("%+v", f)
	}
	if _, err := os.Stat(filepath.Join(bin, "ran")); err == nil {
		t.Error("Bazelisk was run")
	}
}

func TestCache(t *testing.T) {
	ws, cache := t.TempDir(), filepath.Join(t.TempDir(), "manifests")
	e := Env{Workspace: ws, CacheDir: cache}
	// Nothing yet.
	fs := Cache(e)
	if len(fs) != 2 || !strings.Contains(fs[0].Summary, "no download cache yet") || !strings.Contains(fs[0].Fix, "cudapkgs manifests fetch") ||
		!strings.Contains(fs[1].Summary, "cudapkgs.lock: none") {
		t.Fatalf("%+v", fs)
	}
	// Two manifests, locked.
	data := map[string][]byte{"cuda/redistrib_12.4.1.json": []byte(`{"release_date": "2024-04-01"}`), "cudnn/redistrib_9.1.0.json": []byte(`{}`)}
	lock := source.NewLock(filepath.Join(ws, source.LockFileName))
	for key, b := range data {
		p := filepath.Join(cache, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		lock.Manifests[key] = source.EntryFor(b)
	}
	if err := lock.Write(); err != nil {
		t.Fatal(err)
	}
	fs = Cache(e)
	if len(fs) != 2 || fs[0].Status != OK || !strings.HasSuffix(fs[0].Summary, ": 2 manifests (cuda 1, cudnn 1)") ||
		fs[1].Status != OK || !strings.HasSuffix(fs[1].Summary, "cudapkgs.lock: 2 manifests pinned, the cache matches") {
		t.Fatalf("%+v", fs)
	}
	// A manifest changed under the lock.
	if err := os.WriteFile(filepath.Join(cache, "cudnn", "redistrib_9.1.0.json"), []byte(`{"x": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f := Cache(e)[1]
	if f.Status != Warn || !strings.Contains(f.Summary, "the cache does not match it (1 match, 1 problems): cudnn/redistrib_9.1.0.json: ") || !strings.Contains(f.Fix, "--update-lock") {
		t.Errorf("%+v", f)
	}
	// A fetch holds the cache's lock.
	fl := flock.New(filepath.Join(cache, source.CacheLockName))
	if ok, err := fl.TryLock(); err != nil || !ok {
		t.Fatal(ok, err)
	}
	defer fl.Unlock()
	// flock locks are per open file: another open of the file sees it held.
	fs = Cache(e)
	if f := one(t, fs, "is held"); f.Status != Info {
		t.Errorf("%+v", f)
	}
	// A lock file that does not parse.
	if err := os.WriteFile(filepath.Join(ws, source.LockFileName), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := Cache(e)[2]; f.Status != Warn || !strings.Contains(f.Fix, "cudapkgs manifests fetch writes a new one") {
		t.Errorf("%+v", f)
	}
}
