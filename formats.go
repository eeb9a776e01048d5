package cudapkgs

import (
	"fmt"
	"strings"

	"github.com/cudapkgs/cudapkgs/core/bazel"
	"github.com/cudapkgs/cudapkgs/core/buck2"
	"github.com/cudapkgs/cudapkgs/core/emit"
)

// Formats lists the output formats, in the order help text names them:
// the one place a format is named. --format, its help and Generate's
// dispatch all read it; a new format is a package declaring one
// emit.Format and one line here (docs/output-formats.md).
func Formats() []emit.Format {
	return []emit.Format{
		bazel.Format(),
		buck2.Format(),
	}
}

// FormatNamed is the format of that name.
func FormatNamed(name string) (emit.Format, error) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, nil
		}
	}
	return emit.Format{}, &UnknownFormatError{Name: name}
}

// UnknownFormatError is a format name none of Formats has.
type UnknownFormatError struct{ Name string }

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("output format %q: expected %s", e.Name, e.Expected())
}

// Expected names the formats there are, "bazel or buck2", for a caller
// that renders the error its own way (the CLI names its flag).
func (e *UnknownFormatError) Expected() string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	return orList(names)
}

// FormatHelp describes the formats for a command's help: "bazel (a Bazel
// repository) or buck2 (a Buck2 cell)".
func FormatHelp() string {
	var items []string
	for _, f := range Formats() {
		items = append(items, f.Name+" ("+f.Doc+")")
	}
	return orList(items)
}

// orList joins items as "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
