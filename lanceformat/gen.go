package lanceformat

// Regenerates the Go code of the Lance protobufs in proto/lance (needs protoc; see
// scripts/install-protoc.sh). protoc-gen-go is pinned in tools/go.mod.
//
// Go packages: lance.file, lance.file.v2 and lance.table go to internal/lancepb;
// lance.encodings to internal/lancepb/enc20pb; lance.encodings21 to internal/lancepb/enc21pb
// (the encodings packages reuse message names such as Flat, so they cannot share one Go package).

//go:generate sh -c "protoc -I ../proto --plugin=protoc-gen-go=../tools/protoc-gen-go.sh --go_out=.. --go_opt=module=github.com/flightd/flightd --go_opt=Mlance/file.proto=github.com/flightd/flightd/lanceformat/internal/lancepb --go_opt=Mlance/file2.proto=github.com/flightd/flightd/lanceformat/internal/lancepb --go_opt=Mlance/table.proto=github.com/flightd/flightd/lanceformat/internal/lancepb --go_opt=Mlance/index.proto=github.com/flightd/flightd/lanceformat/internal/lancepb --go_opt=Mlance/rowids.proto=github.com/flightd/flightd/lanceformat/internal/lancepb --go_opt=Mlance/transaction.proto=github.com/flightd/flightd/lanceformat/internal/lancepb --go_opt=Mlance/encodings_v2_0.proto=github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb --go_opt=Mlance/encodings_v2_1.proto=github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb ../proto/lance/*.proto"
