package main

import (
	"os"
	"syscall"
	"testing"
)

// SIGTERM cancels the run as Ctrl-C does, so that the plugins' process
// groups are ended (core/fixup's TestWrapperGroupEnds), instead of ending
// cudapkgs with its plugins' children left behind. Without the handling,
// the signal ends this test process.
func TestSignalContextSIGTERM(t *testing.T) {
	ctx, stop := signalContext()
	defer stop()
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := self.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
}
