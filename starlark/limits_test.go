package starlark

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A loaded module that is a named pipe, and one over the 4 MiB limit, are
// refused at once with their names; so is a configuration file that is a
// named pipe.
func TestStarFilesMustBeRegularAndSmall(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.star"), 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo-config.star"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := "X = 1\n" + strings.Repeat("#", 5<<20) + "\n"
	for name, src := range map[string]string{
		"big.star":       big,
		"load-pipe.star": "load(\"pipe.star\", \"X\")\n",
		"load-big.star":  "load(\"big.star\", \"X\")\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := interp(t, dir)
	for file, want := range map[string]string{
		"load-pipe.star":   "cannot load pipe.star: reading pipe.star: " + filepath.Join(dir, "pipe.star") + ": Starlark file is a named pipe (FIFO), not a regular file: refused",
		"load-big.star":    "cannot load big.star: reading big.star: " + filepath.Join(dir, "big.star") + ": Starlark file is 5242887 bytes, over the 4 MiB limit for a Starlark file: refused",
		"fifo-config.star": "Starlark file is a named pipe (FIFO)",
	} {
		done := make(chan error, 1)
		go func() {
			_, err := in.EvalConfig(context.Background(), filepath.Join(dir, file))
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(FormatError(err), want) {
				t.Errorf("%s: %v\nwant %s", file, FormatError(err), want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s hangs", file)
		}
	}
}
