package compress

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// FSST symbol table constants (Lance's rust/compression/fsst crate).
const (
	// FSSTSymbolTableSize is the size of the serialized symbol table blob
	// (Fsst.symbol_table): 8 header bytes, 256 u64 symbols, 256 lengths.
	FSSTSymbolTableSize = 8 + 256*8 + 256
	// FSSTEscape is the code that makes the next byte a literal.
	FSSTEscape = 255
	// fsstMagic is "FSST", the upper 32 bits of the header word.
	fsstMagic = 0x46535354
	// FSSTMaxSymbolLen is the longest symbol, in bytes.
	FSSTMaxSymbolLen = 8
)

// FSSTTable is a parsed FSST symbol table.
type FSSTTable struct {
	// EncoderSwitch is false when the writer left the strings uncompressed
	// (input under 32 KiB); decoding then copies bytes through.
	EncoderSwitch bool
	// SuffixLim and Terminator are carried in the header for the encoder;
	// decoding does not use them.
	SuffixLim, Terminator uint8
	// Symbols holds the symbols for codes 0..len(Symbols)-1, each 1..8 bytes.
	Symbols [][]byte

	fast *fsstDecodeTable // set by ParseFSSTSymbolTable; built per call otherwise
}

// ParseFSSTSymbolTable parses the symbol table blob Lance stores in
// Fsst.symbol_table: a u64 LE header (bits 63..32 "FSST", bit 24
// encoder_switch, bits 23..16 suffix_lim, 15..8 terminator, 7..0 number of
// symbols n), then n u64 LE symbols (first byte in the low byte), then n u8
// symbol lengths at offset 8+8n. The blob is FSSTSymbolTableSize bytes.
//
// Tables are cached by the blob's content (see fsst_cache.go): the returned
// table may be shared with other callers and must not be modified. It does not
// refer to blob, which the caller may reuse.
func ParseFSSTSymbolTable(blob []byte) (*FSSTTable, error) {
	if tab := fsstTables.get(blob); tab != nil {
		return tab, nil
	}
	own := bytes.Clone(blob)
	tab, err := parseFSSTSymbolTable(own)
	if err != nil {
		return nil, err
	}
	fsstTables.put(own, tab)
	return tab, nil
}

// parseFSSTSymbolTable parses blob; the table's symbols are slices of blob.
func parseFSSTSymbolTable(blob []byte) (*FSSTTable, error) {
	if len(blob) != FSSTSymbolTableSize {
		return nil, corruptf("fsst: symbol table has %d bytes, want %d", len(blob), FSSTSymbolTableSize)
	}
	hdr := binary.LittleEndian.Uint64(blob)
	if hdr>>32 != fsstMagic {
		return nil, corruptf("fsst: bad symbol table magic %#x", hdr>>32)
	}
	n := int(hdr & 0xFF)
	tab := &FSSTTable{
		EncoderSwitch: hdr&(1<<24) != 0,
		SuffixLim:     uint8(hdr >> 16),
		Terminator:    uint8(hdr >> 8),
		Symbols:       make([][]byte, n),
	}
	lens := blob[8+8*n:]
	for i := range n {
		l := int(lens[i])
		if l < 1 || l > FSSTMaxSymbolLen {
			return nil, corruptf("fsst: symbol %d has length %d", i, l)
		}
		tab.Symbols[i] = blob[8+8*i : 8+8*i+l]
	}
	tab.fast = newFSSTDecodeTable(tab.Symbols)
	return tab, nil
}

// Marshal serializes the table in the blob layout ParseFSSTSymbolTable reads.
func (t *FSSTTable) Marshal() ([]byte, error) {
	if len(t.Symbols) > 255 {
		return nil, fmt.Errorf("fsst: %d symbols, at most 255", len(t.Symbols))
	}
	n := len(t.Symbols)
	blob := make([]byte, FSSTSymbolTableSize)
	hdr := uint64(fsstMagic)<<32 | uint64(t.SuffixLim)<<16 | uint64(t.Terminator)<<8 | uint64(n)
	if t.EncoderSwitch {
		hdr |= 1 << 24
	}
	binary.LittleEndian.PutUint64(blob, hdr)
	for i, s := range t.Symbols {
		if len(s) < 1 || len(s) > FSSTMaxSymbolLen {
			return nil, fmt.Errorf("fsst: symbol %d has length %d", i, len(s))
		}
		copy(blob[8+8*i:], s)
		blob[8+8*n+i] = byte(len(s))
	}
	return blob, nil
}

