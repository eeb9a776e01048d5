module github.com/cudapkgs/cudapkgs/integration/remote/worker

go 1.26.0

// The Remote Workers API (googleapis/devtools/remoteworkers/v1test2) was
// deleted from genproto in August 2023, and nothing else publishes its Go
// code. cloud.google.com/go/longrunning (needed by remote-apis) requires a
// newer genproto, so pin the last one that has the package. From the genproto
// root module only that package and its protobuf/field_mask helper are used.
replace google.golang.org/genproto => google.golang.org/genproto v0.0.0-20230731193218-e0aa005b6bdf

require (
	github.com/bazelbuild/remote-apis v0.0.0-20260908115904-76ddd98e1f92
	google.golang.org/genproto v0.0.0-20250603155806-513f23925822
	google.golang.org/genproto/googleapis/bytestream v0.0.0-20261104224025-d1e00e9f33ab
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	cloud.google.com/go/longrunning v0.8.0 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260817212433-ac3dfec99bb1 // indirect
)
