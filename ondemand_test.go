package cudapkgs_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

// manifestsOf is a manifests folder with the given products' folders of
// the shared manifests only.
func manifestsOf(t *testing.T, products ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range products {
		if err := os.CopyFS(filepath.Join(dir, p), os.DirFS(filepath.Join(shared.Manifests(t), p))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// started are the names the counting script wrote, one a start, sorted.
func started(t *testing.T, count string) []string {
	t.Helper()
	b, err := os.ReadFile(count)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(b))
	slices.Sort(names)
	return names
}

// TestPluginsStartedOnDemand: a run starts a built-in plugin only when a
// set has packages of one of its products (issue 25), counted by the
// processes started; a third party's plugin always starts, its products
// being known only from its answer. `plugins list` still starts every one.
func TestPluginsStartedOnDemand(t *testing.T) {
	specs, count := countingBuiltins(t)
	dir := t.TempDir()
	plugin := filepath.Join(dir, "testplugin")
	if out, err := exec.Command("go", "build", "-o", plugin, "github.com/cudapkgs/cudapkgs/integration/testplugin").CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	// The third party counts its starts in the same file.
	thirdParty := filepath.Join(dir, "thirdparty")
	writeFile(t, thirdParty, "#!/bin/sh\necho thirdparty >> '"+count+"'\nexec "+plugin+" product acme\n")
	if err := os.Chmod(thirdParty, 0o755); err != nil {
		t.Fatal(err)
	}
	all := shared.Manifests(t)
	for _, tc := range []struct {
		name      string
		manifests string
		cuda      string
		plugins   []string
		want      []string
	}{
		// The toolkit's own plugin fixes the toolkit: it is the one start.
		{"toolkit only", manifestsOf(t, "cuda"), "12.4.1", nil, []string{"redist"}},
		{"toolkit and cuDNN", manifestsOf(t, "cuda", "cudnn"), "12.4.1", nil, []string{"cudnn", "redist"}},
		// cuSPARSELt is present, but no release of it serves CUDA 11.4 (no
		// batch): its plugin stays unstarted.
		{"cuSPARSELt present, not selected", manifestsOf(t, "cuda", "cudnn", "cusparselt"), "11.4.2", nil, []string{"cudnn", "redist"}},
		{"all manifests, CUDA 11.4", all, "11.4.2", nil, []string{"cudnn", "cutensor", "nppplus", "nvpl", "redist", "tensorrt"}},
		// The typical run, on the manifests built into cudapkgs ("" below):
		// every built-in product has a release for 12.4.1 there, wheels
		// included, so every built-in starts.
		{"snapshot", "", "12.4.1", nil, builtin.Names()},
		{"third party", manifestsOf(t, "cuda"), "12.4.1", []string{thirdParty + "=" + sum(t, thirdParty)}, []string{"redist", "thirdparty"}},
		// Every product the shared manifests have a release of for 12.4.1;
		// NCCL, NVSHMEM and cuFFTMp come from wheels, not there.
		{"all manifests", all, "12.4.1", nil, []string{"cublasmp", "cudnn", "cudss", "cusolvermp", "cusparselt", "cutensor", "nppplus", "nvcomp", "nvjpeg2000", "nvpl", "nvtiff", "redist", "tensorrt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(count)
			in := cudapkgs.Inputs{
				Manifests: tc.manifests,
				Workspace: t.TempDir(),
				Builtins:  specs,
				Layers: []config.Layer{config.Literal{From: "test", Options: config.Options{
					CUDA: []string{tc.cuda}, Targets: []string{"linux-x86_64", "linux-sbsa"}, Plugins: tc.plugins}}},
			}
			if tc.manifests == "" {
				in.Sources = []cudapkgs.ManifestSource{{Name: cudapkgs.SourceSnapshot, FS: snapshot.FS}}
			}
			r, err := cudapkgs.Evaluate(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := started(t, count); slices.Contains(got, "redist") {
				t.Errorf("Evaluate started %v; want the built-ins left for Sets", got)
			}
			if _, err := r.Sets(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := started(t, count); !slices.Equal(got, tc.want) {
				t.Errorf("started %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("plugins list", func(t *testing.T) {
		os.Remove(count)
		infos, err := cudapkgs.Plugins(context.Background(), cudapkgs.Inputs{Workspace: t.TempDir(), Builtins: specs})
		if err != nil {
			t.Fatal(err)
		}
		if got := started(t, count); len(got) != len(specs) || len(infos) != len(specs) {
			t.Errorf("started %v, listed %d; want each of the %d built-ins", got, len(infos), len(specs))
		}
	})
}

// TestOnDemandSameTree: the tree generated with the built-ins started on
// demand is the tree of every built-in started up front, byte for byte.
func TestOnDemandSameTree(t *testing.T) {
	specs, _ := countingBuiltins(t)
	eager := slices.Clone(specs)
	for i := range eager {
		eager[i].Describe = nil
	}
	ws := t.TempDir()
	trees := map[string]map[string]string{}
	for name, s := range map[string][]fixup.Spec{"on demand": specs, "up front": eager} {
		out := filepath.Join(ws, strings.ReplaceAll(name, " ", "_"))
		_, err := cudapkgs.Generate(context.Background(), cudapkgs.Job{
			Inputs: cudapkgs.Inputs{
				Manifests: shared.Manifests(t),
				Workspace: ws,
				Builtins:  s,
				Layers: []config.Layer{config.Literal{From: "test", Options: config.Options{
					CUDA: []string{"12.4.1"}, Targets: []string{"linux-x86_64", "linux-sbsa"}}}},
			},
			Out: out,
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files := map[string]string{}
		err = filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			files[strings.TrimPrefix(path, out)] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		trees[name] = files
	}
	a, b := trees["on demand"], trees["up front"]
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d files on demand, %d up front", len(a), len(b))
	}
	for path, data := range b {
		if a[path] != data {
			t.Errorf("%s differs", path)
		}
	}
}
