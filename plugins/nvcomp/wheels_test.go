package nvcomp

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
)

// TestWheels checks the plugin against the file lists of NVIDIA's native
// nvCOMP wheels of the same release: the header folder, both libraries by
// SONAME and bin/nvlzcat must be in the wheel, and every shared library of
// the wheel must be named.
func TestWheels(t *testing.T) { wheelfiles.Check(t, fx, New(), Product) }
