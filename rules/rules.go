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
