package fixup

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// Validate is validate for the fuzz test, with no renames.
func Validate(plugin string, b *sdk.Batch, r *sdk.Result) error { return validate(plugin, b, r, nil) }
