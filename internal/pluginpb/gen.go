// Package pluginpb is the generated protobuf and gRPC code of the plugin
// protocol. It is internal: plugin authors use the types of plugins/sdk.
package pluginpb

//go:generate sh -c "PATH=\"$(go env GOPATH)/bin:$PATH\" protoc --plugin=protoc-gen-go=$(go tool -n protoc-gen-go) --plugin=protoc-gen-go-grpc=$(go tool -n protoc-gen-go-grpc) --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative plugin.proto"
