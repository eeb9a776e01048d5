//go:build !race

package starlark

const raceEnabled = false
