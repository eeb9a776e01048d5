package redist

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
)

// TestWheels checks the tables against the file lists of NVIDIA's wheels of
// the same component versions (plugins/internal/wheelfiles, docs/wheels.md):
// a shared library, header folder or tool the tables name must be in the
// wheel, and every shared library of the wheel must be named by a package.
func TestWheels(t *testing.T) { wheelfiles.Check(t, fx, New(), Product) }
