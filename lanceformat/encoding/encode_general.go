package encoding

import (
	"fmt"
	"strconv"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// Field-metadata keys (lance-format.md §4.3) the 2.1+ encoders honour.
const (
	MetaCompression      = "lance-encoding:compression"
	MetaCompressionLevel = "lance-encoding:compression-level"
)

// Thresholds of General compression (§5.6.6, §5.6.7).
const (
	generalMinBytes         = 4 << 10  // mini-block: wrap only when the first buffers total this much
	perValueGeneralMinBytes = 32 << 10 // full-zip: per-value frames need this much string data
	perValueGeneralMaxLen   = 32 << 10 // ... and, unasked, a value longer than this
)

// LeafOptions are the per-field encoding settings a 2.1+ leaf is written with, read from
// the leaf field's metadata (LeafOptionsFromMetadata). The zero value is Lance's default.
type LeafOptions struct {
	// Compression is "" (default choice), "none" (no compression at all: flat values,
	// plain strings), "fsst" (default choice, no General), "zstd" or "lz4" (General
	// compression around the chosen encoding where it pays off).
	Compression string
	// Level is the compression level (zstd), nil when the metadata gives none.
	Level *int32
}

// LeafOptionsFromMetadata reads lance-encoding:compression and
// lance-encoding:compression-level from field metadata. An unknown scheme is an error; a
// level that is not an integer is ignored, as Lance does.
func LeafOptionsFromMetadata(md map[string]string) (LeafOptions, error) {
	var o LeafOptions
	switch c := md[MetaCompression]; c {
	case "", "none", "fsst", "zstd", "lz4":
		o.Compression = c
	default:
		return o, NotSupported("field metadata %s=%q", MetaCompression, c)
	}
	if s, ok := md[MetaCompressionLevel]; ok {
		if v, err := strconv.ParseInt(s, 10, 32); err == nil {
			lv := int32(v)
			o.Level = &lv
		}
	}
	return o, nil
}

// general returns the General scheme the options ask for, if any.
func (o LeafOptions) general() (compress.Scheme, bool) {
	switch o.Compression {
	case "zstd":
		return compress.SchemeZstd, true
	case "lz4":
		return compress.SchemeLZ4, true
	}
	return compress.SchemeUnspecified, false
}

// allowsFSST reports whether strings may be FSST-compressed: only without an explicit
// compression setting (or with "fsst"), as in Lance.
func (o LeafOptions) allowsFSST() bool { return o.Compression == "" || o.Compression == "fsst" }

// level is the level passed to the compressor (0: the scheme's default).
func (o LeafOptions) level() int {
	if o.Level == nil {
		return 0
	}
	return int(*o.Level)
}

// generalEnc wraps inner in General{scheme, level}.
func generalEnc(scheme compress.Scheme, level *int32, inner *enc21pb.CompressiveEncoding) *enc21pb.CompressiveEncoding {
	bc := &enc21pb.BufferCompression{Scheme: enc21pb.CompressionScheme(scheme)}
	if level != nil {
		lv := *level
		bc.Level = &lv
	}
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_General{
		General: &enc21pb.General{Compression: bc, Values: inner}}}
}

// generalChunks compresses the first value buffer of each chunk of inner as one frame
// (General in a mini-block page). It records, per chunk start, the raw and compressed
// sizes of the chunks finally kept, so the page can fall back to inner when compression
// does not pay off.
type generalChunks struct {
	inner  chunkEncoder
	opts   LeafOptions
	scheme compress.Scheme
	sizes  map[int][2]int // chunk start -> (raw, compressed) first-buffer bytes
}

func newGeneralChunks(inner chunkEncoder, opts LeafOptions, scheme compress.Scheme) *generalChunks {
	return &generalChunks{inner: inner, opts: opts, scheme: scheme, sizes: make(map[int][2]int)}
}

func (g *generalChunks) chunkSize() int { return g.inner.chunkSize() }

func (g *generalChunks) maxChunk() int { return g.inner.maxChunk() }

func (g *generalChunks) encoding() *enc21pb.CompressiveEncoding {
	return generalEnc(g.scheme, g.opts.Level, g.inner.encoding())
}

func (g *generalChunks) chunk(start, n int) ([][]byte, error) {
	bufs, err := g.inner.chunk(start, n)
	if err != nil || len(bufs) == 0 {
		return bufs, err
	}
	c, err := compressFrame(g.scheme, g.opts.level(), bufs[0])
	if err != nil {
		return nil, fmt.Errorf("general %s: %w", g.scheme, err)
	}
	// Writers try several chunk lengths at one start; the last try is the one kept.
	g.sizes[start] = [2]int{len(bufs[0]), len(c)}
	return append([][]byte{c}, bufs[1:]...), nil
}

// paysOff reports whether the wrapped page is worth keeping: the first buffers total at
// least 4 KiB and compression shrinks them.
func (g *generalChunks) paysOff() bool {
	raw, packed := 0, 0
	for _, s := range g.sizes {
		raw += s[0]
		packed += s[1]
	}
	return raw >= generalMinBytes && packed < raw
}

// encodeMiniBlockWith encodes a mini-block page, wrapping enc in General compression when
// the options ask for it and it pays off.
func encodeMiniBlockWith(l *ShreddedLeaf, enc chunkEncoder, v22 bool, dict *dictPage, opts LeafOptions) (*EncodedPage, error) {
	if dict != nil && v22 {
		var err error
		if dict, err = wrapDictionary22(dict); err != nil {
			return nil, err
		}
	}
	scheme, ok := opts.general()
	if !ok {
		return encodeMiniBlock(l, enc, v22, dict)
	}
	g := newGeneralChunks(enc, opts, scheme)
	p, err := encodeMiniBlock(l, g, v22, dict)
	if err == nil && g.paysOff() {
		return p, nil
	}
	return encodeMiniBlock(l, enc, v22, dict)
}

// perValueGeneral compresses each valid variable-width value as its own frame for a
// full-zip page when Lance would: a value longer than 32 KiB, or zstd/lz4 asked for, and
// at least 32 KiB of data. It returns the compressed values and their encoding, or nil.
func perValueGeneral(l *ShreddedLeaf, v *leafValues, opts LeafOptions) (*leafValues, *enc21pb.CompressiveEncoding, error) {
	if v.kind != valVariable || opts.Compression == "none" {
		return nil, nil, nil
	}
	total, maxLen := 0, 0
	for _, b := range v.vars {
		total += len(b)
		maxLen = max(maxLen, len(b))
	}
	_, asked := opts.general()
	if (maxLen <= perValueGeneralMaxLen && !asked) || total < perValueGeneralMinBytes {
		return nil, nil, nil
	}
	// Lance uses zstd here unless zstd was asked for with a level (lz4 requests too).
	scheme, level := compress.SchemeZstd, int32(0)
	if opts.Compression == "zstd" && opts.Level != nil {
		level = *opts.Level
	}
	cv := &leafValues{kind: valVariable, offsetBits: v.offsetBits, n: v.n, vars: make([][]byte, v.n)}
	for k, b := range v.vars {
		if !l.Valid[k] {
			cv.vars[k] = []byte{}
			continue
		}
		c, err := compressFrame(scheme, int(level), b)
		if err != nil {
			return nil, nil, fmt.Errorf("full-zip value %d: %w", k, err)
		}
		cv.vars[k] = c
	}
	return cv, generalEnc(scheme, &level, variableEnc(v.offsetBits)), nil
}
