// Command sitepolicy is an example third-party cudapkgs plugin: a site's
// policy layered over the built-in cuDNN knowledge.
//
// It takes over the cudnn product (a declared plugin that claims a built-in
// product replaces the built-in for it), asks the built-in cuDNN fixer for
// its answer, and then applies the site's rules: cuDNN releases older than
// the site's minimum are marked unusable everywhere, with the reason users
// will see at analysis time. Build it, take its sha256, and declare it:
//
//	go build -o sitepolicy .
//	cudapkgs query --plugin "$PWD/sitepolicy=$(sha256sum sitepolicy | cut -d' ' -f1)" ...
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cudapkgs/cudapkgs/plugins/cudnn"
	"github.com/cudapkgs/cudapkgs/plugins/sdk"
)

// minMajor is the oldest cuDNN major the site supports; SITEPOLICY_MIN_CUDNN
// overrides it, which shows a plugin reading its own configuration.
const minMajor = 9

type policy struct {
	builtin  sdk.Fixer
	minMajor int
}

func (p policy) Describe() sdk.Description {
	return sdk.Description{Name: "sitepolicy", Products: []string{"cudnn"}}
}

func (p policy) Fixup(ctx context.Context, b *sdk.Batch) (*sdk.Result, error) {
	res, err := p.builtin.Fixup(ctx, b)
	if err != nil {
		return nil, err
	}
	releases := map[string]string{}
	for _, pkg := range b.Packages {
		releases[pkg.Name] = pkg.Release
	}
	for i, pr := range res.Packages {
		major, _ := strconv.Atoi(strings.SplitN(releases[pr.Name], ".", 2)[0])
		if major >= p.minMajor {
			continue
		}
		why := fmt.Sprintf("site policy (example.com): cuDNN %s is older than cuDNN %d, the oldest this site supports", releases[pr.Name], p.minMajor)
		if pr.Platforms == nil {
			pr.Platforms = map[string]sdk.PlatformResult{}
		}
		for _, t := range b.Config.Targets {
			r := pr.Platforms[t]
			r.Unusable = append(r.Unusable, why)
			pr.Platforms[t] = r
		}
		res.Packages[i] = pr
	}
	return res, nil
}

func main() {
	p := policy{builtin: cudnn.New(), minMajor: minMajor}
	if v := os.Getenv("SITEPOLICY_MIN_CUDNN"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "sitepolicy: SITEPOLICY_MIN_CUDNN=%q: expected a cuDNN major version\n", v)
			os.Exit(1)
		}
		p.minMajor = n
	}
	sdk.Serve(p)
}
