package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/pipeline"
	"github.com/cudapkgs/cudapkgs/core/source"
	"github.com/cudapkgs/cudapkgs/starlark"
)

// configFlags are the command-line layer of the configuration. Only flags the
// user set are applied, so an unset flag never overrides an earlier layer.
type configFlags struct {
	cmd           *cobra.Command
	manifests     string
	cuda          []string
	capabilities  []string
	forwardCompat bool
	exec          string
	targets       []string
	pins          []string
	mirrors       []string
	plugins       []string
	pluginTimeout time.Duration
	config        string
	workspace     string
	localCUDA     string
	localComps    []string
	strict        bool
	lock          string
	memory        string
}

func addConfigFlags(cmd *cobra.Command) *configFlags {
	f := &configFlags{cmd: cmd}
	fl := cmd.Flags()
	fl.StringVar(&f.manifests, "manifests", "", "folder of manifests laid out as <product>/redistrib_<version>.json (default: the download cache, if it exists)")
	fl.StringSliceVar(&f.cuda, "cuda", nil, "CUDA versions: a release (12.4.1) or a prefix meaning its newest release (12.4, 12); default: every release in the manifests")
	fl.StringSliceVar(&f.capabilities, "capabilities", nil, "GPU compute capabilities (8.0,9.0a); default: each CUDA version's defaults")
	fl.BoolVar(&f.forwardCompat, "forward-compat", false, "embed PTX for the newest capability so newer GPUs can JIT it")
	fl.StringVar(&f.exec, "exec", "", "platform builds run on (default linux-x86_64)")
	fl.StringSliceVar(&f.targets, "platform", nil, "target platforms: linux-x86_64, linux-sbsa, linux-jetson (alias linux-aarch64), linux-ppc64le, windows-x86_64 (default: linux-x86_64,linux-sbsa,linux-jetson)")
	fl.StringArrayVar(&f.pins, "pin", nil, "pin a product's release: cudnn=8.9, or for one CUDA version cudnn@12.2=8.9 (repeatable)")
	fl.StringArrayVar(&f.mirrors, "mirror", nil, "base URL with NVIDIA's layout, tried before NVIDIA (repeatable, in order)")
	fl.StringArrayVar(&f.plugins, "plugin", nil, "third-party fixup plugin: PATH=SHA256 of its binary (repeatable); one that claims a built-in product replaces the built-in for it")
	fl.DurationVar(&f.pluginTimeout, "plugin-timeout", 30*time.Second, "deadline of every plugin call")
	fl.StringVar(&f.localCUDA, "local-cuda", "", "root of an installed CUDA to use instead of downloads for its version and platform: /usr (Debian's nvidia-cuda-toolkit), /usr/local/cuda, or a folder of unpacked archives (see docs/local-cuda.md)")
	fl.StringSliceVar(&f.localComps, "local-components", nil, "components to take from --local-cuda, each required (default: every component the install has, the toolkit's compiler and runtime required)")
	fl.StringVar(&f.config, "config", "", "Starlark configuration file (default: cudapkgs.star at the workspace root, when there is one); flags win over it")
	fl.StringVar(&f.lock, "lock", "", "lock file the manifests are checked against: a manifest it lists must have its sha256 (default: cudapkgs.lock inside --manifests when there is one; for the download cache, cudapkgs.lock at the workspace root when there is one)")
	fl.StringVar(&f.memory, "starlark-memory", "1GiB", "memory budget of each Starlark evaluation (the configuration, the overrides, a query, a script): bytes, or a number with KiB, MiB or GiB")
	fl.BoolVar(&f.strict, "strict", false, "treat every warning (a manifest shape this cudapkgs does not know, a refused manifest, an unknown product folder, facts past its tables) as an error")
	fl.StringVar(&f.workspace, "workspace", "", "workspace root for load() labels and the default configuration (default: the nearest folder up from here with MODULE.bazel, WORKSPACE, WORKSPACE.bazel or cudapkgs.star, else here)")
	return f
}

func (f *configFlags) Name() string { return "flags" }

