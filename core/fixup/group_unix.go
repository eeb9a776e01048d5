//go:build unix

package fixup

import "syscall"

// killGroup sends SIGKILL to the process group the plugin leads (isolate):
// the plugin and whatever it started that stayed in its group, such as a
// wrapper script's children.
func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }
