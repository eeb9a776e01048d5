package outdir

import (
	"os"
	"path/filepath"

	"github.com/google/renameio/v2/maybe"
)

// WriteFile writes one file, creating the folder that holds it: through a
// temporary file in that folder renamed over path, so that path is either
// the old file or the new one, never half-written (on Windows, where
// renameio cannot promise that, a plain write). It serves the single files
// cudapkgs writes outside a generated tree: init's cudapkgs.star, report's
// page.
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return maybe.WriteFile(path, data, 0o644)
}
