//go:build !linux

package fixup

import (
	"os"
	"path/filepath"
)

func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }

// privateCopy makes a file in a private temporary folder to copy the plugin
// into; it is executed by its path and removed when the host closes.
func privateCopy(name string) (*checked, *os.File, error) {
	dir, err := os.MkdirTemp("", "cudapkgs-plugin-")
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return &checked{path: f.Name(), cleanup: func() { os.RemoveAll(dir) }}, f, nil
}

func (c *checked) seal(w *os.File) error {
	if err := w.Close(); err != nil {
		return err
	}
	ro, err := os.Open(c.path)
	c.exe = ro
	return err
}

func (c *checked) command(args []string) (string, []*os.File) { return c.path, nil }

// selfImage: no way to execute this process's own image by descriptor
// here; Self plugins run Command[0] by path (docs/plugin-protocol.md).
type selfImage struct{}

func openSelf() (*selfImage, error) { return &selfImage{}, nil }

func (s *selfImage) command(args []string) (string, []*os.File) { return args[0], nil }

func (s *selfImage) close() {}