func (f *configFlags) Apply(o *config.Options) error {
	ch := f.cmd.Flags().Changed
	if ch("cuda") {
		o.CUDA = f.cuda
	}
	if ch("capabilities") {
		o.Capabilities = f.capabilities
	}
	if ch("forward-compat") {
		v := f.forwardCompat
		o.ForwardCompat = &v
	}
	if ch("exec") {
		v := f.exec
		o.Exec = &v
	}
	if ch("platform") {
		o.Targets = f.targets
	}
	if ch("local-cuda") {
		v := f.localCUDA
		if v != "" {
			abs, err := filepath.Abs(v)
			if err != nil {
				return fmt.Errorf("--local-cuda %s: %w", v, err)
			}
			v = abs
		}
		o.LocalCUDA = &v
	}
	if ch("local-components") {
		o.LocalComponents = f.localComps
	}
	if ch("pin") {
		o.Pins = append(o.Pins, f.pins...)
	}
	if ch("mirror") {
		o.Mirrors = f.mirrors
	}
	if ch("plugin") {
		o.Plugins = f.plugins
	}
	return nil
}

// inputs are the run's inputs as the flags give them.
func (f *configFlags) inputs(a *app) (pipeline.Inputs, error) {
	dir := f.manifests
	cache := dir == ""
	if cache {
		if dir = defaultManifestsDir(); dir == "" {
			return pipeline.Inputs{}, usagef("--manifests is required: no download cache found (run `cudapkgs manifests fetch` or give a folder)")
		}
	}
	if f.pluginTimeout <= 0 {
		return pipeline.Inputs{}, usagef("--plugin-timeout %v: expected a positive duration such as 30s", f.pluginTimeout)
	}
	root, err := f.workspaceRoot()
	if err != nil {
		return pipeline.Inputs{}, err
	}
	builtins, err := builtinSpecs()
	if err != nil {
		return pipeline.Inputs{}, err
	}
	lock := f.lock
	if !f.cmd.Flags().Changed("lock") {
		// The lock that pins the folder: the one `manifests fetch` wrote
		// for the cache (at the workspace root), or one kept in the folder.
		lock = filepath.Join(dir, source.LockFileName)
		if cache {
			lock = filepath.Join(root, source.LockFileName)
		}
		if _, err := os.Stat(lock); err != nil {
			lock = ""
		}
	} else if lock == "" {
		return pipeline.Inputs{}, usagef("--lock: expected a file name")
	}
	mem, err := parseByteSize(f.memory)
	if err != nil {
		return pipeline.Inputs{}, usagef("--starlark-memory %q: %v", f.memory, err)
	}
	in := pipeline.Inputs{Manifests: dir, Lock: lock, StarlarkMemory: mem, Workspace: root, ConfigFile: f.config, Layers: []config.Layer{f},
		Builtins: builtins, PluginTimeout: f.pluginTimeout, Strict: f.strict}
	if a != nil {
		in.Warn = func(msg string) { fmt.Fprintf(a.stderr, "warning: %s\n", escapeText(msg, true)) }
	}
	return in, nil
}

// parseByteSize reads "1GiB", "512MiB", "64KiB" or a plain byte count.
func parseByteSize(s string) (int64, error) {
	num, mult := s, int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("expected a positive size such as 1GiB, 512MiB or 1073741824")
	}
	return n * mult, nil
}

// evaluate runs the pipeline up to the evaluated configuration, its
// plugins started; the caller closes the run.
func (a *app) evaluate(ctx context.Context, f *configFlags) (*pipeline.Run, error) {
	in, err := f.inputs(a)
	if err != nil {
		return nil, err
	}
	r, err := pipeline.Evaluate(ctx, in)
	var ce *pipeline.ConfigError
	if errors.As(err, &ce) {
		return nil, usageError{ce.Err}
	}
	return r, err
}

// workspaceRoot is --workspace, or the nearest folder up from here that
// looks like a workspace.
func (f *configFlags) workspaceRoot() (string, error) {
	if f.workspace != "" {
		return filepath.Abs(f.workspace)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		for _, marker := range []string{"MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel", starlark.DefaultConfigFile} {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return dir, nil
			}
		}
		if filepath.Dir(dir) == dir {
			return wd, nil
		}
	}
}

// defaultManifestsDir is the download cache when it holds manifests.
func defaultManifestsDir() string {
	dir, err := source.DefaultCacheDir()
	if err != nil {
		return ""
	}
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir
	}
	return ""
}
