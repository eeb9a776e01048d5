package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// Every command's --help has an example, cobra's completion and help
// commands included.
func TestEveryCommandHasExample(t *testing.T) {
	a := &app{}
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		n++
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%q has no example", c.CommandPath())
		} else if !strings.Contains(c.Example, "cudapkgs ") {
			t.Errorf("%q: example %q does not run cudapkgs", c.CommandPath(), c.Example)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCmd())
	if n < 15 {
		t.Errorf("only %d commands walked", n)
	}
	freshHome(t)
	for _, args := range [][]string{{"--help"}, {"generate", "--help"}, {"completion", "bash", "--help"}, {"plugins", "list", "--help"}} {
		code, stdout, stderr := runAt(t, time.Time{}, args...)
		if code != 0 || !strings.Contains(stdout, "\nExamples:\n  ") {
			t.Errorf("%v: exit %d, no Examples section: %s%s", args, code, stdout, stderr)
		}
	}
}

// plugins list reads no manifest: it works with --manifests naming a
// folder that is not there, and on a machine with no cache.
func TestPluginsListNeedsNoManifests(t *testing.T) {
	freshHome(t)
	for _, args := range [][]string{{"plugins", "list"}, {"plugins", "list", "--manifests", "/nonexistent/manifests"}} {
		code, stdout, stderr := runAt(t, time.Time{}, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if !strings.HasPrefix(stdout, "NAME") || strings.Count(stdout, "builtin") < 6 {
			t.Errorf("%v: %s", args, stdout)
		}
	}
}

// completion writes a script for each shell.
func TestCompletion(t *testing.T) {
	freshHome(t)
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, stdout, stderr := runAt(t, time.Time{}, "completion", shell)
		if code != 0 || !strings.Contains(stdout, "cudapkgs") || len(stdout) < 500 {
			t.Errorf("%s: exit %d, %d bytes: %s", shell, code, len(stdout), stderr)
		}
	}
}
