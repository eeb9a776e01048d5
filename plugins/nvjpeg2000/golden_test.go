package nvjpeg2000

import "testing"

// TestGolden holds the plugin's answers to batches kept in testdata
// (fixuptest.Env.Golden): it runs without ../shared.
func TestGolden(t *testing.T) { fx.Golden(t, New(), Product, "12.9.0", "13.0.0", "12.4.1:5.2,8.0") }
