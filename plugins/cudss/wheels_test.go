package cudss

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
)

// TestWheels checks the plugin against the file lists of NVIDIA's cuDSS
// wheels of the same releases (plugins/internal/wheelfiles, docs/wheels.md):
// the header folder and libcudss.so.0 must be in the wheel, and every
// shared library of the wheel (the layers included) must be named, as a
// shared library or as data.
func TestWheels(t *testing.T) { wheelfiles.Check(t, fx, New(), Product) }
