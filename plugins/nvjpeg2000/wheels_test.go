package nvjpeg2000

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
)

// TestWheels checks the plugin against the file lists of NVIDIA's
// nvJPEG2000 wheels of the same release: the header folder and
// libnvjpeg2k.so.0 must be in the wheel, and every shared library of the
// wheel must be named.
func TestWheels(t *testing.T) { wheelfiles.Check(t, fx, New(), Product) }
