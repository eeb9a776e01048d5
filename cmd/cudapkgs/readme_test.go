package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's commands are for users: none names a path that only this
// project's own checkout has (../shared holds the manifests its tests read).
func TestReadmeCommandsNeedNoCheckout(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// Code spans and the lines of code blocks that run cudapkgs.
	cmds := regexp.MustCompile("`(cudapkgs [^`]*)`|(?m)^(cudapkgs .*)$").FindAllStringSubmatch(string(b), -1)
	if len(cmds) < 5 {
		t.Fatalf("only %d cudapkgs commands found in README.md", len(cmds))
	}
	for _, m := range cmds {
		cmd := m[1] + m[2]
		if strings.Contains(cmd, "shared/") {
			t.Errorf("README.md: %q names a folder only this project's checkout has", cmd)
		}
	}
}
