// Package enc21pb holds the generated Go code of the Lance 2.1/2.2 encodings (proto package
// lance.encodings21, proto/lance/encodings_v2_1.proto): PageLayout and CompressiveEncoding.
package enc21pb
