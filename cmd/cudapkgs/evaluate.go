package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudapkgs/cudapkgs"
	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/pkgset"
)

// configFlags are the command-line layer of the configuration. Only flags the
// user set are applied, so an unset flag never overrides an earlier layer.
// The configuration's options are config.Table's; the rest say where the
// run's inputs are.
type configFlags struct {
	cmd *cobra.Command
	// given holds every option's flag value; Apply reads those of the
	// flags the user set.
	given         config.Options
	manifests     string
	pluginTimeout time.Duration
	config        string
	workspace     string
	strict        bool
	allowKeys     []string
	lock          string
	memory        string
	manifestBytes string
}

func addConfigFlags(cmd *cobra.Command) *configFlags {
	f := &configFlags{cmd: cmd}
	fl := cmd.Flags()
	fl.StringVar(&f.manifests, "manifests", "", "folder of manifests laid out as <product>/redistrib_<version>.json, used alone (default: the download cache merged over the snapshot built into cudapkgs, the cache winning per product and release)")
	for _, opt := range config.Table() {
		switch {
		case opt.List != nil && opt.Split:
			fl.StringSliceVar(opt.List(&f.given), opt.Flag, nil, opt.Usage)
		case opt.List != nil:
			fl.StringArrayVar(opt.List(&f.given), opt.Flag, nil, opt.Usage)
		case opt.Bool != nil:
			b := new(bool)
			*opt.Bool(&f.given) = b
			fl.BoolVar(b, opt.Flag, false, opt.Usage)
		case opt.String != nil:
			s := new(string)
			*opt.String(&f.given) = s
			fl.StringVar(s, opt.Flag, "", opt.Usage)
		}
	}
	fl.DurationVar(&f.pluginTimeout, "plugin-timeout", 30*time.Second, "deadline of each plugin's start and of every plugin call")
	fl.StringVar(&f.config, "config", "", "Starlark configuration file (default: cudapkgs.star at the workspace root, when there is one); flags win over it")
	fl.StringVar(&f.lock, "lock", "", "lock file the manifests are checked against: a manifest it lists must have its sha256 (default: cudapkgs.lock at the workspace root when there is one, and with --manifests also cudapkgs.lock inside that folder when there is one; without --manifests, cached releases the snapshot also holds must match its lock unless a lock pins them)")
	fl.StringVar(&f.manifestBytes, "max-manifest-bytes", "512MiB", "limit of the bytes of manifests one run reads, every source together (each manifest is also limited to 64 MiB): bytes, or a number with KiB, MiB or GiB")
	fl.StringVar(&f.memory, "starlark-memory", "1GiB", "memory budget of each Starlark evaluation (the configuration, the overrides, a query, a script): bytes, or a number with KiB, MiB or GiB")
	fl.BoolVar(&f.strict, "strict", false, "treat every warning (a manifest shape this cudapkgs does not know, a refused manifest, an unknown product folder, facts past its tables) as an error")
	fl.StringSliceVar(&f.allowKeys, "allow-platform-key", nil, "manifest platform key this cudapkgs does not know that is expected (linux-riscv64): its archives are still ignored, but it is no warning, so --strict fails only on other unknown keys (repeatable, or comma-separated)")
	fl.StringVar(&f.workspace, "workspace", "", "workspace root for load() labels and the default configuration (default: the nearest folder up from here with MODULE.bazel, WORKSPACE, WORKSPACE.bazel or cudapkgs.star, else here)")
	return f
}

func (f *configFlags) Name() string { return "flags" }

// OptionName: errors about an option the command line set (or nobody did)
// name its flag.
func (f *configFlags) OptionName(opt config.Option) string { return "--" + opt.Flag }

func (f *configFlags) Apply(o *config.Options) error {
	var set config.Options
	for _, opt := range config.Table() {
		if !f.cmd.Flags().Changed(opt.Flag) {
			continue
		}
		switch {
		case opt.List != nil:
			v := append([]string{}, *opt.List(&f.given)...)
			// Lists whose values may hold commas take comma-separated
			// values where each side is a whole one.
			if split := listSplit(opt.Name); split != nil {
				v = splitList(v, split)
			}
			*opt.List(&set) = v
		case opt.Bool != nil:
			v := **opt.Bool(&f.given)
			*opt.Bool(&set) = &v
		case opt.String != nil:
			v := **opt.String(&f.given)
			*opt.String(&set) = &v
		}
	}
	// A relative --local-cuda is relative to where the command runs, not to
	// the workspace a Starlark path would be relative to.
	if set.LocalCUDA != nil && *set.LocalCUDA != "" {
		abs, err := filepath.Abs(*set.LocalCUDA)
		if err != nil {
			return fmt.Errorf("--local-cuda %s: %w", *set.LocalCUDA, err)
		}
		set.LocalCUDA = &abs
	}
	return config.Literal{From: f.Name(), Options: set}.Apply(o)
}

