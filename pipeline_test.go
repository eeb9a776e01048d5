package cudapkgs_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

// TestMain serves a built-in plugin when the pipeline started this test
// binary as one (Inputs.Builtins left nil: BuiltinSpecs), as a program
// embedding cudapkgs does.
func TestMain(m *testing.M) {
	if cudapkgs.ServeBuiltin(os.Args[1:]) {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Example runs the whole generation in one call: the manifests (the
// built-in snapshot) and a configuration in, a Bazel repository out; then
// again, which finds it up to date.
func Example() {
	ctx := context.Background()
	ws, err := os.MkdirTemp("", "workspace")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(ws)

	job := cudapkgs.Job{
		Inputs: cudapkgs.Inputs{
			// The snapshot of NVIDIA's manifests built into cudapkgs alone, so
			// that what this prints does not depend on the download cache
			// (left zero, Sources are the cache merged over the snapshot).
			Sources:   []cudapkgs.ManifestSource{{Name: cudapkgs.SourceSnapshot, FS: snapshot.FS}},
			Workspace: ws, // no cudapkgs.star there: defaults and the layer below
			Layers: []config.Layer{config.Literal{From: "example", Options: config.Options{
				CUDA:    []string{"12.4.1"},
				Targets: []string{"linux-x86_64"},
			}}},
		},
		Out: filepath.Join(ws, "third_party", "cuda"),
	}
	res, err := cudapkgs.Generate(ctx, job)
	if err != nil {
		panic(err)
	}
	fmt.Println("up to date:", res.UpToDate, "files written:", res.Written > 0)
	hub, err := os.ReadFile(filepath.Join(job.Out, "BUILD.bazel"))
	if err != nil {
		panic(err)
	}
	for _, target := range []string{"libcublas", "cudnn", "libcudss", "cuda_nvcc"} {
		fmt.Printf("@cuda//:%s %v\n", target, strings.Contains(string(hub), fmt.Sprintf("name = %q", target)))
	}
	// Nothing changed: the stamp says so, and no plugin starts.
	if res, err = cudapkgs.Generate(ctx, job); err != nil {
		panic(err)
	}
	fmt.Println("up to date:", res.UpToDate)
	// Output:
	// up to date: false files written: true
	// @cuda//:libcublas true
	// @cuda//:cudnn true
	// @cuda//:libcudss true
	// @cuda//:cuda_nvcc true
	// up to date: true
}

const acmeManifest = `{
  "release_date": "2026-01-01",
  "release_label": "1.0.0",
  "release_product": "acme",
  "libacme": {
    "name": "Acme solver",
    "license": "Acme",
    "version": "1.0.0.7",
    "cuda_variant": ["12"],
    "linux-x86_64": {
      "cuda12": {
        "relative_path": "libacme/linux-x86_64/libacme-linux-x86_64-1.0.0.7_cuda12-archive.tar.xz",
        "sha256": "%s",
        "md5": "00000000000000000000000000000000",
        "size": "1024"
      }
    }
  }
}`

// TestThirdPartyProduct: a plugin this program does not ship adds a
// product the way a built-in does, by its Describe answer, and the product
// is in the sets and in the hub, its archives under the plugin's base.
func TestThirdPartyProduct(t *testing.T) {
	dir := t.TempDir()
	manifests := filepath.Join(dir, "manifests")
	for _, d := range []string{"cuda", "acme"} {
		if err := os.MkdirAll(filepath.Join(manifests, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cuda, err := os.ReadFile(filepath.Join(shared.Manifests(t), "cuda", "redistrib_12.4.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(manifests, "cuda", "redistrib_12.4.1.json"), string(cuda))
	writeFile(t, filepath.Join(manifests, "acme", "redistrib_1.0.0.json"), fmt.Sprintf(acmeManifest, strings.Repeat("ab", 32)))
	plugin := filepath.Join(dir, "acme-plugin")
	if out, err := exec.Command("go", "build", "-o", plugin, "github.com/cudapkgs/cudapkgs/integration/testplugin").CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	// testplugin takes its mode and products as arguments; a wrapper gives
	// them, and it is the wrapper whose sha256 is declared.
	wrapper := filepath.Join(dir, "acme")
	writeFile(t, wrapper, "#!/bin/sh\nexec "+plugin+" product acme\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in := cudapkgs.Inputs{
		Manifests: manifests,
		Workspace: dir,
		Layers: []config.Layer{config.Literal{From: "test", Options: config.Options{
			CUDA: []string{"12.4.1"}, Targets: []string{"linux-x86_64"}, Plugins: []string{wrapper + "=" + sum(t, wrapper)},
		}}},
	}
	run, err := cudapkgs.Evaluate(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	var names []string
	for _, p := range run.Products {
		names = append(names, p.Name)
	}
	// The toolkit, then acme among the built-ins by name.
	want := []string{"acme"}
	for _, f := range builtin.Fixers() {
		for _, p := range f.Describe().Products {
			if p != "cuda" {
				want = append(want, p)
			}
		}
	}
	slices.Sort(want)
	if got, want := strings.Join(names, " "), "cuda "+strings.Join(want, " "); got != want {
		t.Errorf("products = %s, want %s", got, want)
	}
	sets, err := run.Sets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := sets[0].Releases["acme"]; got.String() != "1.0.0" {
		t.Errorf("acme release = %v", got)
	}
	out := filepath.Join(dir, "out")
	if _, err := cudapkgs.Generate(ctx, cudapkgs.Job{Inputs: in, Out: out}); err != nil {
		t.Fatal(err)
	}
	gen := readFile(t, filepath.Join(out, "generated.bzl"))
	if !strings.Contains(gen, "https://acme.example/pub/acme/libacme/linux-x86_64/libacme-linux-x86_64-1.0.0.7_cuda12-archive.tar.xz") {
		t.Errorf("generated.bzl has no acme archive under the plugin's base:\n%s", gen)
	}
	if !strings.Contains(readFile(t, filepath.Join(out, "BUILD.bazel")), `name = "libacme"`) {
		t.Error("the hub has no @cuda//:libacme")
	}
}

// TestBlame: an option the file set last is blamed on the file, with the
// position of the entry at fault; the same mistake in a caller's layer is a
// *ConfigError, which a command line reports as a usage error.
func TestBlame(t *testing.T) {
	manifests := shared.Manifests(t)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "cudapkgs.star"), "cuda_versions([\"12.4.1\"])\npin(\"cudnn\", \"8.9\")\npin(\"cudnn\", \"1.2\")\n")
	eval := func(layers ...config.Layer) error {
		r, err := cudapkgs.Evaluate(context.Background(), cudapkgs.Inputs{Manifests: manifests, Workspace: ws, Layers: layers})
		if err == nil {
			r.Close()
		}
		return err
	}
	err := eval()
	var ce *cudapkgs.ConfigError
	if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), "cudapkgs.star:3:") || !strings.Contains(err.Error(), `pin: "cudnn=1.2"`) {
		t.Errorf("the file's pin: error = %v, want it blamed on cudapkgs.star:3", err)
	}
	err = eval(config.Literal{From: "flags", Options: config.Options{Pins: []string{"cudnn=9.12"}, CUDA: []string{"99.1"}}})
	if !errors.As(err, &ce) || strings.Contains(err.Error(), "cudapkgs.star") || !strings.Contains(err.Error(), "option cuda: no CUDA release 99.1") {
		t.Errorf("the layer's CUDA version: error = %v, want a *ConfigError", err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestPluginStartTimeout: PluginTimeout bounds a plugin's start as well as
// its calls; a plugin that hangs at start is named by its declared path.
func TestPluginStartTimeout(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "testplugin")
	if out, err := exec.Command("go", "build", "-o", plugin, "github.com/cudapkgs/cudapkgs/integration/testplugin").CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	wrapper := filepath.Join(dir, "hangs")
	writeFile(t, wrapper, "#!/bin/sh\nexec "+plugin+" hangstart acme\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	// No built-ins (an empty list, not nil): the hanging plugin is the only
	// one to start.
	_, err := cudapkgs.Evaluate(context.Background(), cudapkgs.Inputs{
		Builtins:  []fixup.Spec{},
		Manifests: shared.Manifests(t),
		Workspace: dir,
		Layers: []config.Layer{config.Literal{From: "test", Options: config.Options{
			CUDA: []string{"12.4.1"}, Targets: []string{"linux-x86_64"}, Plugins: []string{wrapper + "=" + sum(t, wrapper)},
		}}},
		PluginTimeout: 300 * time.Millisecond,
	})
	var te *fixup.TimeoutError
	if !errors.As(err, &te) || te.Limit != 300*time.Millisecond || !te.Start {
		t.Fatalf("error = %v", err)
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	if want := "plugin hangs (" + wrapper + "): start: did not start within 300ms (it hangs at start or is too slow)"; first != want {
		t.Errorf("error:\n got %s\nwant %s", first, want)
	}
}
