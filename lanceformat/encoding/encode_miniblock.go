package encoding

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// Mini-block chunk limits (§5.6.3).
const (
	maxChunkValues   = 4096
	maxChunkBytes21  = 32 << 10 // the u16 chunk word can express at most 32 KiB
	maxU16           = 1<<16 - 1
	miniBlockPadByte = 0xFE // Lance pads chunk headers with this byte
	dataPadByte      = 0x48 // and everything else with this one
)

// errChunkTooBig reports that no valid chunking of a page fits the mini-block limits; the
// page is then written full-zip.
var errChunkTooBig = errors.New("mini-block chunk does not fit")

// miniBlockWriter assembles the chunks of one mini-block page.
type miniBlockWriter struct {
	l        *ShreddedLeaf
	enc      chunkEncoder
	large    bool  // 2.2 grammar: u32 chunk words and buffer sizes
	visEntry []int // entry index of each visible value
	repCodec levelCodec
	defCodec levelCodec
	data     []byte
	meta     []byte
	repIndex []uint64
	nbufs    int
}

// encodeMiniBlock encodes leaf l as a mini-block page with values from enc. dict, if not
// nil, is the dictionary block (enc then encodes the indices).
func encodeMiniBlock(l *ShreddedLeaf, enc chunkEncoder, large bool, dict *dictPage) (*EncodedPage, error) {
	lv, err := NewLevels(l.Layers)
	if err != nil {
		return nil, err
	}
	w := &miniBlockWriter{l: l, enc: enc, large: large, nbufs: -1}
	w.visEntry = make([]int, 0, len(l.Idx))
	for e := range l.NumEntries() {
		if l.Def == nil || lv.Visible(l.Def[e]) {
			w.visEntry = append(w.visEntry, e)
		}
	}
	if len(w.visEntry) != len(l.Idx) {
		return nil, fmt.Errorf("shredding produced %d visible entries for %d values: %w", len(w.visEntry), len(l.Idx), ErrCorrupt)
	}
	w.repCodec, w.defCodec = chooseLevelCodec(l.Rep), chooseLevelCodec(l.Def)
	if err := w.writeChunks(); err != nil {
		return nil, err
	}
	layout := &enc21pb.MiniBlockLayout{ValueCompression: enc.encoding(), Layers: l.Layers,
		NumBuffers: uint64(w.nbufs), NumItems: uint64(len(l.Idx)), HasLargeChunk: large}
	if l.Rep != nil {
		layout.RepCompression = w.repCodec.encoding()
		layout.RepetitionIndexDepth = 1
	}
	if l.Def != nil {
		layout.DefCompression = w.defCodec.encoding()
	}
	bufs := [][]byte{w.meta, w.data}
	if dict != nil {
		layout.Dictionary = dict.encoding
		layout.NumDictionaryItems = uint64(dict.items)
		bufs = append(bufs, dict.block)
	}
	if l.Rep != nil {
		ri := make([]byte, 8*len(w.repIndex))
		for i, v := range w.repIndex {
			binary.LittleEndian.PutUint64(ri[8*i:], v)
		}
		bufs = append(bufs, ri)
	}
	return &EncodedPage{Buffers: bufs, Rows: uint64(l.Rows),
		Layout: &enc21pb.PageLayout{Layout: &enc21pb.PageLayout_MiniBlockLayout{MiniBlockLayout: layout}}}, nil
}

// writeChunks cuts the values into chunks: each non-last chunk holds a power of two values
// (at most 4096, or exactly the encoder's fixed chunk size) and fits the size limits.
func (w *miniBlockWriter) writeChunks() error {
	n := len(w.visEntry)
	entry := 0
	fixed := w.enc.chunkSize()
	for pos := 0; pos < n; {
		rem := n - pos
		limit := w.enc.maxChunk()
		if rem <= limit {
			c, err := w.buildChunk(pos, rem, entry, w.l.NumEntries(), true)
			if err == nil {
				w.appendChunk(c, rem, true)
				return nil
			}
			if !errors.Is(err, errChunkTooBig) {
				return err
			}
		}
		k := limit
		for k >= rem {
			k /= 2
		}
		if fixed > 0 && k != fixed {
			return errChunkTooBig
		}
		var chunk []byte
		for ; k >= 2; k /= 2 {
			c, err := w.buildChunk(pos, k, entry, w.visEntry[pos+k-1]+1, false)
			if err == nil {
				chunk = c
				break
			}
			if !errors.Is(err, errChunkTooBig) || fixed > 0 {
				return err
			}
		}
		if chunk == nil {
			return errChunkTooBig
		}
		w.appendChunk(chunk, k, false)
		entry = w.visEntry[pos+k-1] + 1
		pos += k
	}
	return nil
}

