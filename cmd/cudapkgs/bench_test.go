package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/fixup"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
	"github.com/cudapkgs/cudapkgs/internal/shared"
	"github.com/cudapkgs/cudapkgs/plugins/builtin"
	"github.com/cudapkgs/cudapkgs/plugins/builtin/builtintest"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
	"github.com/cudapkgs/cudapkgs/snapshot"
)

var benchTargets = []string{"linux-x86_64", "linux-sbsa", "linux-jetson", "linux-ppc64le", "windows-x86_64"}

// benchSets loads every manifest and builds every set, for all platforms.
func benchSets(b *testing.B) (*config.Config, *manifest.Collection, func() []*pkgset.Set) {
	b.Helper()
	coll, err := manifest.LoadDir(shared.Manifests(b))
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Evaluate(pkgset.Available(coll, builtintest.Products(b)), config.Defaults{}, config.Literal{From: "bench", Options: config.Options{Targets: benchTargets}})
	if err != nil {
		b.Fatal(err)
	}
	build := func() []*pkgset.Set {
		sets, err := pkgset.Build(context.Background(), cfg, coll, builtintest.Products(b))
		if err != nil {
			b.Fatal(err)
		}
		return sets
	}
	return cfg, coll, build
}

func benchSpecs(b *testing.B) []fixup.Spec {
	specs, err := cudapkgs.BuiltinSpecs()
	if err != nil {
		b.Fatal(err)
	}
	return specs
}

func builtinFixers() []sdk.Fixer { return builtin.Fixers() }

// BenchmarkPluginStart starts every built-in plugin (processes,
// handshakes, Describe), each in its own process, and stops them.
func BenchmarkPluginStart(b *testing.B) {
	specs := upFront(benchSpecs(b))
	startClose(b, specs)
}

