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
	"strings"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/outdir"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

// TestMain serves a built-in plugin when the pipeline started this test
// binary as one (builtinSpecs), as a program embedding cudapkgs would.
func TestMain(m *testing.M) {
	if os.Getenv(sdk.Handshake().MagicCookieKey) != "" && len(os.Args) == 3 && os.Args[1] == "serve" {
		if f, ok := builtin.Plugins()[os.Args[2]]; ok {
			sdk.Serve(f())
			os.Exit(0)
		}
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// builtinSpecs start every built-in plugin as this program again.
func builtinSpecs() []fixup.Spec {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	var specs []fixup.Spec
	for _, n := range builtin.Names() {
		specs = append(specs, fixup.Spec{Name: n, Command: []string{exe, "serve", n}, Builtin: true})
	}
	return specs
}

// Example runs the whole generation from library calls: the manifests (the
// built-in snapshot) and a configuration in, a Bazel repository out.
func Example() {
	ctx := context.Background()
	out, err := os.MkdirTemp("", "cuda-hub")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(out)

	run, err := cudapkgs.Evaluate(ctx, cudapkgs.Inputs{
		// The snapshot of NVIDIA's manifests built into cudapkgs; a folder
		// would be Manifests: "path/to/manifests".
		Sources:   []cudapkgs.ManifestSource{{Name: "snapshot", FS: snapshot.FS}},
		Workspace: out, // no cudapkgs.star there: defaults and the layer below
		Layers: []config.Layer{config.Literal{From: "example", Options: config.Options{
			CUDA:    []string{"12.4.1"},
			Targets: []string{"linux-x86_64"},
		}}},
		Builtins: builtinSpecs(),
	})
	if err != nil {
		panic(err)
	}
	defer run.Close()
	sets, err := run.Sets(ctx)
	if err != nil {
		panic(err)
	}
	tree, _, err := run.Generate(sets, cudapkgs.Bazel, "cuda")
	if err != nil {
		panic(err)
	}
	if _, err := outdir.Write(ctx, filepath.Join(out, "cuda"), tree, outdir.Options{}); err != nil {
		panic(err)
	}
	fmt.Println("toolkit:", run.Toolkit.Product, "compiler:", run.Toolkit.Toolchain.Compiler)
	fmt.Println("CUDA", sets[0].CUDA, "releases:", sets[0].Releases["cudnn"], sets[0].Releases["cudss"])
	hub, err := os.ReadFile(filepath.Join(out, "cuda", "BUILD.bazel"))
	if err != nil {
		panic(err)
	}
	for _, target := range []string{"libcublas", "cudnn", "libcudss", "cuda_nvcc"} {
		fmt.Printf("@cuda//:%s %v\n", target, strings.Contains(string(hub), fmt.Sprintf("name = %q", target)))
	}
	// Output:
	// toolkit: cuda compiler: cuda_nvcc
	// CUDA 12.4.1 releases: 9.12.0 0.8.0
	// @cuda//:libcublas true
	// @cuda//:cudnn true
	// @cuda//:libcudss true
	// @cuda//:cuda_nvcc true
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
	if out, err := exec.Command("go", "build", "-o", plugin, "github.com/cudapkgs/cudapkgs/internal/testplugin").CombinedOutput(); err != nil {
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
	run, err := cudapkgs.Evaluate(ctx, cudapkgs.Inputs{
		Manifests: manifests,
		Workspace: dir,
		Layers: []config.Layer{config.Literal{From: "test", Options: config.Options{
			CUDA: []string{"12.4.1"}, Targets: []string{"linux-x86_64"}, Plugins: []string{wrapper + "=" + sum(t, wrapper)},
		}}},
		Builtins: builtinSpecs(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	var names []string
	for _, p := range run.Products {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "cuda acme cudnn cudss cusparselt cutensor tensorrt" {
		t.Errorf("products = %s", got)
	}
	sets, err := run.Sets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := sets[0].Releases["acme"]; got.String() != "1.0.0" {
		t.Errorf("acme release = %v", got)
	}
	tree, _, err := run.Generate(sets, cudapkgs.Bazel, "cuda")
	if err != nil {
		t.Fatal(err)
	}
	gen := string(tree["generated.bzl"])
	if !strings.Contains(gen, "https://acme.example/pub/acme/libacme/linux-x86_64/libacme-linux-x86_64-1.0.0.7_cuda12-archive.tar.xz") {
		t.Errorf("generated.bzl has no acme archive under the plugin's base:\n%s", gen)
	}
	if !strings.Contains(string(tree["BUILD.bazel"]), `name = "libacme"`) {
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
		r, err := cudapkgs.Evaluate(context.Background(), cudapkgs.Inputs{Manifests: manifests, Workspace: ws, Layers: layers, Builtins: builtinSpecs()})
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
	if out, err := exec.Command("go", "build", "-o", plugin, "github.com/cudapkgs/cudapkgs/internal/testplugin").CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	wrapper := filepath.Join(dir, "hangs")
	writeFile(t, wrapper, "#!/bin/sh\nexec "+plugin+" hangstart acme\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	// No built-ins: the hanging plugin is the only one to start.
	_, err := cudapkgs.Evaluate(context.Background(), cudapkgs.Inputs{
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
