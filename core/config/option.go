package config

import (
	"errors"
	"fmt"
	"strings"
)

// OptionError is a configuration that the manifests, the option's own
// grammar or what it points at (an installed CUDA) refuse. It names the
// option, not a flag: which layer set it, and how that layer's users write
// it, is filled in by Merged.Blame, so a caller renders it as its users know
// it (the command line's flag, a file's line and builtin).
type OptionError struct {
	// Option is the option's name, as Table names it.
	Option string
	// Entry is the list entry at fault (a pin, a plugin), when one is.
	Entry string
	// Layer is the layer that set the option last ("" when none did:
	// nothing, or the defaults, chose it). Blame fills it in.
	Layer string
	// Name is the option as the user wrote it in that layer (--platform,
	// target_platforms), from the layer's OptionName; "" when no layer
	// names it, and the message says "option <Option>".
	Name string
	// Pos is where that layer set it ("cudapkgs.star:3:11"), from the
	// layer's OptionPosition; "" for a layer without positions (flags).
	Pos string
	Err error
}

func (e *OptionError) Error() string {
	name := e.Name
	if name == "" {
		name = "option " + e.Option
	}
	if e.Pos != "" {
		return e.Pos + ": " + name + ": " + e.Err.Error()
	}
	return name + ": " + e.Err.Error()
}

func (e *OptionError) Unwrap() error { return e.Err }

// Errorf is an *OptionError about option, its text made as fmt.Errorf
// makes it; a Ref among args names another option, spelled when the error
// is blamed.
func Errorf(option, format string, args ...any) *OptionError {
	return optionError(option, "", format, args...)
}

func optionError(option, entry, format string, args ...any) *OptionError {
	return &OptionError{Option: option, Entry: entry, Err: &message{format: format, args: args}}
}

// Ref is another option named in an error's text, such as the one a fix
// goes through ("add it to the CUDA versions"). Until the error is blamed it
// reads "option <name>"; then as the layer that set that option writes it,
// else as the layer blamed for the error does, else as the last layer that
// names options (the command line).
type Ref string

// message is an error text whose Refs are spelled when it is rendered.
type message struct {
	format string
	args   []any
	// spell names Refs; Blame sets it.
	spell func(Ref) string
}

func (m *message) Error() string {
	args := make([]any, len(m.args))
	for i, a := range m.args {
		if r, ok := a.(Ref); ok {
			if m.spell != nil {
				a = m.spell(r)
			} else {
				a = "option " + string(r)
			}
		}
		args[i] = a
	}
	return fmt.Errorf(m.format, args...).Error()
}

// Unwrap gives the errors the text wraps with %w, so callers still branch
// on them (a *NoReleaseError, fs.ErrNotExist).
func (m *message) Unwrap() []error {
	switch u := fmt.Errorf(m.format, m.args...).(type) {
	case interface{ Unwrap() error }:
		return []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	}
	return nil
}

// Namer is a layer whose users write options their own way: a flag
// (--platform), a Starlark builtin (target_platforms). Errors name the
// option as the layer that set it does; an option nobody set, as the last
// Namer layer (the command line) does.
type Namer interface {
	OptionName(Option) string
}

// RefNamer is a Namer that names an option differently inside a sentence
// ("cuda_versions() in cudapkgs.star") than at the head of its own error
// ("cuda_versions").
type RefNamer interface {
	Namer
	OptionRef(Option) string
}