// BenchmarkPluginStartShared starts every built-in as a run does since
// they share one process (BuiltinSpecs), as `plugins list` does, and
// stops it.
func BenchmarkPluginStartShared(b *testing.B) {
	specs := benchSpecs(b)
	defer reportCPU(b)()
	for b.Loop() {
		h, err := fixup.Start(context.Background(), specs, fixup.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := h.StartAll(context.Background()); err != nil {
			b.Fatal(err)
		}
		h.Close()
	}
}

// startClose starts specs and closes the host, once per iteration, with the
// CPU of the host and its plugin processes reported.
func startClose(b *testing.B, specs []fixup.Spec) {
	defer reportCPU(b)()
	for b.Loop() {
		h, err := fixup.Start(context.Background(), specs, fixup.Options{})
		if err != nil {
			b.Fatal(err)
		}
		h.Close()
	}
}

// BenchmarkRoundTrip is one Fixup call through gRPC: the cuDNN batch of
// CUDA 12.4.1 (its 25 packages on five platforms).
func BenchmarkRoundTrip(b *testing.B) {
	cfg, _, build := benchSets(b)
	var batch *sdk.Batch
	for _, s := range build() {
		if s.CUDA.String() == "12.4.1" {
			for _, bb := range fixup.Batches(cfg, s) {
				if bb.Product == "cudnn" {
					batch = bb
				}
			}
		}
	}
	specs := benchSpecs(b)
	h, err := fixup.Start(context.Background(), specs, fixup.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	// The first call starts the plugin (on demand): not what is measured.
	if _, err := h.Call(context.Background(), batch); err != nil {
		b.Fatal(err)
	}
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := h.Call(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFixupStageGRPC is the whole fixup stage for every set of every
// CUDA version through the plugins' processes (started once, outside the
// loop, as in a run).
func BenchmarkFixupStageGRPC(b *testing.B) {
	cfg, _, build := benchSets(b)
	h, err := fixup.Start(context.Background(), benchSpecs(b), fixup.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	for b.Loop() {
		b.StopTimer()
		sets := build()
		b.StartTimer()
		if _, err := h.Apply(context.Background(), cfg, sets); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFixupStageInProcess is the same stage with the same fixers called
// in process: what the gRPC boundary costs is the difference.
func BenchmarkFixupStageInProcess(b *testing.B) {
	cfg, _, build := benchSets(b)
	h := fixup.InProcess(fixup.Options{}, builtinFixers()...)
	for b.Loop() {
		b.StopTimer()
		sets := build()
		b.StartTimer()
		if _, err := h.Apply(context.Background(), cfg, sets); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPipeline is stages 1 to 4 as a run does them: load every
// manifest, evaluate, build every set, start the plugins, fix every set.
func BenchmarkPipeline(b *testing.B) {
	dir := shared.Manifests(b)
	specs := benchSpecs(b)
	for b.Loop() {
		coll, err := manifest.LoadDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		cfg, err := config.Evaluate(pkgset.Available(coll, builtintest.Products(b)), config.Defaults{}, config.Literal{From: "bench", Options: config.Options{Targets: benchTargets}})
		if err != nil {
			b.Fatal(err)
		}
		sets, err := pkgset.Build(context.Background(), cfg, coll, builtintest.Products(b))
		if err != nil {
			b.Fatal(err)
		}
		h, err := fixup.Start(context.Background(), specs, fixup.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.Apply(context.Background(), cfg, sets); err != nil {
			b.Fatal(err)
		}
		h.Close()
	}
}

// BenchmarkGenerateTree is the Bazel emission alone: the generated tree (one
// BUILD file per archive, the hub, toolchains) for every CUDA version and
// platform, from sets already fixed up, without writing it.
func BenchmarkGenerateTree(b *testing.B) {
	cfg, _, build := benchSets(b)
	sets := build()
	h := fixup.InProcess(fixup.Options{}, builtinFixers()...)
	applied, err := h.Apply(context.Background(), cfg, sets)
	if err != nil {
		b.Fatal(err)
	}
	sets = applied
	for b.Loop() {
		if _, err := bazel.Generate(cfg, sets, emit.Options{Toolchain: builtintest.Toolchain(b)}); err != nil {
			b.Fatal(err)
		}
	}
}

// upFront are specs with every built-in started by Start, each in its own
// process, as every run did before issue 25: no Describe in process.
func upFront(specs []fixup.Spec) []fixup.Spec {
	out := slices.Clone(specs)
	for i := range out {
		out[i].Describe, out[i].Process = nil, ""
		out[i].Command = append(slices.Clone(out[i].Command[:len(out[i].Command)-1]), out[i].Name)
	}
	return out
}

// separate are the built-ins described in process, each started in its
// own process on demand (issue 25's first step, before they shared one).
func separate(specs []fixup.Spec) []fixup.Spec {
	out := upFront(specs)
	for i := range out {
		out[i].Describe = specs[i].Describe
	}
	return out
}

// BenchmarkPluginStartOne is what one built-in plugin's start costs: its
// process, the go-plugin handshake and its Describe through gRPC, then its
// stop. cuDNN's, a typical product plugin.
func BenchmarkPluginStartOne(b *testing.B) {
	var one []fixup.Spec
	for _, s := range upFront(benchSpecs(b)) {
		if s.Name == "cudnn" {
			one = append(one, s)
		}
	}
	defer reportCPU(b)()
	for b.Loop() {
		h, err := fixup.Start(context.Background(), one, fixup.Options{})
		if err != nil {
			b.Fatal(err)
		}
		h.Close()
	}
}

// BenchmarkDescribeInProcess is what a run pays for the built-ins' answers
// to Describe when they are given in process (issue 25): every built-in's
// description, checked and converted as a plugin's answer is, no process.
func BenchmarkDescribeInProcess(b *testing.B) {
	specs := benchSpecs(b)
	startClose(b, specs)
}

// BenchmarkTypicalRun is a typical run up to the fixed sets: the manifests
// built into cudapkgs, one CUDA version (12.4.1), two platforms; the
// built-ins in one shared process (what a run does), each started in its
// own process on demand (only those with packages in the sets) and,
// for comparison, every one up front (before issue 25). "toolkit" is the
// same with the toolkit's manifests only.
func BenchmarkTypicalRun(b *testing.B) {
	toolkit := b.TempDir()
	if err := os.CopyFS(filepath.Join(toolkit, "cuda"), os.DirFS(filepath.Join(shared.Manifests(b), "cuda"))); err != nil {
		b.Fatal(err)
	}
	specs := benchSpecs(b)
	for _, m := range []struct {
		name string
		in   cudapkgs.Inputs
	}{
		{"snapshot", cudapkgs.Inputs{Sources: []cudapkgs.ManifestSource{{Name: cudapkgs.SourceSnapshot, FS: snapshot.FS}}}},
		{"toolkit", cudapkgs.Inputs{Manifests: toolkit}},
	} {
		for _, s := range []struct {
			name  string
			specs []fixup.Spec
		}{{"shared", specs}, {"on-demand", separate(specs)}, {"up-front", upFront(specs)}} {
			b.Run(m.name+"/"+s.name, func(b *testing.B) {
				in := m.in
				in.Workspace, in.Builtins = b.TempDir(), s.specs
				in.Layers = []config.Layer{config.Literal{From: "bench", Options: config.Options{
					CUDA: []string{"12.4.1"}, Targets: []string{"linux-x86_64", "linux-sbsa"}}}}
				defer reportCPU(b)()
				for b.Loop() {
					r, err := cudapkgs.Evaluate(context.Background(), in)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := r.Sets(context.Background()); err != nil {
						b.Fatal(err)
					}
					r.Close()
				}
			})
		}
	}
}

// reportCPU, deferred before a benchmark's loop, adds the CPU time per
// operation of this process and of the plugin processes it started and
// waited for: on a shared, loaded machine what a start costs shows there
// more steadily than in the wall time.
func reportCPU(b *testing.B) func() {
	start := cpuTime(b)
	return func() {
		b.ReportMetric(float64((cpuTime(b)-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

func cpuTime(b *testing.B) time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			b.Fatal(err)
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}
