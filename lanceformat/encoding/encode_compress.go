package encoding

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// Thresholds of the 2.1 compression choice (§5.6.6).
const (
	fsstMinBytes     = 32 << 10 // FSST needs at least this much string data in the page
	fsstMinMaxLen    = 5        // ... and a value at least this long
	dictMinValues    = 100      // dictionary needs at least this many values
	dictMaxRatio     = 0.8      // ... and must shrink the data below this fraction
	bitpackChunkSize = compress.FastLanesBlockValues
	rleMaxChunk      = 2048 // Lance caps RLE chunks at 2048 values
	rleMaxRunRatio   = 0.5  // RLE needs fewer runs than this fraction of the values
)

// chunkEncoder turns a run of visible values into the value buffers of one mini-block
// chunk.
type chunkEncoder interface {
	// chunk encodes values [start, start+n).
	chunk(start, n int) ([][]byte, error)
	// encoding describes the values (MiniBlockLayout.value_compression).
	encoding() *enc21pb.CompressiveEncoding
	// chunkSize is the number of values every non-last chunk must hold (0: any power of two).
	chunkSize() int
	// maxChunk is the most values one chunk may hold.
	maxChunk() int
}

func flatEnc(bits int) *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Flat{
		Flat: &enc21pb.Flat{BitsPerValue: uint64(bits)}}}
}

func variableEnc(offsetBits int) *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Variable{
		Variable: &enc21pb.Variable{Offsets: flatEnc(offsetBits)}}}
}

// flatChunks stores fixed-width values (or FSL vectors) as they are.
type flatChunks struct{ v *leafValues }

func (f flatChunks) chunkSize() int { return 0 }

func (f flatChunks) maxChunk() int { return maxChunkValues }

func (f flatChunks) encoding() *enc21pb.CompressiveEncoding {
	if f.v.kind == valFSL {
		return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_FixedSizeList{
			FixedSizeList: &enc21pb.FixedSizeList{ItemsPerValue: uint64(f.v.dim),
				HasValidity: f.v.itemValid != nil, Values: flatEnc(f.v.bits)}}}
	}
	return flatEnc(f.v.bits)
}

func (f flatChunks) chunk(start, n int) ([][]byte, error) {
	v := f.v
	if v.kind == valFSL {
		w := v.dim * v.bits / 8
		data := v.fixed[start*w : (start+n)*w]
		if v.itemValid != nil {
			return [][]byte{sliceBits(v.itemValid, start*v.dim, n*v.dim), data}, nil
		}
		return [][]byte{data}, nil
	}
	if v.bits == 1 {
		return [][]byte{sliceBits(v.fixed, start, n)}, nil
	}
	w := v.bits / 8
	return [][]byte{v.fixed[start*w : (start+n)*w]}, nil
}

// bitpackChunks stores integers with inline FastLanes bit-packing: one 1024-value block per
// chunk.
type bitpackChunks struct{ v *leafValues }

func (b bitpackChunks) chunkSize() int { return bitpackChunkSize }

func (b bitpackChunks) maxChunk() int { return bitpackChunkSize }

func (b bitpackChunks) encoding() *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_InlineBitpacking{
		InlineBitpacking: &enc21pb.InlineBitpacking{UncompressedBitsPerValue: uint64(b.v.bits)}}}
}

func (b bitpackChunks) chunk(start, n int) ([][]byte, error) {
	w := b.v.bits / 8
	out, err := compress.EncodeInlineBitpacked(b.v.fixed[start*w:(start+n)*w], b.v.bits)
	if err != nil {
		return nil, err
	}
	return [][]byte{out}, nil
}

// variableChunks stores variable-width values with offsets; with a table, the values are
// FSST-compressed first.
type variableChunks struct {
	v     *leafValues
	table []byte // marshalled FSST symbol table, or nil
}

func (c variableChunks) chunkSize() int { return 0 }

func (c variableChunks) maxChunk() int { return maxChunkValues }

func (c variableChunks) encoding() *enc21pb.CompressiveEncoding {
	inner := variableEnc(c.v.offsetBits)
	if c.table == nil {
		return inner
	}
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Fsst{
		Fsst: &enc21pb.Fsst{SymbolTable: c.table, Values: inner}}}
}

func (c variableChunks) chunk(start, n int) ([][]byte, error) {
	b, err := compress.EncodeVariableMiniBlock(c.v.vars[start:start+n], c.v.offsetBits)
	if err != nil {
		return nil, err
	}
	return [][]byte{b}, nil
}

