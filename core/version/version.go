// Package version holds NVIDIA's dotted version numbers for the core. The
// type is the plugin contract's (sdk.Version), so that host and plugins
// read versions alike and a plugin needs nothing of the core; this package
// gives it the core's names.
package version

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Version is an immutable parsed version. The zero value is invalid; use Parse.
type Version = sdk.Version

// Parse reads a dotted version of one or more non-negative integers.
func Parse(s string) (Version, error) { return sdk.ParseVersion(s) }

// New builds a version from its parts (at least one, non-negative).
func New(parts ...int) Version { return sdk.NewVersion(parts...) }

// MustParse is Parse for versions written in the source code; it panics on error.
func MustParse(s string) Version { return sdk.MustVersion(s) }
