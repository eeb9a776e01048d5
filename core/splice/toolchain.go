package splice

import (
	"fmt"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// ToolchainFrom makes the toolchain the toolkit's plugin describes.
func ToolchainFrom(t sdk.Toolchain) (Toolchain, error) {
	headers, err := byVersion("headers", t.Headers)
	if err != nil {
		return Toolchain{}, err
	}
	clang, err := byVersion("clang headers", t.ClangHeaders)
	if err != nil {
		return Toolchain{}, err
	}
	return Toolchain{Compiler: t.Compiler, Runtime: t.Runtime, Headers: headers, ClangHeaders: clang}, nil
}

// byVersion turns header lists with a Since into the function of the CUDA
// version that picks the last applicable one.
func byVersion(what string, list []sdk.ToolchainHeaders) (func(version.Version) []string, error) {
	type since struct {
		from     version.Version
		packages []string
	}
	var hs []since
	for _, h := range list {
		s := since{packages: h.Packages}
		if h.Since != "" {
			v, err := version.Parse(h.Since)
			if err != nil {
				return nil, fmt.Errorf("toolchain %s since: %w", what, err)
			}
			s.from = v
		}
		hs = append(hs, s)
	}
	return func(cuda version.Version) []string {
		var out []string
		for _, h := range hs {
			if h.from.IsZero() || !cuda.Less(h.from) {
				out = h.packages
			}
		}
		return append([]string(nil), out...)
	}, nil
}