// appendChunk adds a built chunk of k values to the data and metadata buffers.
func (w *miniBlockWriter) appendChunk(c []byte, k int, last bool) {
	word := uint32(len(c)/8-1) << 4
	if !last {
		for k > 1 {
			word++
			k >>= 1
		}
	}
	if w.large {
		w.meta = binary.LittleEndian.AppendUint32(w.meta, word)
	} else {
		w.meta = binary.LittleEndian.AppendUint16(w.meta, uint16(word))
	}
	w.data = append(w.data, c...)
}

// buildChunk encodes values [pos, pos+k) with level entries [e0, e1) into one chunk.
func (w *miniBlockWriter) buildChunk(pos, k, e0, e1 int, last bool) ([]byte, error) {
	bufs, err := w.enc.chunk(pos, k)
	if err != nil {
		return nil, err
	}
	if w.nbufs >= 0 && w.nbufs != len(bufs) {
		return nil, fmt.Errorf("chunk with %d buffers, expected %d: %w", len(bufs), w.nbufs, ErrCorrupt)
	}
	w.nbufs = len(bufs)
	l := w.l
	numLevels := 0
	var rep, def []byte
	if l.Rep != nil {
		if rep, err = w.repCodec.encode(l.Rep[e0:e1]); err != nil {
			return nil, err
		}
		numLevels = e1 - e0
	}
	if l.Def != nil {
		if def, err = w.defCodec.encode(l.Def[e0:e1]); err != nil {
			return nil, err
		}
		numLevels = e1 - e0
	}
	if numLevels > maxU16 || len(rep) > maxU16 || len(def) > maxU16 {
		return nil, errChunkTooBig
	}
	c := binary.LittleEndian.AppendUint16(nil, uint16(numLevels))
	if rep != nil {
		c = binary.LittleEndian.AppendUint16(c, uint16(len(rep)))
	}
	if def != nil {
		c = binary.LittleEndian.AppendUint16(c, uint16(len(def)))
	}
	for _, b := range bufs {
		if w.large {
			c = binary.LittleEndian.AppendUint32(c, uint32(len(b)))
		} else if len(b) > maxU16 {
			return nil, errChunkTooBig
		} else {
			c = binary.LittleEndian.AppendUint16(c, uint16(len(b)))
		}
	}
	c = pad8(c, miniBlockPadByte)
	for _, part := range append([][]byte{rep, def}, bufs...) {
		c = pad8(append(c, part...), dataPadByte)
	}
	if len(c) > maxChunkBytes21 {
		return nil, errChunkTooBig
	}
	if l.Rep != nil {
		w.addRepIndex(l.Rep[e0:e1], last)
	}
	return c, nil
}

// addRepIndex appends the (rows finished, leftover entries) pair of a chunk's rep levels.
func (w *miniBlockWriter) addRepIndex(rep []uint16, last bool) {
	maxRep := w.l.MaxRep
	rows, leftover := 0, len(rep)
	for i, r := range rep {
		if r == maxRep {
			if i > 0 {
				rows++
			}
			leftover = len(rep) - i
		}
	}
	if n := len(w.repIndex); n > 0 && len(rep) > 0 && rep[0] == maxRep && w.repIndex[n-1] != 0 {
		w.repIndex[n-2]++
		w.repIndex[n-1] = 0
	}
	if last {
		rows++
		leftover = 0
	}
	w.repIndex = append(w.repIndex, uint64(rows), uint64(leftover))
}

func levelBytes(lv []uint16) []byte {
	out := make([]byte, 2*len(lv))
	for i, v := range lv {
		binary.LittleEndian.PutUint16(out[2*i:], v)
	}
	return out
}

func pad8(b []byte, fill byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, fill)
	}
	return b
}
