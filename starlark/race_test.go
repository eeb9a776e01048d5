//go:build race

package starlark

// raceEnabled: the race detector reserves terabytes of address space for its
// shadow memory, so no run of this binary fits an RLIMIT_AS.
const raceEnabled = true
