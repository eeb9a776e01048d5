// Package rules holds the Bazel rule sources that `cudapkgs generate` copies
// into the repositories it writes (core/bazel): cuda.bzl becomes
// //rules:cuda.bzl of the generated hub.
package rules

import _ "embed"

// CudaBzl is cuda.bzl: cuda_library, cuda_binary, cuda_test, the nvcc
// toolchain rule and the capabilities build setting.
//
//go:embed cuda.bzl
var CudaBzl []byte

// SetupBzl is setup.bzl: cuda_settings and cuda_declare, shared by the
// WORKSPACE macro and the module extension, and the repository rules they use.
//
//go:embed setup.bzl
var SetupBzl []byte

// ExtensionsBzl is extensions.bzl: the cuda module extension and its tags.
//
//go:embed extensions.bzl
var ExtensionsBzl []byte

// LocalBzl is local.bzl: reading an installed CUDA and the repository rule
// that links its files in place of an archive.
//
//go:embed local.bzl
var LocalBzl []byte
