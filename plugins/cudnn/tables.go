package cudnn

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// What each cuDNN major ships, and which GPUs each release serves. The sources
// of every row are in doc.go; tests check the tables against the manifests.

// sublib is one cuDNN sub-library besides the libcudnn shim, for the
// releases that ship it.
type sublib struct {
	name     string // "ops_infer": libcudnn_ops_infer.so.8, cudnn_ops_infer64_8.dll
	releases sdk.Range
}

var (
	cudnn8 = sdk.Range{From: "8", Below: "9"}
	cudnn9 = sdk.Range{From: "9", Below: "10"}
)

// sublibs of every major, in the order the shim documents them. cuDNN 8
// split the library into inference and training halves per layer family;
// cuDNN 9 reorganised it into the graph API, the engines, the heuristics and
// the legacy imperative APIs.
var sublibs = []sublib{
	{"ops_infer", cudnn8}, {"ops_train", cudnn8},
	{"cnn_infer", cudnn8}, {"cnn_train", cudnn8},
	{"adv_infer", cudnn8}, {"adv_train", cudnn8},
	{"graph", cudnn9},
	{"engines_precompiled", cudnn9},
	{"engines_runtime_compiled", cudnn9},
	{"heuristic", cudnn9},
	{"ops", cudnn9}, {"cnn", cudnn9}, {"adv", cudnn9},
	// The tensor-IR engines library; none of the manifests here has it.
	{"engines_tensor_ir", sdk.Range{From: "9.21", Below: "10"}},
}

// jitSublibs is cudnn_jit's content: NVIDIA's GRAPH_JIT_ONLY configuration,
// the shim plus these, with no precompiled kernels and no static libraries.
var jitSublibs = []sublib{{name: "graph"}, {name: "engines_runtime_compiled"}}

// floors for the cudnn package, newest first: the first that applies wins.
// cuDNN 8.5 to 8.7 need 3.5, which every CUDA from 11.4 already requires, so
// no row is needed for them.
var floors = []sdk.Floor{
	{Range: sdk.Range{From: "9.11"}, Min: "7.5",
		Says: "{title} {release} supports capabilities {min} and newer (cuDNN 9.11 dropped Maxwell, Pascal and Volta; 9.10 was the last for them)"},
	{Range: sdk.Range{From: "8.8"}, Min: "5.0",
		Says: "{title} {release} supports capabilities {min} and newer (cuDNN 8.8 dropped Kepler (3.5, 3.7); 8.7 was the last for them)"},
}

// jitFloor: the GRAPH_JIT_ONLY configuration's JIT engines support NVIDIA
// Ampere and later.
var jitFloor = sdk.Floor{Min: "8.0", Says: "{title} {release} supports capabilities {min} (NVIDIA Ampere) and newer, as its graph JIT engines do"}

// nvrtcSince is the first cuDNN release with engines that compile kernels at
// run time through NVRTC (the runtime fusion engine). Every release in the
// manifests (8.5 and later) is past it.
const nvrtcSince = "8.3"
