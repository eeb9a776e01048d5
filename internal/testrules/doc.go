// Package testrules holds checks on the project's tests themselves; it has
// no code of its own.
package testrules
