// Package lancepb holds the generated Go code of the Lance table and file protobufs
// (proto packages lance.file, lance.file.v2 and lance.table; sources in proto/lance).
// The encodings live in the subpackages enc20pb (lance.encodings) and enc21pb
// (lance.encodings21). Regenerate with `go generate ./lanceformat`.
package lancepb
