package config

import "fmt"

// OptionError is a configuration that the manifests or the option's own
// grammar refuse. Callers branch on it to blame the layer that set the
// option: a file's position, or the command line.
type OptionError struct {
	// Option is the option's name, as Table names it.
	Option string
	// Entry is the list entry at fault (a pin, a plugin), when one is.
	Entry string
	// Layer is the layer that set the option last ("" when none did:
	// nothing, or the defaults, chose it). Build fills it in.
	Layer string
	// Name is the option as the user wrote it in that layer (--platform,
	// target_platforms), from the layer's OptionName; "" when no layer
	// names it, and the message says "option <Option>".
	Name string
	Err  error
}

func (e *OptionError) Error() string {
	if e.Name != "" {
		return e.Name + ": " + e.Err.Error()
	}
	return "option " + e.Option + ": " + e.Err.Error()
}

// Namer is a layer whose users write options their own way: a flag
// (--platform), a Starlark builtin (target_platforms). Errors name the
// option as the layer that set it does; an option nobody set, as the last
// Namer layer (the command line) does.
type Namer interface {
	OptionName(Option) string
}

// spell names an option for messages that send the user to it: its flag
// and its builtin.
func spell(name string) string {
	for _, opt := range Table() {
		if opt.Name == name {
			return "--" + opt.Flag + " (" + opt.Builtin + "() in cudapkgs.star)"
		}
	}
	return "option " + name
}
func (e *OptionError) Unwrap() error { return e.Err }

func optionError(option, entry, format string, args ...any) *OptionError {
	return &OptionError{Option: option, Entry: entry, Err: fmt.Errorf(format, args...)}
}

// NoReleaseError is a CUDA version or a pin that names a release no
// manifest holds: a caller may say where more manifests come from.
type NoReleaseError struct {
	What, Release, Have string
}

func (e *NoReleaseError) Error() string {
	return fmt.Sprintf("no %s release %s in the manifests: expected one of %s", e.What, e.Release, e.Have)
}

// LayerError is a layer that could not apply its options (a flag's value
// that is not a path).
type LayerError struct {
	Layer string
	Err   error
}

func (e *LayerError) Error() string { return e.Layer + ": " + e.Err.Error() }
func (e *LayerError) Unwrap() error { return e.Err }

// An Option is one setting of Options, under the name configuration files,
// `eval` and messages use.
type Option struct {
	Name string
	// Flag is the command-line flag that sets it; Usage is its help.
	Flag, Usage string
	// Builtin is the Starlark function of cudapkgs.star that sets it.
	Builtin string
	// Kind says what the option holds: a list, a bool or a string.
	Kind Kind
	// Split: a list flag takes comma-separated values (12.4,12.6) as well
	// as repeats. Lists of URLs, paths and pins are not split at every
	// comma, because their values may hold commas: the command line splits
	// them only between whole values.
	Split bool
	// Accumulate: a later layer adds to the earlier layers' list instead
	// of replacing it (a pin on the command line adds to the file's).
	Accumulate bool
	isSet      func(*Options) bool
	copy       func(dst, src *Options)
}

// Kind is what an option holds.
type Kind int

const (
	List Kind = iota
	Bool
	String
)

// Set gives an option a value from outside (a flag): a []string, bool or
// string by Kind.
func (opt Option) Set(o *Options, v any) {
	var src Options
	switch f := opt.field(&src).(type) {
	case *[]string:
		*f = append([]string{}, v.([]string)...)
	case **bool:
		b := v.(bool)
		*f = &b
	case **string:
		s := v.(string)
		*f = &s
	}
	opt.apply(o, &src)
}

func (opt Option) apply(dst, src *Options) {
	if opt.Accumulate {
		d, s := opt.field(dst).(*[]string), opt.field(src).(*[]string)
		*d = append(*d, *s...)
		return
	}
	opt.copy(dst, src)
}

// field is the option's field in o: *[]string, **bool or **string.
func (opt Option) field(o *Options) any {
	switch opt.Name {
	case "cuda":
		return &o.CUDA
	case "capabilities":
		return &o.Capabilities
	case "forward_compat":
		return &o.ForwardCompat
	case "exec":
		return &o.Exec
	case "targets":
		return &o.Targets
	case "pins":
		return &o.Pins
	case "mirrors":
		return &o.Mirrors
	case "plugins":
		return &o.Plugins
	case "local_cuda":
		return &o.LocalCUDA
	case "local_components":
		return &o.LocalComponents
	}
	panic("config: option " + opt.Name + " has no field")
}

// Table lists every option once. The command line's flags, Literal layers,
// Merge's record of which layer set what, the blame of errors, `eval` and
// the Starlark builtins' tests read it, so a new option is one entry here,
// its field in Options, and its builtin.
func Table() []Option {
	opts := []Option{
		{Name: "cuda", Flag: "cuda", Builtin: "cuda_versions", Kind: List, Split: true,
			Usage: "CUDA versions: a release (12.4.1) or a prefix meaning its newest release (12.4, 12); default: every release in the manifests"},
		{Name: "capabilities", Flag: "capabilities", Builtin: "capabilities", Kind: List, Split: true,
			Usage: "GPU compute capabilities (8.0,9.0a); default: each CUDA version's defaults"},
		{Name: "forward_compat", Flag: "forward-compat", Builtin: "forward_compat", Kind: Bool,
			Usage: "embed PTX for the newest capability so newer GPUs can JIT it"},
		{Name: "exec", Flag: "exec", Builtin: "exec_platform", Kind: String,
			Usage: "platform builds run on (default linux-x86_64)"},
		{Name: "targets", Flag: "platform", Builtin: "target_platforms", Kind: List, Split: true,
			Usage: "target platforms: linux-x86_64, linux-sbsa, linux-jetson (alias linux-aarch64), linux-ppc64le, windows-x86_64, windows-arm64 (default: linux-x86_64,linux-sbsa,linux-jetson)"},
		{Name: "pins", Flag: "pin", Builtin: "pin", Kind: List, Accumulate: true,
			Usage: "pin a product's release: PRODUCT=8.9, or for one CUDA version PRODUCT@12.2=8.9 (repeatable or comma-separated; adds to the configuration file's pins)"},
		{Name: "mirrors", Flag: "mirror", Builtin: "mirrors", Kind: List,
			Usage: "base URL with NVIDIA's layout, tried before NVIDIA (repeatable, or comma-separated where each starts with https://, http:// or file://; in order)"},
		{Name: "plugins", Flag: "plugin", Builtin: "plugin", Kind: List,
			Usage: "third-party fixup plugin: PATH=SHA256 of its binary (repeatable, or comma-separated where each is PATH=SHA256); one that claims a built-in product replaces the built-in for it"},
		{Name: "local_cuda", Flag: "local-cuda", Builtin: "local_cuda", Kind: String,
			Usage: "root of an installed CUDA to use instead of downloads for its version and platform: /usr (Debian's nvidia-cuda-toolkit), /usr/local/cuda, or a folder of unpacked archives (see docs/local-cuda.md)"},
		{Name: "local_components", Flag: "local-components", Builtin: "local_cuda", Kind: List, Split: true,
			Usage: "components to take from --local-cuda, each required (default: every component the install has, the toolkit's compiler and runtime required)"},
	}
	for i := range opts {
		opt := opts[i]
		switch opt.Kind {
		case List:
			opts[i].isSet = func(o *Options) bool { return *opt.field(o).(*[]string) != nil }
			opts[i].copy = func(dst, src *Options) { *opt.field(dst).(*[]string) = *opt.field(src).(*[]string) }
		case Bool:
			opts[i].isSet = func(o *Options) bool { return *opt.field(o).(**bool) != nil }
			opts[i].copy = func(dst, src *Options) { *opt.field(dst).(**bool) = *opt.field(src).(**bool) }
		case String:
			opts[i].isSet = func(o *Options) bool { return *opt.field(o).(**string) != nil }
			opts[i].copy = func(dst, src *Options) { *opt.field(dst).(**string) = *opt.field(src).(**string) }
		}
	}
	return opts
}

// SetByAll names, for every option, the layer that set it last ("" when none
// did): what `eval` shows.
func (m Merged) SetByAll() map[string]string {
	out := map[string]string{}
	for _, opt := range Table() {
		out[opt.Name] = m.setBy[opt.Name]
	}
	return out
}
