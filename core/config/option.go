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
	Err   error
}

func (e *OptionError) Error() string { return "option " + e.Option + ": " + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

func optionError(option, entry, format string, args ...any) *OptionError {
	return &OptionError{Option: option, Entry: entry, Err: fmt.Errorf(format, args...)}
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
	// Flag is the command-line flag that sets it ("" when none does).
	Flag  string
	isSet func(*Options) bool
	copy  func(dst, src *Options)
}

// Table lists every option once. Literal layers, Merge's record of which
// layer set what, and the command line's blame all read it, so a new option
// is one entry here plus its field.
func Table() []Option {
	list := func(name, flag string, f func(*Options) *[]string) Option {
		return Option{Name: name, Flag: flag,
			isSet: func(o *Options) bool { return *f(o) != nil },
			copy:  func(dst, src *Options) { *f(dst) = *f(src) }}
	}
	return []Option{
		list("cuda", "cuda", func(o *Options) *[]string { return &o.CUDA }),
		list("capabilities", "capabilities", func(o *Options) *[]string { return &o.Capabilities }),
		{Name: "forward_compat", Flag: "forward-compat",
			isSet: func(o *Options) bool { return o.ForwardCompat != nil },
			copy:  func(dst, src *Options) { dst.ForwardCompat = src.ForwardCompat }},
		{Name: "exec", Flag: "exec",
			isSet: func(o *Options) bool { return o.Exec != nil },
			copy:  func(dst, src *Options) { dst.Exec = src.Exec }},
		list("targets", "platform", func(o *Options) *[]string { return &o.Targets }),
		list("pins", "pin", func(o *Options) *[]string { return &o.Pins }),
		list("mirrors", "mirror", func(o *Options) *[]string { return &o.Mirrors }),
		list("plugins", "plugin", func(o *Options) *[]string { return &o.Plugins }),
		{Name: "local_cuda", Flag: "local-cuda",
			isSet: func(o *Options) bool { return o.LocalCUDA != nil },
			copy:  func(dst, src *Options) { dst.LocalCUDA = src.LocalCUDA }},
		list("local_components", "local-components", func(o *Options) *[]string { return &o.LocalComponents }),
	}
}
