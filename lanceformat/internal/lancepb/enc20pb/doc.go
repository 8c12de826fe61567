// Package enc20pb holds the generated Go code of the Lance 2.0 encodings (proto package
// lance.encodings, proto/lance/encodings_v2_0.proto): ArrayEncoding and ColumnEncoding.
package enc20pb
