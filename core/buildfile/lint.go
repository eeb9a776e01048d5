package buildfile

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/bazelbuild/buildtools/build"
	"github.com/bazelbuild/buildtools/warn"
)

// Lint checks every generated file as buildifier would: it parses, it
// starts with the header, formatting it again changes nothing, and
// buildtools' default warnings (warn.DefaultWarnings: every category but
// unsorted-dict-items) find nothing.
func Lint(tree Tree) []string {
	var problems []string
	for _, p := range tree.Paths() {
		b := tree[p]
		if !bytes.HasPrefix(b, []byte(Header+"\n")) {
			problems = append(problems, p+": does not start with the header")
		}
		var f *build.File
		var err error
		switch {
		case strings.HasSuffix(p, ".bzl"):
			f, err = build.ParseBzl(p, b)
		case p == "WORKSPACE":
			f, err = build.ParseWorkspace(p, b)
		default:
			f, err = build.ParseBuild(p, b)
		}
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if again := build.Format(f); !bytes.Equal(again, b) {
			problems = append(problems, p+": not as buildifier formats it")
		}
		for _, w := range warn.FileWarnings(f, warn.DefaultWarnings, nil, warn.ModeWarn, nil) {
			problems = append(problems, fmt.Sprintf("%s:%d: ", p, w.Start.Line)+w.Category+": "+w.Message)
		}
	}
	return problems
}
