package starlark

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	sl "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/cudapkgs/cudapkgs/core/config"
	"github.com/cudapkgs/cudapkgs/core/gpu"
	"github.com/cudapkgs/cudapkgs/core/platform"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// File is an evaluated configuration file: the options it set, where it set
// each, and the overrides it (and the modules it loads) declared. It is a
// config.Layer, applied between the defaults and the flags.
type File struct {
	path    string
	interp  *Interp
	options config.Options
	pos     map[string]string // option -> "file:line:col" of the call that set it
	pinPos  []string          // parallel to options.Pins
	plugPos []string          // parallel to options.Plugins
	// Modules are the modules evaluated, in load order (the file first).
	Modules   []string
	overrides []*override
	products  []UserProduct
}

// EvalConfig evaluates a configuration file (and what it loads) in one run.
// Errors are Starlark errors (syntax, resolution, evaluation, a builtin's
// refusal); FormatError renders them with their position.
func (in *Interp) EvalConfig(ctx context.Context, file string) (*File, error) {
	name, err := in.moduleName(file)
	if err != nil {
		return nil, err
	}
	f := &File{path: name, interp: in, pos: map[string]string{}}
	r := in.newRun(ctx, f, nil)
	defer r.close()
	if _, err := r.evalTop(file); err != nil {
		return nil, err
	}
	for _, o := range f.overrides {
		o.fn.Freeze()
	}
	return f, nil
}

// Name is the file's path (relative to the workspace when inside it).
func (f *File) Name() string { return f.path }

// OptionName: errors about an option the file set name the builtin that
// set it, after the call's position (OptionPosition).
func (f *File) OptionName(opt config.Option) string { return opt.Builtin }

// OptionRef: a message that sends the user to an option names the builtin
// and this file.
func (f *File) OptionRef(opt config.Option) string {
	return opt.Builtin + "() in " + f.path
}

// OptionPosition is where the file set an option: the call of the pin or
// plugin at fault when entry is one, else the option's call; "" when the
// file did not set it.
func (f *File) OptionPosition(option, entry string) string {
	entries, at := f.options.Pins, f.pinPos
	if option == "plugins" {
		entries, at = f.options.Plugins, f.plugPos
	}
	if i := slices.Index(entries, entry); entry != "" && i >= 0 && (option == "pins" || option == "plugins") {
		return at[i]
	}
	return f.pos[option]
}

// Apply sets the options the file set; the others keep the earlier layers'
// values.
func (f *File) Apply(o *config.Options) error {
	return config.Literal{From: f.path, Options: f.options}.Apply(o)
}

// predeclared is what every file of a run sees besides the Starlark
// universe (which includes fail, print and the usual functions).
func predeclared() sl.StringDict { return builtins }

var builtins = sl.StringDict{
	"cuda_versions":    sl.NewBuiltin("cuda_versions", builtinCUDAVersions),
	"capabilities":     sl.NewBuiltin("capabilities", builtinCapabilities),
	"forward_compat":   sl.NewBuiltin("forward_compat", builtinForwardCompat),
	"exec_platform":    sl.NewBuiltin("exec_platform", builtinExecPlatform),
	"target_platforms": sl.NewBuiltin("target_platforms", builtinTargetPlatforms),
	"pin":              sl.NewBuiltin("pin", builtinPin),
	"mirrors":          sl.NewBuiltin("mirrors", builtinMirrors),
	"product_sources":  sl.NewBuiltin("product_sources", builtinProductSources),
	"plugin":           sl.NewBuiltin("plugin", builtinPlugin),
	"local_cuda":       sl.NewBuiltin("local_cuda", builtinLocalCUDA),
	"product":          sl.NewBuiltin("product", builtinProduct),
	"override":         sl.NewBuiltin("override", builtinOverride),
	"override_set":     sl.NewBuiltin("override_set", builtinOverrideSet),
	"struct":           sl.NewBuiltin("struct", starlarkstruct.Make),
	"cuda":             cudaModule,
}

func init() {
	for k, v := range memoryBuiltins {
		builtins[k] = v
	}
	builtins.Freeze()
}

// recorder is the file the calling thread's run records into, and the
// caller's position.
func recorder(th *sl.Thread, b *sl.Builtin) (*File, string, error) {
	r, _ := th.Local(localRun).(*run)
	if r == nil || r.file == nil {
		return nil, "", fmt.Errorf("%s: configuration builtins are only available while a configuration file is evaluated", b.Name())
	}
	return r.file, callerPos(th), nil
}

func callerPos(th *sl.Thread) string { return th.CallFrame(1).Pos.String() }

// stringList unpacks a list or tuple of strings.
func stringList(b *sl.Builtin, param string, v sl.Value) ([]string, error) {
	it, ok := v.(sl.Indexable)
	if _, str := v.(sl.String); !ok || str {
		return nil, fmt.Errorf("%s: for parameter %s: got %s, want list of strings", b.Name(), param, v.Type())
	}
	out := make([]string, 0, it.Len())
	for i := 0; i < it.Len(); i++ {
		s, ok := sl.AsString(it.Index(i))
		if !ok {
			return nil, fmt.Errorf("%s: for parameter %s: element %d is %s, want string", b.Name(), param, i, it.Index(i).Type())
		}
		out = append(out, s)
	}
	return out, nil
}

