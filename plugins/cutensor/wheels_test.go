package cutensor

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
)

// TestWheels checks the plugin against the file lists of NVIDIA's cuTENSOR
// wheels of the same releases (plugins/internal/wheelfiles, docs/wheels.md):
// a shared library, header folder or tool the plugin names must be in the
// wheel, and every shared library of the wheel must be named.
func TestWheels(t *testing.T) { wheelfiles.Check(t, fx, New(), "cutensor") }
