package nvpl

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/plugins/internal/wheelfiles"
)

// TestWheels checks the plugin against the file lists of NVIDIA's NVPL
// wheels of the 26.5 components: every header folder and linked library
// must be in its wheel, and every shared library of a wheel must be named,
// linked or as data.
func TestWheels(t *testing.T) { wheelfiles.Check(t, fx, New(), Product) }
