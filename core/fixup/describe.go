package fixup

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// MaxDescribeText bounds every other string of a Describe answer (a URL, a
// path, a version, a hint's key): each is a short token, not prose.
const MaxDescribeText = 1024

// quotedMax is how much of a refused value a message quotes.
const quotedMax = 64

// checkDescription checks what a plugin says of itself before anything
// prints or uses it, so that `plugins list`, messages and file names get
// only plain names: the plugin's name, its products and the packages its
// renames and toolchain name follow the package-name grammar
// (manifest.CheckPackageName: [A-Za-z0-9][A-Za-z0-9_.-]*, at most
// manifest.MaxNameLen bytes); every other string is printable UTF-8 (no
// control or format characters, which a terminal could take as commands) of
// at most MaxDescribeText bytes. The answer as a whole is bounded before
// this, as it arrives (sdk.MaxDescribe). The error names the field and what
// was expected; the value is quoted, escaped and cut.
func checkDescription(d sdk.Description) error {
	if err := checkName("name", d.Name); err != nil {
		return err
	}
	if len(d.Products) == 0 {
		return fmt.Errorf("products: none: expected the products the plugin fixes")
	}
	seen := map[string]bool{}
	for _, p := range d.Products {
		if err := checkName("product", p); err != nil {
			return err
		}
		if seen[p] {
			return fmt.Errorf("product %s: listed twice: expected each product once", p)
		}
		seen[p] = true
	}
	for _, r := range d.Renames {
		if err := checkName("rename: package", r.Package); err != nil {
			return err
		}
		if err := checkName("rename of "+r.Package+": replaces", r.Replaces); err != nil {
			return err
		}
		if err := checkText("rename of "+r.Replaces+" to "+r.Package+": since", r.Since); err != nil {
			return err
		}
	}
	for _, f := range d.Facts {
		// Facts name a product of the plugin's (convertFacts): checked
		// as a name first, so that messages may print it.
		if err := checkName("facts: product", f.Product); err != nil {
			return err
		}
		for _, s := range factStrings(f) {
			var err error
			if s.name {
				err = checkName("facts of product "+f.Product+": "+s.field, s.value)
			} else {
				err = checkText("facts of product "+f.Product+": "+s.field, s.value)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// checkName checks a name against the package-name grammar.
func checkName(field, v string) error {
	if manifest.CheckPackageName(v) == nil {
		return nil
	}
	// The grammar's own message names a byte; this one names the
	// character and where it is.
	problem := "empty"
	switch {
	case v == "":
	case len(v) > manifest.MaxNameLen:
		problem = fmt.Sprintf("%d bytes long", len(v))
	default:
		for i, r := range v {
			alnum := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
			if !alnum && (i == 0 || !strings.ContainsRune("_-.", r)) {
				problem = fmt.Sprintf("character %s at byte %d", strconv.QuoteRuneToASCII(r), i)
				break
			}
		}
	}
	return fmt.Errorf("%s %s: %s: expected an ASCII letter or digit, then ASCII letters, digits, '_', '-' and '.', at most %d bytes", field, quote(v), problem, manifest.MaxNameLen)
}

// checkText checks a string that is not a name: printable, bounded.
func checkText(field, v string) error {
	switch {
	case len(v) > MaxDescribeText:
		return fmt.Errorf("%s %s: %d bytes: expected at most %d", field, quote(v), len(v), MaxDescribeText)
	case !utf8.ValidString(v):
		return fmt.Errorf("%s %s: not valid UTF-8: expected printable text", field, quote(v))
	}
	for _, r := range v {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("%s %s: control or format character %U: expected printable text", field, quote(v), r)
		}
	}
	return nil
}

// quote is v quoted for a message: escaped (no byte of it reaches a
// terminal raw) and cut to quotedMax bytes, with its full length.
func quote(v string) string {
	if len(v) <= quotedMax {
		return strconv.QuoteToASCII(v)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.QuoteToASCII(v[:quotedMax]), len(v))
}

// factString is one string of a product's facts, with where it is.
type factString struct {
	field, value string
	// name: a package or product name, else text.
	name bool
}

// factStrings are every string of f but its product, so that none is
// missed by checkDescription: a new field of sdk.ProductFacts belongs here.
func factStrings(f sdk.ProductFacts) []factString {
	text := func(field, v string) factString { return factString{field: field, value: v} }
	name := func(field, v string) factString { return factString{field: field, value: v, name: true} }
	out := []factString{text("base", f.Base), text("path", f.Path), text("strip prefix", f.StripPrefix)}
	for i, fc := range f.FlatCUDA {
		out = append(out, text(fmt.Sprintf("flat CUDA range %d: from", i), fc.From), text(fmt.Sprintf("flat CUDA range %d: below", i), fc.Below))
		for _, c := range fc.CUDA {
			out = append(out, text(fmt.Sprintf("flat CUDA range %d: CUDA", i), c))
		}
	}
	if t := f.Toolchain; t != nil {
		out = append(out, name("toolchain: compiler", t.Compiler), name("toolchain: runtime", t.Runtime))
		for _, hs := range []struct {
			what string
			list []sdk.ToolchainHeaders
		}{{"headers", t.Headers}, {"clang headers", t.ClangHeaders}} {
			what := hs.what
			for _, h := range hs.list {
				out = append(out, text("toolchain: "+what+": since", h.Since))
				for _, p := range h.Packages {
					out = append(out, name("toolchain: "+what, p))
				}
			}
		}
	}
	for _, h := range f.LocalHints {
		out = append(out, name("local hint: component", h.Component), text("local hint: rel", h.Rel), text("local hint: kind", h.Kind), text("local hint: key", h.Key))
	}
	for _, c := range f.LocalIdentify {
		out = append(out, name("local identify", c))
	}
	for _, p := range f.Platforms {
		out = append(out, text("platform", p))
	}
	for _, w := range f.Wheels {
		out = append(out, text("wheels: project", w.Project), text("wheels: package", w.Package), text("wheels: prefix", w.Prefix))
		for _, m := range w.CUDAMajors {
			out = append(out, text("wheels: CUDA major", m))
		}
	}
	return out
}
