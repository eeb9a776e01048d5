// Package fixup is stage 4's host: it hands each product's packages to the
// plugin that knows them, over the plugin protocol, validates every answer,
// and folds the answers into the package sets.
package fixup
