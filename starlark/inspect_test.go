package starlark

import "github.com/cudapkgs/cudapkgs/core/config"

// What the tests read of a File besides what the run uses.

// Options is a copy of the options the file set (nil where unset).
func (f *File) Options() config.Options {
	o := f.options
	o.CUDA = clone(o.CUDA)
	o.Capabilities = clone(o.Capabilities)
	o.Targets = clone(o.Targets)
	o.Pins = clone(o.Pins)
	o.Mirrors = clone(o.Mirrors)
	o.Plugins = clone(o.Plugins)
	o.LocalComponents = clone(o.LocalComponents)
	return o
}

func clone(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string{}, s...)
}

// Position returns where the file set an option ("file:line:col"; the
// latest call for options set twice, the first pin or plugin for pins and
// plugins), or "" when the file did not set it. Options are named as in
// config's messages: cuda, capabilities, forward_compat, exec, targets,
// pins, mirrors, plugins.
func (f *File) Position(option string) string { return f.pos[option] }

// Overrides lists the declared overrides as "file:line:col: package" (with
// " (CUDA x)" when limited), in the order they apply.
func (f *File) Overrides() []string {
	var out []string
	for _, o := range f.overrides {
		s := o.pos + ": " + o.name
		if o.set {
			s = o.pos + ": (whole set)"
		}
		if !o.cuda.IsZero() {
			s += " (CUDA " + o.cuda.String() + ")"
		}
		out = append(out, s)
	}
	return out
}