// Decompress appends the decoding of one compressed string src to dst: each
// byte c < len(Symbols) expands to Symbols[c]; c == 255 makes the next byte a
// literal. Any other code, or a trailing escape, is corrupt. If
// EncoderSwitch is false, src is appended unchanged.
func (t *FSSTTable) Decompress(dst, src []byte) ([]byte, error) {
	if !t.EncoderSwitch {
		return append(dst, src...), nil
	}
	n := len(t.Symbols)
	for i := 0; i < len(src); i++ {
		c := int(src[i])
		switch {
		case c == FSSTEscape:
			i++
			if i >= len(src) {
				return dst, corruptf("fsst: escape code at end of string")
			}
			dst = append(dst, src[i])
		case c < n:
			dst = append(dst, t.Symbols[c]...)
		default:
			return dst, corruptf("fsst: code %d but only %d symbols", c, n)
		}
	}
	return dst, nil
}

// DecodeFSSTStrings FSST-decodes a batch of compressed strings given as
// offsets (n+1 values, non-decreasing, indexing data) and data, as produced
// by DecodeVariableMiniBlock or by the full-zip value loop. It returns new
// offsets starting at 0 and the decoded bytes. If the table's EncoderSwitch
// is false the input is returned as is. Output is at most 8x the input.
func DecodeFSSTStrings(t *FSSTTable, offsets []uint64, data []byte) ([]uint64, []byte, error) {
	if len(offsets) == 0 {
		return nil, nil, corruptf("fsst: empty offsets")
	}
	if !t.EncoderSwitch {
		return offsets, data, nil
	}
	out := make([]uint64, len(offsets))
	buf := make([]byte, 0, min(len(data)*3, math.MaxInt32))
	for i := 1; i < len(offsets); i++ {
		s, e := offsets[i-1], offsets[i]
		if s > e || e > uint64(len(data)) {
			return nil, nil, corruptf("fsst: string %d range [%d,%d) outside %d bytes", i-1, s, e, len(data))
		}
		var err error
		if buf, err = t.Decompress(buf, data[s:e]); err != nil {
			return nil, nil, fmt.Errorf("fsst: string %d: %w", i-1, err)
		}
		out[i] = uint64(len(buf))
	}
	return out, buf, nil
}

// Compress appends the FSST encoding of src under this table to dst, using a
// greedy longest match and escaping bytes no symbol covers. Any FSST decoder
// reads the output. With EncoderSwitch false, src is copied unchanged. For
// many strings, reuse one matcher via CompressAll.
func (t *FSSTTable) Compress(dst, src []byte) []byte {
	if !t.EncoderSwitch {
		return append(dst, src...)
	}
	return fsstCompress(newFSSTMatcher(t.Symbols), dst, src)
}

// CompressAll FSST-encodes every string and returns offsets (n+1, from 0)
// and the concatenated codes, ready for EncodeVariableMiniBlock-style
// framing.
func (t *FSSTTable) CompressAll(strs [][]byte) ([]uint64, []byte) {
	offs := make([]uint64, 1, len(strs)+1)
	var out []byte
	m := newFSSTMatcher(t.Symbols)
	for _, s := range strs {
		if t.EncoderSwitch {
			out = fsstCompress(m, out, s)
		} else {
			out = append(out, s...)
		}
		offs = append(offs, uint64(len(out)))
	}
	return offs, out
}

func fsstCompress(m *fsstMatcher, dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c, l := m.match(src[i:])
		if c < 0 {
			dst = append(dst, FSSTEscape, src[i])
		} else {
			dst = append(dst, byte(c))
		}
		i += l
	}
	return dst
}