// listBuiltin is a builtin that sets a list option, checking each element.
func listBuiltin(option, param string, target func(*config.Options) *[]string, check func(string) error) func(*sl.Thread, *sl.Builtin, sl.Tuple, []sl.Tuple) (sl.Value, error) {
	return func(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
		var v sl.Value
		if err := sl.UnpackArgs(b.Name(), args, kwargs, param, &v); err != nil {
			return nil, err
		}
		vals, err := stringList(b, param, v)
		if err != nil {
			return nil, err
		}
		for _, s := range vals {
			if err := check(s); err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name(), err)
			}
		}
		f, pos, err := recorder(th, b)
		if err != nil {
			return nil, err
		}
		*target(&f.options) = vals
		f.pos[option] = pos
		return sl.None, nil
	}
}

func checkVersion(s string) error {
	if _, err := version.Parse(s); err != nil {
		return err
	}
	return nil
}

func checkCapability(s string) error {
	_, err := gpu.Lookup(s)
	return err
}

func checkPlatform(s string) error {
	_, err := platform.Parse(s)
	return err
}

func checkMirror(s string) error {
	if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "file://") {
		return fmt.Errorf("%q is not a URL: expected https://, http:// or file:// followed by a base with NVIDIA's layout", s)
	}
	return nil
}

var (
	builtinProductSources = listBuiltin("sources", "sources", func(o *config.Options) *[]string { return &o.Sources }, config.CheckSourceEntry)
	builtinCUDAVersions   = listBuiltin("cuda", "versions", func(o *config.Options) *[]string { return &o.CUDA }, checkVersion)
	builtinCapabilities   = listBuiltin("capabilities", "capabilities",
		func(o *config.Options) *[]string { return &o.Capabilities }, checkCapability)
	builtinTargetPlatforms = listBuiltin("targets", "platforms",
		func(o *config.Options) *[]string { return &o.Targets }, checkPlatform)
	builtinMirrors = listBuiltin("mirrors", "urls", func(o *config.Options) *[]string { return &o.Mirrors }, checkMirror)
)

func builtinForwardCompat(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var on bool
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "enabled", &on); err != nil {
		return nil, err
	}
	f, pos, err := recorder(th, b)
	if err != nil {
		return nil, err
	}
	f.options.ForwardCompat = &on
	f.pos["forward_compat"] = pos
	return sl.None, nil
}

// builtinLocalCUDA is local_cuda(path, components = []): an installed CUDA
// instead of downloads. A relative path is relative to the workspace root,
// so the file means the same from any folder.
func builtinLocalCUDA(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var p string
	var comps sl.Value = sl.NewList(nil)
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "path", &p, "components?", &comps); err != nil {
		return nil, err
	}
	if p == "" {
		return nil, fmt.Errorf("%s: path: expected the root of an installed CUDA (/usr, /usr/local/cuda, a folder of unpacked archives)", b.Name())
	}
	names, err := stringList(b, "components", comps)
	if err != nil {
		return nil, err
	}
	f, pos, err := recorder(th, b)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.interp.root, p)
	}
	f.options.LocalCUDA = &p
	if len(names) > 0 {
		f.options.LocalComponents = names
		f.pos["local_components"] = pos
	}
	f.pos["local_cuda"] = pos
	return sl.None, nil
}

func builtinExecPlatform(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var p string
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "platform", &p); err != nil {
		return nil, err
	}
	if err := checkPlatform(p); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	f, pos, err := recorder(th, b)
	if err != nil {
		return nil, err
	}
	f.options.Exec = &p
	f.pos["exec"] = pos
	return sl.None, nil
}

func builtinPin(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var product, ver, cuda string
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "product", &product, "version", &ver, "cuda?", &cuda); err != nil {
		return nil, err
	}
	if product == "" || strings.ContainsAny(product, "=@ ") {
		return nil, fmt.Errorf("%s: product %q: expected a product name such as cudnn", b.Name(), product)
	}
	if err := checkVersion(ver); err != nil {
		return nil, fmt.Errorf("%s: version: %w", b.Name(), err)
	}
	pin := product + "=" + ver
	if cuda != "" {
		if err := checkVersion(cuda); err != nil {
			return nil, fmt.Errorf("%s: cuda: %w", b.Name(), err)
		}
		pin = product + "@" + cuda + "=" + ver
	}
	f, pos, err := recorder(th, b)
	if err != nil {
		return nil, err
	}
	f.options.Pins = append(f.options.Pins, pin)
	f.pinPos = append(f.pinPos, pos)
	if _, ok := f.pos["pins"]; !ok {
		f.pos["pins"] = pos
	}
	return sl.None, nil
}

func builtinPlugin(th *sl.Thread, b *sl.Builtin, args sl.Tuple, kwargs []sl.Tuple) (sl.Value, error) {
	var p, sum string
	if err := sl.UnpackArgs(b.Name(), args, kwargs, "path", &p, "sha256", &sum); err != nil {
		return nil, err
	}
	if p == "" || strings.Contains(p, "=") && strings.LastIndex(p, "=") == len(p)-1 {
		return nil, fmt.Errorf("%s: path %q: expected the plugin program's path", b.Name(), p)
	}
	if len(sum) != 64 || strings.Trim(strings.ToLower(sum), "0123456789abcdef") != "" {
		return nil, fmt.Errorf("%s: sha256 %q is not 64 hex digits", b.Name(), sum)
	}
	f, pos, err := recorder(th, b)
	if err != nil {
		return nil, err
	}
	f.options.Plugins = append(f.options.Plugins, p+"="+sum)
	f.plugPos = append(f.plugPos, pos)
	if _, ok := f.pos["plugins"]; !ok {
		f.pos["plugins"] = pos
	}
	return sl.None, nil
}
