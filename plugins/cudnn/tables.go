package cudnn

import "github.com/cudapkgs/cudapkgs/core/version"

// What each cuDNN major ships, and which GPUs each release serves. The sources
// of every row are in doc.go; tests check the tables against the manifests.

// sublib is one cuDNN sub-library besides the libcudnn shim.
type sublib struct {
	name  string          // "ops_infer": libcudnn_ops_infer.so.8, cudnn_ops_infer64_8.dll
	since version.Version // first cuDNN release that ships it; zero: the whole major
}

// sublibs per cuDNN major, in the order the shim documents them. cuDNN 8 split
// the library into inference and training halves per layer family; cuDNN 9
// reorganised it into the graph API, the engines, the heuristics and the
// legacy imperative APIs.
var sublibs = map[int][]sublib{
	8: {
		{name: "ops_infer"}, {name: "ops_train"},
		{name: "cnn_infer"}, {name: "cnn_train"},
		{name: "adv_infer"}, {name: "adv_train"},
	},
	9: {
		{name: "graph"},
		{name: "engines_precompiled"},
		{name: "engines_runtime_compiled"},
		{name: "heuristic"},
		{name: "ops"}, {name: "cnn"}, {name: "adv"},
		// The tensor-IR engines library; none of the manifests here has it.
		{name: "engines_tensor_ir", since: version.MustParse("9.21")},
	},
}

// jitSublibs is cudnn_jit's content: NVIDIA's GRAPH_JIT_ONLY configuration,
// the shim plus these, with no precompiled kernels and no static libraries.
var jitSublibs = []string{"graph", "engines_runtime_compiled"}

// floor is a capability cut: from release since, cuDNN needs capability min
// or newer; last is the last release that served the older GPUs.
type floor struct {
	since   version.Version
	min     version.Version
	dropped string // the GPUs it dropped, for messages
	last    string
}

// floors for the cudnn package, newest first: the first that applies wins.
// cuDNN 8.5 to 8.7 need 3.5, which every CUDA from 11.4 already requires, so
// no row is needed for them.
var floors = []floor{
	{since: version.MustParse("9.11"), min: version.MustParse("7.5"),
		dropped: "Maxwell, Pascal and Volta", last: "9.10"},
	{since: version.MustParse("8.8"), min: version.MustParse("5.0"),
		dropped: "Kepler (3.5, 3.7)", last: "8.7"},
}

// jitMin is the oldest capability the GRAPH_JIT_ONLY configuration serves:
// its JIT engines support NVIDIA Ampere and later.
var jitMin = version.MustParse("8.0")

// nvrtcSince is the first cuDNN release with engines that compile kernels at
// run time through NVRTC (the runtime fusion engine). Every release in the
// manifests (8.5 and later) is past it.
var nvrtcSince = version.MustParse("8.3")
