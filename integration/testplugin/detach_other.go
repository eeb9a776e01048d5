//go:build !unix

package main

import "os/exec"

// detach: no process groups here; the child stays as it is.
func detach(*exec.Cmd) {}