// Positioner is a layer that knows where it set an option (a file's line),
// or the entry of a list option (one pin) at fault.
type Positioner interface {
	OptionPosition(option, entry string) string
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
// `eval` and messages use. Exactly one of List, Bool and String is set: it
// is the option's field in Options, so every reader and writer of the
// option is typed.
type Option struct {
	Name string
	// Flag is the command-line flag that sets it; Usage is its help.
	Flag, Usage string
	// Builtin is the Starlark function of cudapkgs.star that sets it.
	// Options that share one (local_cuda's components) are written by the
	// first option's call.
	Builtin string
	// Doc says what the option is for, in sentences: init's template
	// writes it as the comment above Example, docs/configuration.md as the
	// option's row.
	Doc string
	// Example is a call of Builtin that sets the option, valid as it
	// stands: init's template writes it commented out. The core names no
	// package, so an example's products and components are placeholders
	// (<product>).
	Example string
	// Split: a list flag takes comma-separated values (12.4,12.6) as well
	// as repeats. Lists of URLs, paths and pins are not split at every
	// comma, because their values may hold commas: the command line splits
	// them only between whole values.
	Split bool
	// Accumulate: a later layer adds to the earlier layers' list instead
	// of replacing it (a pin on the command line adds to the file's).
	Accumulate bool
	// Entries: an error about one entry of the list is blamed on the layer
	// that gave that entry, not on the last layer that set the option (a
	// pin of the file among the flags' pins).
	Entries bool

	List   func(*Options) *[]string
	Bool   func(*Options) **bool
	String func(*Options) **string
}

// IsSet reports whether o sets the option (a nil slice or pointer: not).
func (opt Option) IsSet(o *Options) bool {
	switch {
	case opt.List != nil:
		return *opt.List(o) != nil
	case opt.Bool != nil:
		return *opt.Bool(o) != nil
	case opt.String != nil:
		return *opt.String(o) != nil
	}
	return false
}

// apply gives dst the option's value in src: src's list added to dst's for
// an Accumulate option, else src's value.
func (opt Option) apply(dst, src *Options) {
	switch {
	case opt.List != nil && opt.Accumulate:
		*opt.List(dst) = append(*opt.List(dst), *opt.List(src)...)
	case opt.List != nil:
		*opt.List(dst) = *opt.List(src)
	case opt.Bool != nil:
		*opt.Bool(dst) = *opt.Bool(src)
	case opt.String != nil:
		*opt.String(dst) = *opt.String(src)
	}
}

// Table lists every option once. The command line's flags, Literal layers,
// Merge's record of which layer set what, the blame of errors, `eval`,
// init's cudapkgs.star template, docs/configuration.md's table and the
// Starlark builtins' tests read it, so a new option is one entry here, its
// field in Options, and its builtin.
func Table() []Option {
	return []Option{
		{Name: "cuda", Flag: "cuda", Builtin: "cuda_versions", Split: true,
			List:    func(o *Options) *[]string { return &o.CUDA },
			Usage:   "CUDA versions: a release (12.4.1) or a prefix meaning its newest release (12.4, 12); default: every release in the manifests",
			Doc:     "CUDA versions: releases, or prefixes meaning their newest release.\nDefault: every CUDA release in the manifests.",
			Example: `cuda_versions(["12.4.1", "12.6"])`},
		{Name: "capabilities", Flag: "capabilities", Builtin: "capabilities", Split: true,
			List:    func(o *Options) *[]string { return &o.Capabilities },
			Usage:   "GPU compute capabilities (8.0,9.0a); default: each CUDA version's defaults",
			Doc:     "GPU compute capabilities to build for. Default: each CUDA version's defaults.",
			Example: `capabilities(["8.0", "9.0a"])`},
		{Name: "forward_compat", Flag: "forward-compat", Builtin: "forward_compat",
			Bool:    func(o *Options) **bool { return &o.ForwardCompat },
			Usage:   "embed PTX for the newest capability so newer GPUs can JIT it",
			Doc:     "Embed PTX for the newest capability, so that newer GPUs can compile it at run time.",
			Example: `forward_compat(True)`},
		{Name: "exec", Flag: "exec", Builtin: "exec_platform",
			String:  func(o *Options) **string { return &o.Exec },
			Usage:   "platform builds run on (default linux-x86_64)",
			Doc:     "The platform builds run on. Default: linux-x86_64.",
			Example: `exec_platform("linux-x86_64")`},
		{Name: "targets", Flag: "platform", Builtin: "target_platforms", Split: true,
			List:    func(o *Options) *[]string { return &o.Targets },
			Usage:   "target platforms: linux-x86_64, linux-sbsa, linux-jetson (alias linux-aarch64), linux-ppc64le, windows-x86_64, windows-arm64 (default: linux-x86_64,linux-sbsa,linux-jetson)",
			Doc:     "The platforms to build for: linux-x86_64, linux-sbsa (server ARM), linux-jetson,\nlinux-ppc64le, windows-x86_64, windows-arm64 (Windows: no archive usable yet). Default: linux-x86_64, linux-sbsa, linux-jetson.",
			Example: `target_platforms(["linux-x86_64", "linux-sbsa", "linux-jetson"])`},
		{Name: "pins", Flag: "pin", Builtin: "pin", Accumulate: true, Entries: true,
			List:    func(o *Options) *[]string { return &o.Pins },
			Usage:   "pin a product's release: PRODUCT=8.9, or for one CUDA version PRODUCT@12.2=8.9 (repeatable or comma-separated; adds to the configuration file's pins)",
			Doc:     "Which release of a product serves the default names (@cuda//:<product>), for all CUDA\nversions or those with a prefix. Default: the newest compatible release.",
			Example: "pin(\"<product>\", \"8.9\")\npin(\"<product>\", \"9\", cuda = \"12.6\")"},
		{Name: "mirrors", Flag: "mirror", Builtin: "mirrors",
			List:    func(o *Options) *[]string { return &o.Mirrors },
			Usage:   "base URL with NVIDIA's layout, tried before NVIDIA (repeatable, or comma-separated where each starts with https://, http:// or file://; in order)",
			Doc:     "Mirrors with NVIDIA's layout, tried before NVIDIA's servers.",
			Example: `mirrors(["https://mirror.example.com/nvidia"])`},
		{Name: "sources", Flag: "source", Builtin: "product_sources", Split: true, Entries: true,
			List:    func(o *Options) *[]string { return &o.Sources },
			Usage:   "where a product offered both ways comes from: PRODUCT=wheels (a Python package index) or PRODUCT=nvidia (NVIDIA's manifests; the default where they exist); comma-separated or repeatable",
			Doc:     "Where a product published both as NVIDIA manifests and as wheels comes from: nvidia or\nwheels (docs/sources.md). Default: NVIDIA's manifests where they exist.",
			Example: `product_sources(["<product>=wheels"])`},
		{Name: "local_cuda", Flag: "local-cuda", Builtin: "local_cuda",
			String:  func(o *Options) **string { return &o.LocalCUDA },
			Usage:   "root of an installed CUDA to use instead of downloads for its version and platform: /usr (Debian's nvidia-cuda-toolkit), /usr/local/cuda, or a folder of unpacked archives (see docs/local-cuda.md)",
			Doc:     "An installed CUDA used instead of downloads for its version (docs/local-cuda.md).",
			Example: `local_cuda("/usr/local/cuda")`},
		{Name: "local_components", Flag: "local-components", Builtin: "local_cuda", Split: true,
			List:    func(o *Options) *[]string { return &o.LocalComponents },
			Usage:   "components to take from --local-cuda, each required (default: every component the install has, the toolkit's compiler and runtime required)",
			Doc:     "The components to take from the installed CUDA, each required. Default: every component\nthe install has, its compiler and runtime required.",
			Example: `local_cuda("/usr/local/cuda", components = ["<compiler>", "<runtime>"])`},
		{Name: "plugins", Flag: "plugin", Builtin: "plugin", Entries: true,
			List:    func(o *Options) *[]string { return &o.Plugins },
			Usage:   "third-party fixup plugin: PATH=SHA256 of its binary (repeatable, or comma-separated where each is PATH=SHA256); one that claims a built-in product replaces the built-in for it",
			Doc:     "A fixup plugin of your own and its program's sha256, as sha256sum prints it\n(docs/plugin-authoring.md).",
			Example: `plugin(path = "tools/fixup-acme", sha256 = "` + strings.Repeat("0", 64) + `")`},
	}
}

// Lookup is the option of Table named name.
func Lookup(name string) (Option, bool) {
	for _, opt := range Table() {
		if opt.Name == name {
			return opt, true
		}
	}
	return Option{}, false
}

// SetByAll names, for every option, the layer that set it last ("" when
// none did): what `eval` shows.
func (m Merged) SetByAll() map[string]string {
	out := map[string]string{}
	for _, opt := range Table() {
		out[opt.Name] = m.setBy[opt.Name]
	}
	return out
}

// Blame fills in an *OptionError (the one err is or wraps) the layer that
// set its option, or gave the entry at fault, how that layer names the
// option, where it set it, and the spelling of the options its text names.
// Callers that check options after the configuration is built (an
// installed CUDA) blame their errors the same way. Other errors are left
// as they are.
func (m Merged) Blame(err error) {
	var oe *OptionError
	if !errors.As(err, &oe) {
		return
	}
	oe.Layer, oe.Name = m.setBy[oe.Option], m.named[oe.Option]
	if by, ok := m.entryBy[oe.Option][oe.Entry]; ok && oe.Entry != "" {
		oe.Layer, oe.Name = by[0], by[1]
	}
	opt, known := Lookup(oe.Option)
	if n, ok := m.namer.(Namer); ok && known && oe.Name == "" && (oe.Layer == "" || oe.Layer == Defaults{}.Name()) {
		oe.Name = n.OptionName(opt)
	}
	if p, ok := m.layers[oe.Layer].(Positioner); ok {
		oe.Pos = p.OptionPosition(oe.Option, oe.Entry)
	}
	var msg *message
	if errors.As(oe.Err, &msg) {
		blamed := m.layers[oe.Layer]
		msg.spell = func(r Ref) string { return m.spell(r, blamed) }
	}
}

// spell names option r inside a message about an option blamed on a
// layer: as the layer that set r writes it, else as the blamed layer does,
// else as the last namer does.
func (m Merged) spell(r Ref, blamed Layer) string {
	opt, ok := Lookup(string(r))
	if !ok {
		return "option " + string(r)
	}
	for _, l := range []Layer{m.layers[m.setBy[opt.Name]], blamed, m.namer} {
		switch n := l.(type) {
		case RefNamer:
			return n.OptionRef(opt)
		case Namer:
			return n.OptionName(opt)
		}
	}
	return "option " + opt.Name
}
