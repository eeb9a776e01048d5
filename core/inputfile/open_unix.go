//go:build unix

package inputfile

import (
	"os"
	"syscall"
)

// open opens without blocking: opening a named pipe for reading would
// otherwise wait for a writer.
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
