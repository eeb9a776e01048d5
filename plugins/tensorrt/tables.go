package tensorrt

import "github.com/cudapkgs/cudapkgs/plugins/sdk"

// TensorRT facts by release; doc.go gives the source of each row.

var mv = sdk.MustVersion

// libraries are TensorRT's shared libraries (lib<name>.so.<major>), the same
// in 10.x and 11.x: the full
// runtime and builder, the plugins, the ONNX parser, the lean runtime (runs
// version-compatible engines), the dispatch runtime (loads a lean runtime)
// and the plugin library for version-compatible engines.
var libraries = []string{"nvinfer", "nvinfer_plugin", "nvonnxparser", "nvinfer_lean", "nvinfer_dispatch", "nvinfer_vc_plugin"}

// staticLibraries ship on Linux in TensorRT 10 (deprecated in 10.11, removed
// in 11.0); libonnx_proto.a is what the static ONNX parser links with.
var staticLibraries = []string{"nvinfer_static", "nvinfer_plugin_static", "nvonnxparser_static",
	"nvinfer_lean_static", "nvinfer_dispatch_static", "onnx_proto"}

// staticUntil is the first release without static libraries.
const staticUntil = "11"

// capFloors: from each release on, TensorRT runs on capability Min and
// newer; newest first.
var capFloors = []sdk.Floor{
	{Range: sdk.Range{From: "10.5"}, Min: "7.5", Says: "{title} {version} supports capabilities {min} and newer (TensorRT 10.5 dropped Volta)"},
	{Range: sdk.Range{From: "10.0"}, Min: "7.0", Says: "{title} {version} supports capabilities {min} and newer"},
}

// cudnnRow says which cuDNN (major.minor) TensorRT releases [from, until) load,
// for archives built with a CUDA major in cudaMajors, on every platform but
// those in except. NVIDIA lists it as optional: only deprecated layers and
// some plugins use it, through dlopen("libcudnn.so.8").
type cudnnRow struct {
	from, until sdk.Version // TensorRT releases: from inclusive, until exclusive
	cudaMajors  []int
	except      []string
	cudnn       string
}

var cudnnRows = []cudnnRow{
	{from: mv("10.0"), until: mv("10.14"), cudaMajors: []int{11, 12}, cudnn: "8.9"},
	{from: mv("10.14"), until: mv("11.0"), cudaMajors: []int{12}, except: []string{"linux-sbsa"}, cudnn: "8.9"},
}

// noJetson: TensorRT 11.0 to 11.3 do not support JetPack; 11.4 serves Jetson
// (Orin, Thor) through the SBSA build.
var noJetsonFrom, noJetsonUntil = mv("11.0"), mv("11.4")

// Builder resources: the engine builder's kernels, which libnvinfer opens by
// file name (their SONAME is do_not_link_against_...). Before 10.16 one
// library, lib/libnvinfer_builder_resource.so.<x.y.z>; from 10.16 one per GPU
// architecture plus a PTX fallback, lib/libnvinfer_builder_resource_<arch>.so.<x.y.z>,
// in 11.x too. The architectures are those of tensorrt-cu12-libs 10.16.1's
// tensorrt_libs/ (sm75 to sm120) and the 10.16.2 tarball's _ptx;
// sm120.so.11.0.0 and sm110.so.11.1.0 (Thor, CUDA 13 builds) are seen in
// 11.x installs. sm110 is claimed for CUDA 13 builds of 11.x only (CUDA 12
// names Thor sm_101, and no 10.16 list shows it).
var (
	builderSplitSince = mv("10.16")
	builderArchs      = []string{"sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm120", "ptx"}
	builderThorSince  = mv("11.0")
)
