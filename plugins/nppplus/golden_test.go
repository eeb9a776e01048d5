package nppplus

import "testing"

// TestGolden holds the plugin's answers to batches kept in testdata
// (fixuptest.Env.Golden): it runs without ../shared.
func TestGolden(t *testing.T) { fx.Golden(t, New(), Product, "11.8.0", "12.9.0", "12.4.1:7.0,8.0") }
