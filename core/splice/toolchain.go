package splice

import (
	"fmt"

	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// ToolchainFrom makes the toolchain the toolkit's plugin describes.
func ToolchainFrom(t sdk.Toolchain) (Toolchain, error) {
	type since struct {
		from     version.Version
		packages []string
	}
	var hs []since
	for _, h := range t.Headers {
		s := since{packages: h.Packages}
		if h.Since != "" {
			v, err := version.Parse(h.Since)
			if err != nil {
				return Toolchain{}, fmt.Errorf("toolchain headers since: %w", err)
			}
			s.from = v
		}
		hs = append(hs, s)
	}
	return Toolchain{
		Compiler: t.Compiler,
		Runtime:  t.Runtime,
		Headers: func(cuda version.Version) []string {
			var out []string
			for _, h := range hs {
				if h.from.IsZero() || !cuda.Less(h.from) {
					out = h.packages
				}
			}
			return append([]string(nil), out...)
		},
	}, nil
}
