package kernel

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// RowKeys holds the group keys of a batch's rows, encoded column at a time: row i's key is
// Data[Offs[i]:Offs[i+1]], equal to the concatenation of each column's KeyEncoder output.
type RowKeys struct {
	Data []byte
	Offs []int32
	// per-column scratch, reused between batches
	colData [][]byte
	colOffs [][]int32
}

// Key returns row i's key. It aliases Data: copy it (string(k)) to keep it.
func (k *RowKeys) Key(i int) []byte { return k.Data[k.Offs[i]:k.Offs[i+1]] }

// Encode encodes the n rows of cols, reusing k's buffers. It fails like NewKeyEncoder on an
// unsupported type.
func (k *RowKeys) Encode(cols []arrow.Array, n int) error {
	if len(cols) == 1 {
		d, o, err := encodeColumn(cols[0], n, k.Data[:0], k.Offs[:0])
		k.Data, k.Offs = d, o
		return err
	}
	for len(k.colData) < len(cols) {
		k.colData, k.colOffs = append(k.colData, nil), append(k.colOffs, nil)
	}
	total := 0
	for c, col := range cols {
		d, o, err := encodeColumn(col, n, k.colData[c][:0], k.colOffs[c][:0])
		if err != nil {
			return err
		}
		k.colData[c], k.colOffs[c] = d, o
		total += len(d)
	}
	data, offs := k.Data[:0], append(k.Offs[:0], 0)
	data = grow(data, total)
	for r := range n {
		for c := range cols {
			o := k.colOffs[c]
			data = append(data, k.colData[c][o[r]:o[r+1]]...)
		}
		offs = append(offs, int32(len(data)))
	}
	k.Data, k.Offs = data, offs
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		return nb
	}
	return b
}

// encodeColumn appends the KeyEncoder encoding of each of the n rows of arr to data and
// their end offsets to offs (after a leading 0).
func encodeColumn(arr arrow.Array, n int, data []byte, offs []int32) ([]byte, []int32, error) {
	offs = append(offs, 0)
	var bits []byte
	off := arr.Data().Offset()
	if arr.NullN() > 0 && arr.DataType().ID() != arrow.NULL {
		bits = arr.NullBitmapBytes()
	}
	valid := func(i int) bool { return bits == nil || bitutil.BitIsSet(bits, off+i) }
	switch a := arr.(type) {
	case *array.String:
		offsets := a.ValueOffsets()
		raw := a.ValueBytes()
		base := int(offsets[0])
		data = grow(data, 2*n+int(offsets[n])-base)
		for i := range n {
			if !valid(i) {
				data = append(data, 0)
			} else {
				s, e := int(offsets[i])-base, int(offsets[i+1])-base
				data = append(data, 1)
				data = binary.AppendUvarint(data, uint64(e-s))
				data = append(data, raw[s:e]...)
			}
			offs = append(offs, int32(len(data)))
		}
		return data, offs, nil
	}
	if fw, ok := arr.DataType().(arrow.FixedWidthDataType); ok && arr.DataType().ID() != arrow.BOOL &&
		!arrow.IsFloating(arr.DataType().ID()) && fw.BitWidth()%8 == 0 && len(arr.Data().Buffers()) == 2 &&
		arr.Data().Buffers()[1] != nil {
		width := fw.BitWidth() / 8
		raw := arr.Data().Buffers()[1].Bytes()
		data = grow(data, n*(width+1))
		for i := range n {
			if !valid(i) {
				data = append(data, 0)
			} else {
				start := (off + i) * width
				data = append(append(data, 1), raw[start:start+width]...)
			}
			offs = append(offs, int32(len(data)))
		}
		return data, offs, nil
	}
	enc, err := NewKeyEncoder(arr)
	if err != nil {
		return data, offs, err
	}
	for i := range n {
		data = enc(data, i)
		offs = append(offs, int32(len(data)))
	}
	return data, offs, nil
}
