//go:build !(linux || darwin || freebsd)

package starlark

// addressSpaceLimit: this system's address-space limit is not read (see
// limits.go); only the configured budget applies.
func addressSpaceLimit() (uint64, bool) { return 0, false }
