// Package allocs measures what an operation allocates, for tests that
// bound an operation by the memory it may take rather than by the seconds
// it takes: a count of bytes does not change with the machine's load.
package allocs

import "runtime"

// During is the number of bytes the process allocated while f ran,
// garbage included. Other goroutines' allocations count too: call it where
// nothing else runs (no parallel tests).
func During(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
