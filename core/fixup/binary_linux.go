package fixup

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// privateCopy makes an anonymous memory file (memfd) to copy the plugin
// into; where memfds cannot be executed, an unlinked file in a private
// temporary folder. Either is executed through /proc/self/fd.
func privateCopy(name string) (*checked, *os.File, error) {
	fd, err := unix.MemfdCreate("cudapkgs-plugin-"+name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if err == unix.EINVAL {
		// A kernel before 6.3 knows no MFD_EXEC; its memfds are executable.
		fd, err = unix.MemfdCreate("cudapkgs-plugin-"+name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err == nil {
		return &checked{cleanup: func() {}}, os.NewFile(uintptr(fd), "memfd:cudapkgs-plugin-"+name), nil
	}
	dir, err := os.MkdirTemp("", "cudapkgs-plugin-")
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "plugin"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	c := &checked{path: f.Name()}
	c.cleanup = func() { os.RemoveAll(dir) }
	return c, f, nil
}

// seal makes the copy unchangeable and keeps a read-only descriptor of it:
// a file with a writable descriptor open cannot be executed.
func (c *checked) seal(w *os.File) error {
	defer w.Close()
	if c.path == "" {
		if _, err := unix.FcntlInt(w.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE); err != nil {
			return fmt.Errorf("sealing the private copy: %w", err)
		}
	}
	ro, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", w.Fd()))
	if err != nil {
		return fmt.Errorf("reopening the private copy: %w", err)
	}
	c.exe = ro
	if c.path != "" {
		// Unlinked, it lives on through the descriptor only.
		c.cleanup()
		c.cleanup, c.path = func() {}, ""
	}
	return nil
}

// command is the plugin's command line, executing the checked copy: the
// copy is the child's descriptor 3 (kept open, so that a script's
// interpreter can read it too), and Args[0] stays the declared path.
func (c *checked) command(args []string) (path string, extra []*os.File) {
	return "/proc/self/fd/3", []*os.File{c.exe}
}

// selfImage is this program's own image, for the plugins it serves itself.
type selfImage struct{ exe *os.File }

// openSelf opens the image this process runs. /proc/self/exe names the file
// the kernel executed, even after the path it was started from is renamed
// over, removed or replaced: the built-ins run the host's bytes. (Writing
// the running binary in place is refused with ETXTBSY by most kernels;
// where it is allowed, it changes the host's own code as well.)
func openSelf() (*selfImage, error) {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return nil, err
	}
	return &selfImage{exe: f}, nil
}

// command executes the image as the child's descriptor 3, as checked.command
// does a third party's copy; Args[0] stays the path it was started as.
func (s *selfImage) command(args []string) (path string, extra []*os.File) {
	return "/proc/self/fd/3", []*os.File{s.exe}
}

func (s *selfImage) close() { s.exe.Close() }
