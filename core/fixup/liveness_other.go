//go:build !unix

package fixup

import (
	"os"
	"os/exec"
)

// isolate: no parent-death signal and no process group here (Windows): the
// pipe the plugin watches is what ends it, and a plugin's own children are
// not ended by the host (docs/plugin-protocol.md).
func isolate(*exec.Cmd) (ctty, tty *os.File) { return nil, nil }

func waitLeader(int) bool { return false }

func killGroup(int) {}
