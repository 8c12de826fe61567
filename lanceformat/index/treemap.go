package index

import (
	"encoding/binary"
	"fmt"

	"github.com/flightd/flightd/lanceformat/table"
)

// Lance's serialized RowIdTreeMap (§8.2), the value of a bitmap index's `bitmaps` column:
//
//	u32 LE num_entries
//	num_entries × { u32 LE fragment_id, u32 LE size, size bytes: portable 32-bit Roaring }
//
// size 0 means "every row of the fragment". Fragments are ascending.

// DecodeRowTreeMap decodes a serialized RowIdTreeMap.
func DecodeRowTreeMap(b []byte) (*RowSet, error) {
	if len(b) < 4 {
		return nil, corrupt("row id tree map: %d bytes, need 4", len(b))
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n)*8 > uint64(len(b)-4) {
		return nil, corrupt("row id tree map: %d entries in %d bytes", n, len(b))
	}
	s := NewRowSet()
	off := 4
	for i := range n {
		if len(b)-off < 8 {
			return nil, corrupt("row id tree map: entry %d truncated", i)
		}
		frag := binary.LittleEndian.Uint32(b[off:])
		size := int(binary.LittleEndian.Uint32(b[off+4:]))
		off += 8
		if size > len(b)-off {
			return nil, corrupt("row id tree map: entry %d: bitmap of %d bytes, %d left", i, size, len(b)-off)
		}
		if _, dup := s.frags[frag]; dup {
			return nil, corrupt("row id tree map: fragment %d repeated", frag)
		}
		if size == 0 {
			s.AddFragment(frag)
			continue
		}
		rows, err := table.DecodeRoaring(b[off:off+size], 1<<32)
		if err != nil {
			return nil, fmt.Errorf("%w: row id tree map: fragment %d: %w", ErrCorruptIndex, frag, err)
		}
		off += size
		if len(rows) > 0 {
			s.frags[frag] = &fragRows{rows: rows}
		}
	}
	if off != len(b) {
		return nil, corrupt("row id tree map: %d trailing bytes", len(b)-off)
	}
	return s, nil
}

// EncodeRowTreeMap serializes s as a RowIdTreeMap.
func EncodeRowTreeMap(s *RowSet) []byte {
	frags := s.Fragments()
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(frags)))
	for _, f := range frags {
		out = binary.LittleEndian.AppendUint32(out, f)
		fr := s.frags[f]
		if fr.all {
			out = binary.LittleEndian.AppendUint32(out, 0)
			continue
		}
		bm := table.EncodeRoaring(fr.rows)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(bm)))
		out = append(out, bm...)
	}
	return out
}
