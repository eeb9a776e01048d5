//go:build !linux

package fixup

import "os/exec"

// setParentDeathSignal: no parent-death signal here; the pipe the plugin
// watches is what ends it.
func setParentDeathSignal(*exec.Cmd) {}