// rleChunks stores runs of equal values: per chunk the run values and u8 run lengths.
type rleChunks struct{ v *leafValues }

func (r rleChunks) chunkSize() int { return 0 }

func (r rleChunks) maxChunk() int { return rleMaxChunk }

func (r rleChunks) encoding() *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Rle{
		Rle: &enc21pb.Rle{Values: flatEnc(r.v.bits), RunLengths: flatEnc(8)}}}
}

func (r rleChunks) chunk(start, n int) ([][]byte, error) {
	w := r.v.bits / 8
	vals, lens, err := compress.EncodeRLE(r.v.fixed[start*w:(start+n)*w], r.v.bits)
	if err != nil {
		return nil, err
	}
	return [][]byte{vals, lens}, nil
}

// isIntegerLike reports whether bit-packing suits values of type t: integers and the
// temporal types stored as integers.
func isIntegerLike(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DURATION:
		return true
	}
	return false
}

// chooseFixed picks the storage of fixed-width values in the order of §5.6.6: RLE when
// there are fewer runs than half the values, then bit-packing when the type is
// integer-like and packing shrinks the page, else flat.
func chooseFixed(v *leafValues, intLike bool) (chunkEncoder, error) {
	if v.kind != valFixed || (v.bits != 8 && v.bits != 16 && v.bits != 32 && v.bits != 64) {
		return flatChunks{v}, nil
	}
	runs, err := compress.CountRuns(v.fixed, v.bits)
	if err != nil {
		return nil, err
	}
	if float64(runs) < rleMaxRunRatio*float64(v.n) {
		return rleChunks{v}, nil
	}
	if !intLike {
		return flatChunks{v}, nil
	}
	// Compare full 1024-value blocks only (the zero-padded tail block would penalise
	// small pages unfairly), or the single block of a page smaller than one block.
	packed, raw := 0, 0
	for s := 0; s < v.n; s += bitpackChunkSize {
		m := min(bitpackChunkSize, v.n-s)
		if m < bitpackChunkSize && s > 0 {
			break
		}
		b, err := bitpackChunks{v}.chunk(s, m)
		if err != nil {
			return nil, err
		}
		packed += len(b[0])
		raw += m * v.bits / 8
	}
	if packed < raw {
		return bitpackChunks{v}, nil
	}
	return flatChunks{v}, nil
}

// chooseVariable picks FSST-compressed or plain storage for variable-width values.
func chooseVariable(v *leafValues) (chunkEncoder, error) {
	total, maxLen := 0, 0
	for _, b := range v.vars {
		total += len(b)
		maxLen = max(maxLen, len(b))
	}
	if total < fsstMinBytes || maxLen < fsstMinMaxLen {
		return variableChunks{v: v}, nil
	}
	tab := compress.BuildFSSTTable(v.vars)
	blob, err := tab.Marshal()
	if err != nil {
		return nil, err
	}
	offs, codes := tab.CompressAll(v.vars)
	if len(codes) >= total {
		return variableChunks{v: v}, nil
	}
	cv := &leafValues{kind: valVariable, offsetBits: v.offsetBits, n: v.n, vars: make([][]byte, v.n)}
	for i := range cv.vars {
		cv.vars[i] = codes[offs[i]:offs[i+1]]
	}
	return variableChunks{v: cv, table: blob}, nil
}

// dictionary is a page-level dictionary of variable-width values: the distinct values and
// an i32 index per visible slot.
type dictionary struct {
	items   [][]byte
	indices *leafValues
}

// buildDictionary returns a dictionary for v when it is worthwhile (§5.6.6), else nil.
func buildDictionary(v *leafValues) *dictionary {
	if v.kind != valVariable || v.n < dictMinValues {
		return nil
	}
	seen := make(map[string]int32)
	raw, dictBytes := 0, 0
	d := &dictionary{indices: &leafValues{kind: valFixed, bits: 32, n: v.n, fixed: make([]byte, 4*v.n)}}
	for i, b := range v.vars {
		raw += len(b) + v.offsetBits/8
		k, ok := seen[string(b)]
		if !ok {
			k = int32(len(d.items))
			seen[string(b)] = k
			d.items = append(d.items, b)
			dictBytes += len(b) + v.offsetBits/8
		}
		putU32(d.indices.fixed[4*i:], uint32(k))
	}
	if float64(dictBytes+v.n) >= dictMaxRatio*float64(raw) {
		return nil
	}
	return d
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