// listSplit says where a list option that is not split at every comma
// (config.Option.Split) is split: before a mirror's URL, between pins (a
// pin holds no comma), after a plugin's =SHA256 (its path may hold one);
// nil for the others.
func listSplit(option string) func(before, after string) bool {
	switch option {
	case "mirrors":
		return beforeURL
	case "pins":
		return func(string, string) bool { return true }
	case "plugins":
		return func(before, _ string) bool {
			_, sum, ok := cutLast(before, "=")
			return ok && len(sum) == 64 && strings.Trim(sum, "0123456789abcdefABCDEF") == ""
		}
	}
	return nil
}

func cutLast(s, sep string) (before, after string, ok bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// inputs are the run's inputs as the flags give them; what a flag left
// unset is the library's default (cudapkgs.Inputs.WithDefaults).
func (f *configFlags) inputs(a *app) (cudapkgs.Inputs, error) {
	if f.pluginTimeout <= 0 {
		return cudapkgs.Inputs{}, usagef("--plugin-timeout %v: expected a positive duration such as 30s", f.pluginTimeout)
	}
	if f.cmd.Flags().Changed("lock") && f.lock == "" {
		return cudapkgs.Inputs{}, usagef("--lock: expected a file name")
	}
	keys := f.allowKeys
	if f.cmd.Flags().Changed("allow-platform-key") && len(keys) == 0 {
		keys = []string{""} // pflag reads --allow-platform-key "" as no key
	}
	for _, k := range keys {
		if !platformKeyRE.MatchString(k) {
			return cudapkgs.Inputs{}, usagef("--allow-platform-key %q: expected a manifest platform key such as linux-riscv64 (letters, digits, '-', '_' and '.')", k)
		}
	}
	mem, err := parseByteSize(f.memory)
	if err != nil {
		return cudapkgs.Inputs{}, usagef("--starlark-memory %q: %v", f.memory, err)
	}
	maxBytes, err := parseByteSize(f.manifestBytes)
	if err != nil {
		return cudapkgs.Inputs{}, usagef("--max-manifest-bytes %q: %v", f.manifestBytes, err)
	}
	in := cudapkgs.Inputs{Manifests: f.manifests, Lock: f.lock, StarlarkMemory: mem, StarlarkMemoryName: "--starlark-memory", Workspace: f.workspace, ConfigFile: f.config, Layers: []config.Layer{f},
		MaxManifestBytes: maxBytes, MaxManifestBytesName: "--max-manifest-bytes",
		PluginTimeout: f.pluginTimeout, Strict: f.strict, AllowPlatformKeys: f.allowKeys}
	if a != nil {
		in.Warn = func(msg string) { fmt.Fprintf(a.stderr, "warning: %s\n", escapeText(msg, true)) }
	}
	return in, nil
}

// platformKeyRE is what --allow-platform-key takes: the shape of NVIDIA's
// keys (linux-x86_64, windows-arm64), so that a stray space or an empty
// entry is a mistake reported, not a key that never matches.
var platformKeyRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

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
func (a *app) evaluate(ctx context.Context, f *configFlags) (*cudapkgs.Run, error) {
	in, err := f.inputs(a)
	if err != nil {
		return nil, err
	}
	r, err := cudapkgs.Evaluate(ctx, in)
	if err != nil {
		return nil, explain(err, f)
	}
	return r, nil
}

// explain renders a run's error for the command line: a mistake in the
// flags is a usage error, and one that means no manifest (or no release)
// says where manifests come from.
func explain(err error, f *configFlags) error {
	var ce *cudapkgs.ConfigError
	if errors.As(err, &ce) {
		if noRelease(ce.Err) {
			return usageError{fmt.Errorf("%w; %s", ce.Err, threeWays)}
		}
		return usageError{ce.Err}
	}
	if noManifests(err, f.manifests) {
		return fmt.Errorf("%w; %s", err, threeWays)
	}
	return err
}

// checkedSets are the run's sets, the installed CUDA a --local-cuda names
// checked against them as generate checks it: a command that does not
// write the install's files still refuses one it could not use.
func checkedSets(ctx context.Context, e *cudapkgs.Run) ([]*pkgset.Set, error) {
	sets, err := e.Sets(ctx)
	if err != nil {
		return nil, err
	}
	if _, _, err := e.LocalInstall(sets); err != nil {
		return nil, err
	}
	return sets, nil
}

// threeWays ends every error that means "no manifests".
const threeWays = "manifests come from the snapshot built into cudapkgs (used when --manifests is not given), " +
	"from the download cache (`cudapkgs manifests fetch` fills it with NVIDIA's newest, or `--release PRODUCT=VERSION`), " +
	"or from a folder given with --manifests DIR"

// noManifests: a folder (or every source) held no manifest, or the folder
// --manifests names is not there.
func noManifests(err error, dir string) bool {
	if errors.Is(err, manifest.ErrNoManifests) {
		return true
	}
	if dir == "" || !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	_, serr := os.Stat(dir)
	return serr != nil
}

// noRelease: a CUDA version or a pin asks for a release no manifest has.
func noRelease(err error) bool {
	var nr *config.NoReleaseError
	return errors.As(err, &nr)
}

// workspaceRoot is --workspace, or the nearest folder up from here that
// looks like a workspace.
func (f *configFlags) workspaceRoot() (string, error) {
	return cudapkgs.WorkspaceRoot(f.workspace)
}
