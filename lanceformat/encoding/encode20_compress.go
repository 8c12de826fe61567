package encoding

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
)

// EncodeColumns20With encodes a top-level array as 2.0 pages like EncodeColumns20, then
// applies the per-column options (opts[k] belongs to column k, in the pre-order of the
// field subtree): as the 2.0 writer does for lance-encoding:compression=zstd, the bytes
// buffer of a Binary page (strings, binary) becomes one zstd frame. Other schemes and
// other encodings are left as they are (not supported yet: lz4 in 2.0 files).
func EncodeColumns20With(a arrow.Array, opts []LeafOptions) ([]*EncodedPage, error) {
	pages, err := EncodeColumns20(a)
	if err != nil {
		return nil, err
	}
	if len(opts) != len(pages) {
		return nil, fmt.Errorf("2.0 encoding: %d columns, %d column options", len(pages), len(opts))
	}
	for k, p := range pages {
		if opts[k].Compression != "zstd" || p.Array.GetBinary() == nil {
			continue
		}
		if err := compressBinary20(p, opts[k]); err != nil {
			return nil, fmt.Errorf("column %d: %w", k, err)
		}
	}
	return pages, nil
}

// compressBinary20 replaces the bytes buffer of a Binary page by a zstd frame and records
// the scheme on its Flat encoding.
func compressBinary20(p *EncodedPage, o LeafOptions) error {
	f := p.Array.GetBinary().GetBytes().GetFlat()
	if f == nil || f.GetBuffer().GetBufferType() != enc20pb.Buffer_page {
		return nil
	}
	i := int(f.GetBuffer().GetBufferIndex())
	if i >= len(p.Buffers) {
		return fmt.Errorf("binary bytes buffer %d of %d: %w", i, len(p.Buffers), ErrCorrupt)
	}
	c, err := compressFrame(compress.SchemeZstd, o.level(), p.Buffers[i])
	if err != nil {
		return err
	}
	p.Buffers[i] = c
	f.Compression = &enc20pb.Compression{Scheme: compress.SchemeZstd.String()}
	return nil
}
