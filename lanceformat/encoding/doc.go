// Package encoding decodes the page encodings of Lance file format v2 into Arrow data, and
// encodes Arrow data into them (encode*.go: shredding into rep/def levels, mini-block,
// full-zip and the 2.0 encodings, choosing compression as Lance's writer does).
//
// It sits between the byte-level codecs of encoding/compress (bit-packing, FSST, RLE,
// zstd/lz4, ...) and the file reader in lanceformat/file:
//
//	2.0 pages:  ArrayEncoding tree ── Decode20 ──────────────────────────┐
//	2.1+ pages: MiniBlock chunks / FullZip / Constant ── Page21 (rep, def, │
//	            visible values) ── Assemble (rep/def levels → validity,    ├─► Builder ─► arrow.ArrayData
//	            list offsets, struct validity along the field path) ───────┘
//
// A Builder accumulates values of one Arrow type in plain Go memory; only Finish
// allocates from the caller's Arrow allocator. Decoders never panic on malformed input:
// they return errors wrapping ErrCorrupt, or ErrNotSupported ("not supported yet: ...")
// for valid encodings this package does not decode yet (2.0 Bitpacked/Constant/Fsst/
// PackedStruct, 2.1 PackedStruct/VariablePackedStruct, the compressive Dictionary, blob
// layouts).
package encoding
