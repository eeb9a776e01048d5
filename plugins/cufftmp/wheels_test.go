package cufftmp

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/internal/fixuptest"
	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
	"github.com/cudapkgs/cudapkgs/plugins/redist"
)

// TestWheels checks the plugin against the file lists of NVIDIA's wheels
// (plugins/internal/wheelfiles, docs/wheels.md): every file it names is in
// the wheel, and every file of the wheel is named.
func TestWheels(t *testing.T) {
	wheelfiles.Check(t, fixuptest.New(redist.New(), New()), New(), Product)
}
