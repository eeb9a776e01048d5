package bazel

import (
	"testing"

	"github.com/cudapkgs/cudapkgs/core/emit"
	"github.com/cudapkgs/cudapkgs/core/localcuda"
	"github.com/cudapkgs/cudapkgs/core/splice"
	"github.com/cudapkgs/cudapkgs/core/version"
	"github.com/cudapkgs/cudapkgs/internal/emittest"
)

// emitter runs the tests every emitter shares. Generate copies the rule
// sources of rules/ into the tree, under the header: those are held to
// rules/ itself, and testdata keeps only what the generator writes.
func emitter() emittest.Emitter {
	return emittest.Emitter{
		Format:  Format(),
		Options: testOptions,
		Copies: map[string]string{
			"rules/cuda.bzl":  "../../rules/cuda.bzl",
			"rules/setup.bzl": "../../rules/setup.bzl",
			"rules/local.bzl": "../../rules/local.bzl",
			"extensions.bzl":  "../../rules/extensions.bzl",
		},
		CopyPrefix: Header + "\n",
	}
}

func TestGolden(t *testing.T)        { emitter().TestGolden(t) }
func TestDeterministic(t *testing.T) { emitter().TestDeterministic(t) }
func TestLint(t *testing.T)          { emitter().TestLint(t) }

// testOptions name the toolchain's packages as the toolkit plugin does.
var testOptions = emit.Options{Toolchain: splice.Toolchain{
	Compiler: "cuda_nvcc",
	Runtime:  "cuda_cudart",
	Headers: func(cuda version.Version) []string {
		if cuda.Major() < 13 {
			return []string{"cuda_cudart", "cuda_nvcc"}
		}
		return []string{"cuda_cudart", "cuda_crt"}
	},
},
	Local: emit.Local{
		Product:  "cuda",
		Identify: []string{"cuda_nvcc", "cuda_cudart"},
		Hints: []localcuda.Hint{
			{Component: "cuda_nvcc", Rel: "bin/nvcc", Kind: localcuda.KindText, Key: ", V"},
			{Component: "cuda_cudart", Rel: "lib", Kind: localcuda.KindName, Key: "libcudart.so."},
		},
	},
}
