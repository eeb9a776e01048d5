package cusparselt

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
)

// TestWheels checks the plugin against the file lists of NVIDIA's
// cuSPARSELt wheels of the same releases (plugins/internal/wheelfiles,
// docs/wheels.md): the header folder and the shared library by SONAME the
// plugin names must be in the wheel, and every shared library of the wheel
// must be named.
func TestWheels(t *testing.T) { wheelfiles.Check(t, fx, New(), Product) }
