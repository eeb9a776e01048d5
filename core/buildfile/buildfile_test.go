package buildfile

import (
	"strings"
	"testing"

	"github.com/bazelbuild/buildtools/build"
)

func TestFormatStartsWithHeader(t *testing.T) {
	f := NewFile("BUILD.bazel", build.TypeBuild)
	f.Stmt = append(f.Stmt, Call("filegroup", Arg("name", Str("b")), Arg("srcs", SortedStrList([]string{"z", "a", "z"}))))
	got := string(Format(f))
	want := Header + "\nfilegroup(\n    name = \"b\",\n    srcs = [\n        \"a\",\n        \"z\",\n    ],\n)\n"
	if got != want {
		t.Fatalf("Format:\n%s\nwant:\n%s", got, want)
	}
	if p := Lint(Tree{"BUILD.bazel": []byte(got)}); len(p) != 0 {
		t.Fatalf("Lint of a formatted file: %v", p)
	}
}

func TestLintFindsProblems(t *testing.T) {
	for _, tc := range []struct {
		name, path, text, want string
	}{
		{"no header", "BUILD", "filegroup(name = \"a\")\n", "does not start with the header"},
		{"not formatted", "BUILD", Header + "\nfilegroup(name=\"a\")\n", "not as buildifier formats it"},
		{"parse error", "x.bzl", Header + "\ndef (\n", "x.bzl:"},
		{"warning", "x.bzl", Header + "\n\"\"\"Doc.\"\"\"\n\ndef f():\n    x = 1\n", "unused-variable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Lint(Tree{tc.path: []byte(tc.text)})
			if !strings.Contains(strings.Join(p, "\n"), tc.want) {
				t.Fatalf("Lint = %q, want a problem with %q", p, tc.want)
			}
		})
	}
}
