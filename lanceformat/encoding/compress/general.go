package compress

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Scheme is a general-purpose compression scheme. The values match
// lance.encodings21.CompressionScheme (BufferCompression.scheme).
type Scheme int32

// Compression schemes.
const (
	SchemeUnspecified Scheme = 0
	SchemeLZ4         Scheme = 1
	SchemeZstd        Scheme = 2
)

// String returns the scheme name as Lance spells it in field metadata.
func (s Scheme) String() string {
	switch s {
	case SchemeLZ4:
		return "lz4"
	case SchemeZstd:
		return "zstd"
	case SchemeUnspecified:
		return "unspecified"
	}
	return fmt.Sprintf("scheme(%d)", int32(s))
}

// ParseScheme maps the 2.0 Flat.compression.scheme / field-metadata names
// ("zstd", "lz4") to a Scheme.
func ParseScheme(name string) (Scheme, error) {
	switch name {
	case "zstd":
		return SchemeZstd, nil
	case "lz4":
		return SchemeLZ4, nil
	}
	return SchemeUnspecified, fmt.Errorf("%w: compression scheme %q", ErrUnsupported, name)
}

// DefaultDecompressLimit is the output cap Decompress uses when limit <= 0.
const DefaultDecompressLimit = 1 << 30

// Upper bounds on the expansion ratio of one compressed byte, used to reject
// absurd declared sizes before allocating.
const (
	zstdMaxRatio = 1 << 15 // a 4-byte RLE block may expand to 128 KiB
	lz4MaxRatio  = 256     // each extra length byte adds at most 255
)

// zstdMagic is the little-endian zstd frame magic number.
const zstdMagic = 0xFD2FB528

var (
	zstdDecOnce sync.Once
	zstdDec     *zstd.Decoder
	zstdDecErr  error
)

// sharedZstdDecoder returns a process-wide decoder used only through
// DecodeAll (which starts no goroutines and is safe for concurrent use).
func sharedZstdDecoder() (*zstd.Decoder, error) {
	zstdDecOnce.Do(func() {
		zstdDec, zstdDecErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(DefaultDecompressLimit))
	})
	return zstdDec, zstdDecErr
}

// Decompress undoes Lance's general compression framing (BufferCompressor)
// for one frame:
//
//   - zstd: u64 LE uncompressed length, then a zstd frame. A bare zstd frame
//     (older writers) is accepted too, detected as Lance does: fewer than 8
//     bytes, or the zstd magic in bytes 0..3 with the frame-header reserved
//     bit clear. Empty input decodes to empty output.
//   - lz4: u32 LE uncompressed size, then an LZ4 *block* (not the frame
//     format), i.e. lz4::block with prepend_size.
//
// limit caps the decompressed size (DefaultDecompressLimit if <= 0); larger
// declared or actual sizes are corrupt. Callers usually know a tighter bound
// (for example the page's byte budget).
func Decompress(scheme Scheme, src []byte, limit int) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultDecompressLimit
	}
	switch scheme {
	case SchemeZstd:
		return decompressZstd(src, limit)
	case SchemeLZ4:
		return decompressLZ4(src, limit)
	}
	return nil, fmt.Errorf("%w: general compression scheme %v", ErrUnsupported, scheme)
}

// isRawZstd mirrors Lance's detection of an unprefixed zstd stream.
func isRawZstd(src []byte) bool {
	if len(src) < 8 {
		return true
	}
	if binary.LittleEndian.Uint32(src) != zstdMagic {
		return false
	}
	return src[4]&0x10 == 0
}

func decompressZstd(src []byte, limit int) ([]byte, error) {
	if len(src) == 0 {
		return []byte{}, nil
	}
	dec, err := sharedZstdDecoder()
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	if isRawZstd(src) {
		return decompressRawZstd(src, limit)
	}
	size := binary.LittleEndian.Uint64(src)
	if size > uint64(limit) || size > uint64(len(src))*zstdMaxRatio {
		return nil, corruptf("zstd: declared size %d exceeds limit (%d bytes of input, limit %d)", size, len(src), limit)
	}
	out, err := dec.DecodeAll(src[8:], make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %w", ErrCorrupt, err)
	}
	if uint64(len(out)) != size {
		return nil, corruptf("zstd: decoded %d bytes, header says %d", len(out), size)
	}
	return out, nil
}

// decompressRawZstd decodes a bare zstd stream (one or more frames) with the
// output capped at limit.
func decompressRawZstd(src []byte, limit int) ([]byte, error) {
	dec, err := zstd.NewReader(bytes.NewReader(src),
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(uint64(limit)))
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	defer dec.Close()
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(dec, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: zstd (unprefixed): %w", ErrCorrupt, err)
	}
	if n > int64(limit) {
		return nil, corruptf("zstd (unprefixed): output exceeds limit %d", limit)
	}
	return buf.Bytes(), nil
}

func decompressLZ4(src []byte, limit int) ([]byte, error) {
	if len(src) < 4 {
		return nil, corruptf("lz4: %d bytes is too short for the size prefix", len(src))
	}
	size := uint64(binary.LittleEndian.Uint32(src))
	if size > uint64(limit) || size > uint64(len(src))*lz4MaxRatio {
		return nil, corruptf("lz4: declared size %d exceeds limit (%d bytes of input, limit %d)", size, len(src), limit)
	}
	out := make([]byte, size)
	n, err := lz4.UncompressBlock(src[4:], out)
	if err != nil {
		return nil, fmt.Errorf("%w: lz4: %w", ErrCorrupt, err)
	}
	return out[:n], nil
}

// Compress applies Lance's general compression framing to src (one frame, see
// Decompress). level is BufferCompression.level for zstd (0 = zstd's default
// level 3; mapped to the nearest klauspost/compress level) and ignored for
// lz4.
func Compress(scheme Scheme, level int, src []byte) ([]byte, error) {
	switch scheme {
	case SchemeZstd:
		return compressZstd(level, src)
	case SchemeLZ4:
		return compressLZ4(src)
	}
	return nil, fmt.Errorf("%w: general compression scheme %v", ErrUnsupported, scheme)
}

func compressZstd(level int, src []byte) ([]byte, error) {
	if level == 0 {
		level = 3
	}
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	defer enc.Close()
	out := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(src)/2), uint64(len(src)))
	return enc.EncodeAll(src, out), nil
}

func compressLZ4(src []byte) ([]byte, error) {
	if uint64(len(src)) > 1<<31-1 {
		return nil, fmt.Errorf("lz4: input of %d bytes too large", len(src))
	}
	out := make([]byte, 4+lz4.CompressBlockBound(len(src)))
	binary.LittleEndian.PutUint32(out, uint32(len(src)))
	if len(src) == 0 {
		out[4] = 0 // a single token with no literals
		return out[:5], nil
	}
	n, err := lz4.CompressBlock(src, out[4:], nil)
	if err != nil {
		return nil, fmt.Errorf("lz4 compress: %w", err)
	}
	if n == 0 {
		return nil, fmt.Errorf("lz4 compress: no output for %d bytes", len(src))
	}
	return out[:4+n], nil
}
