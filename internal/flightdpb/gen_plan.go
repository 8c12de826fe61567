// Package flightdpb holds the Go code generated from flightd's own protobuf messages in
// proto/flightd/v1. Do not edit the *.pb.go files; run go generate (needs protoc, see
// scripts/install-protoc.sh; protoc-gen-go is pinned in tools/go.mod).
package flightdpb

//go:generate sh -c "protoc -I ../../proto --plugin=protoc-gen-go=../../tools/protoc-gen-go.sh --go_out=../.. --go_opt=module=github.com/flightd/flightd --go_opt=Mflightd/v1/plan.proto=github.com/flightd/flightd/internal/flightdpb ../../proto/flightd/v1/plan.proto"
