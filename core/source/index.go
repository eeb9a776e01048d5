package source

import (
	"fmt"
	"path"
	"regexp"
	"sort"

	"github.com/cudapkgs/cudapkgs/core/manifest"
	"github.com/cudapkgs/cudapkgs/core/version"
)

// hrefRE finds links in an Apache-style folder listing, quoted with " or '
// or not at all.
var hrefRE = regexp.MustCompile(`(?i)href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`)

// ParseIndex returns the releases of the redistrib_<version>.json files a
// folder listing links to, oldest first (numeric order), without duplicates.
// Links whose version does not parse (redistrib_12.4.1_beta.json) and other
// files are ignored.
func ParseIndex(page []byte) []string {
	type rel struct {
		text string
		v    version.Version
	}
	seen := map[string]bool{}
	var rels []rel
	for _, m := range hrefRE.FindAllSubmatch(page, -1) {
		link := string(m[1]) + string(m[2]) + string(m[3])
		r, ok := manifest.ReleaseFromFileName(path.Base(link))
		if !ok || seen[r] {
			continue
		}
		v, err := version.Parse(r)
		if err != nil {
			continue
		}
		seen[r] = true
		rels = append(rels, rel{r, v})
	}
	sort.SliceStable(rels, func(i, j int) bool {
		if c := rels[i].v.Compare(rels[j].v); c != 0 {
			return c < 0
		}
		return rels[i].text < rels[j].text
	})
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = r.text
	}
	return out
}

// errEmptyIndex is a listing that links to no manifest.
func errEmptyIndex(u string) error {
	return fmt.Errorf("%s: the folder listing links to no redistrib_<version>.json file", u)
}
