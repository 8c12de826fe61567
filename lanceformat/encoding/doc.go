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
// allocates from the caller's Arrow allocator, unless the caller reserved the builder
// with ReserveIn: then fixed-width values and variable-width bytes are decoded straight
// into buffers from that allocator, which Finish hands over without a copy (Release frees
// them if the builder is dropped). Mini-block pages without levels can be decoded straight
// into the output builder (MiniBlock.DecodeRowsInto), skipping Page21 and Assemble; the
// hot decoders work in bulk (dictionary gathers, FSST with 8-byte symbol stores, FastLanes
// unpacking on typed words into the output). Decoders never panic on malformed input:
// they return errors wrapping ErrCorrupt, or ErrNotSupported ("not supported yet: ...")
// for valid encodings this package does not decode yet (blob layouts, dictionary blocks
// with metadata-only children, packed-struct fields beyond Flat/FSL/Variable/FSST/General). The
// opt-in and legacy encodings (2.0 Fsst, Bitpacked, BitpackedForNonNeg, Constant,
// FixedSizeBinary, packed structs in every version, the compressive Dictionary) are in
// decode20_more.go, packed_struct.go and dictionary21.go.
package encoding
