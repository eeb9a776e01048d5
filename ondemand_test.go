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
	"github.com/cudapkgs/cudapkgs/core/outdir"
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
// With the built-ins in one shared process (BuiltinSpecs), that process
// starts once whatever the selection.
func TestPluginsStartedOnDemand(t *testing.T) {
	t.Run("separate", func(t *testing.T) { testStartedOnDemand(t, false) })
	t.Run("shared", func(t *testing.T) { testStartedOnDemand(t, true) })
}

func testStartedOnDemand(t *testing.T, sharedProcess bool) {
	specs, count := countingBuiltins(t, sharedProcess)
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
			want := tc.want
			if sharedProcess {
				// One start of the shared process, whichever built-ins
				// the run needs.
				want = []string{strings.Join(builtin.Names(), ",")}
				if slices.Contains(tc.want, "thirdparty") {
					want = append(want, "thirdparty")
				}
			}
			if got := started(t, count); !slices.Equal(got, want) {
				t.Errorf("started %v, want %v", got, want)
			}
		})
	}

	t.Run("plugins list", func(t *testing.T) {
		os.Remove(count)
		infos, err := cudapkgs.Plugins(context.Background(), cudapkgs.Inputs{Workspace: t.TempDir(), Builtins: specs})
		if err != nil {
			t.Fatal(err)
		}
		wantStarts := len(specs)
		if sharedProcess {
			wantStarts = 1
		}
		if got := started(t, count); len(got) != wantStarts || len(infos) != len(specs) {
			t.Errorf("started %v, listed %d; want %d starts and each of the %d built-ins listed", got, len(infos), wantStarts, len(specs))
		}
	})
}

// TestOnDemandSameTree: the tree generated with the built-ins started on
// demand, each in its own process or all in one, is the tree of every
// built-in started up front, byte for byte.
func TestOnDemandSameTree(t *testing.T) {
	specs, _ := countingBuiltins(t, false)
	sharing, _ := countingBuiltins(t, true)
	eager := slices.Clone(specs)
	for i := range eager {
		eager[i].Describe = nil
	}
	ws := t.TempDir()
	trees := map[string]map[string]string{}
	for name, s := range map[string][]fixup.Spec{"on demand": specs, "shared": sharing, "up front": eager} {
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
	b := trees["up front"]
	for _, name := range []string{"on demand", "shared"} {
		a := trees[name]
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%d files %s, %d up front", len(a), name, len(b))
		}
		for path, data := range b {
			// The stamp records the plugins' program, another script for
			// the shared specs.
			if a[path] != data && !(name == "shared" && path == "/"+outdir.StampFile) {
				t.Errorf("%s: %s differs", name, path)
			}
		}
	}
}

// TestSharedProcessChecked: built-ins that share a process must name the
// same command, and the process must describe itself as the merge of
// exactly their descriptions; either fault ends the run with a message
// naming the plugin.
func TestSharedProcessChecked(t *testing.T) {
	specs, _ := countingBuiltins(t, true)
	otherCommand := slices.Clone(specs)
	otherCommand[1].Command = []string{specs[1].Command[0], "plugin", "serve", specs[1].Name}
	for _, tc := range []struct {
		name  string
		specs []fixup.Spec
		want  string
	}{
		// The process serves all 16; the host knows 3 of them.
		{"fewer than served", specs[:3], "answered other than the same plugin described in this process"},
		{"another command", otherCommand, "plugin " + specs[1].Name + ": shares process builtins, but with another command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := fixup.Start(context.Background(), tc.specs, fixup.Options{})
			if err == nil {
				err = h.StartAll(context.Background())
				h.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
