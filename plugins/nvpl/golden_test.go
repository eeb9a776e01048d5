package nvpl

import "testing"

// TestGolden holds the plugin's answers to batches kept in testdata
// (fixuptest.Env.Golden): it runs without ../shared.
func TestGolden(t *testing.T) { fx.Golden(t, New(), Product, "12.9.0", "13.0.0") }
