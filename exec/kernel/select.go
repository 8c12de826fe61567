package kernel

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// SelectTrue appends to sel (truncated first) the positions of the rows where cond, a
// boolean array (or an all-NULL array), is TRUE: FALSE and NULL rows are left out. It reads
// the bitmaps a word at a time.
func SelectTrue(cond arrow.Array, sel []int32) ([]int32, error) {
	sel = sel[:0]
	b, ok := cond.(*array.Boolean)
	if !ok {
		if cond.DataType().ID() != arrow.NULL {
			return nil, dberr.New(dberr.Internal, "condition has type %s, want boolean", cond.DataType())
		}
		return sel, nil
	}
	n := b.Len()
	if n == 0 || b.NullN() == n {
		return sel, nil
	}
	vals := b.Data().Buffers()[1].Bytes()
	off := b.Data().Offset()
	var valid []byte
	if b.NullN() > 0 {
		valid = b.NullBitmapBytes()
	}
	for w := 0; w < n; w += 64 {
		m := min(64, n-w)
		word := readBits(vals, off+w, m)
		if valid != nil {
			word &= readBits(valid, off+w, m)
		}
		for word != 0 {
			t := bits.TrailingZeros64(word)
			sel = append(sel, int32(w+t))
			word &= word - 1
		}
	}
	return sel, nil
}

// readBits returns the m (≤ 64) bits of bitmap starting at bit pos, as the low bits.
func readBits(bitmap []byte, pos, m int) uint64 {
	var v uint64
	start := pos / 8
	shift := pos % 8
	need := (shift + m + 7) / 8
	for i := range need {
		if i < 8 {
			v |= uint64(bitmap[start+i]) << (8 * i)
		}
	}
	v >>= shift
	if shift > 0 && need > 8 {
		v |= uint64(bitmap[start+8]) << (64 - shift)
	}
	if m < 64 {
		v &= 1<<m - 1
	}
	return v
}

// Take returns the rows of arr at positions idx (in range, any order) for fixed-width
// arrays (not boolean, dictionary or extension) and string/binary arrays with 32-bit
// offsets; ok is false for other types, which the caller takes with arrow's compute.Take.
func Take(mem memory.Allocator, arr arrow.Array, idx []int32) (out arrow.Array, ok bool) {
	data := arr.Data()
	dt := arr.DataType()
	var buffers []*memory.Buffer
	switch a := arr.(type) {
	case *array.String:
		buffers = takeBinary(mem, a.ValueOffsets(), a.ValueBytes(), idx)
	case *array.Binary:
		buffers = takeBinary(mem, a.ValueOffsets(), a.ValueBytes(), idx)
	default:
		fw, isFixed := dt.(arrow.FixedWidthDataType)
		// Dictionary arrays count as fixed width (their indices) but carry a dictionary
		// this take would drop; extension types may hold storage of any layout.
		special := dt.ID() == arrow.BOOL || dt.ID() == arrow.DICTIONARY || dt.ID() == arrow.EXTENSION
		if !isFixed || special || fw.BitWidth()%8 != 0 || len(data.Buffers()) != 2 || data.Buffers()[1] == nil {
			return nil, false
		}
		buffers = []*memory.Buffer{nil, takeFixed(mem, data.Buffers()[1].Bytes(), data.Offset(), fw.BitWidth()/8, idx)}
	}
	nulls := 0
	if arr.NullN() > 0 {
		buffers[0], nulls = takeValidity(mem, arr.NullBitmapBytes(), data.Offset(), idx)
	}
	res := array.NewData(dt, len(idx), buffers, nil, nulls, 0)
	for _, b := range buffers {
		if b != nil {
			b.Release()
		}
	}
	defer res.Release()
	return array.MakeFromData(res), true
}

func takeFixed(mem memory.Allocator, raw []byte, off, width int, idx []int32) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(idx) * width)
	dst := buf.Bytes()
	switch width {
	case 4:
		src := arrow.GetData[uint32](raw)[off:]
		d := arrow.GetData[uint32](dst)
		for i, j := range idx {
			d[i] = src[j]
		}
	case 8:
		src := arrow.GetData[uint64](raw)[off:]
		d := arrow.GetData[uint64](dst)
		for i, j := range idx {
			d[i] = src[j]
		}
	case 16:
		src := arrow.GetData[decimal128.Num](raw)[off:]
		d := arrow.GetData[decimal128.Num](dst)
		for i, j := range idx {
			d[i] = src[j]
		}
	default:
		for i, j := range idx {
			s := (off + int(j)) * width
			copy(dst[i*width:(i+1)*width], raw[s:s+width])
		}
	}
	return buf
}

func takeBinary(mem memory.Allocator, offsets []int32, raw []byte, idx []int32) []*memory.Buffer {
	base := offsets[0]
	offBuf := memory.NewResizableBuffer(mem)
	offBuf.Resize((len(idx) + 1) * 4)
	outOffs := arrow.GetData[int32](offBuf.Bytes())[:len(idx)+1]
	total := int32(0)
	outOffs[0] = 0
	for i, j := range idx {
		total += offsets[j+1] - offsets[j]
		outOffs[i+1] = total
	}
	valBuf := memory.NewResizableBuffer(mem)
	valBuf.Resize(int(total))
	dst := valBuf.Bytes()
	for i, j := range idx {
		copy(dst[outOffs[i]:outOffs[i+1]], raw[offsets[j]-base:offsets[j+1]-base])
	}
	return []*memory.Buffer{nil, offBuf, valBuf}
}

func takeValidity(mem memory.Allocator, bitmap []byte, off int, idx []int32) (*memory.Buffer, int) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	dst := buf.Bytes()
	clear(dst)
	nulls := 0
	for i, j := range idx {
		if bitutil.BitIsSet(bitmap, off+int(j)) {
			bitutil.SetBit(dst, i)
		} else {
			nulls++
		}
	}
	return buf, nulls
}

// AndTrue returns a NULL-free boolean array that is true where both a and b (boolean or
// all-NULL arrays of equal length) are TRUE.
func AndTrue(mem memory.Allocator, a, b arrow.Array) (arrow.Array, error) {
	n := a.Len()
	if b.Len() != n {
		return nil, dberr.New(dberr.Internal, "and: lengths %d and %d", n, b.Len())
	}
	words := make([]uint64, (n+63)/64)
	for i := range words {
		words[i] = ^uint64(0)
	}
	for _, arr := range []arrow.Array{a, b} {
		bl, ok := arr.(*array.Boolean)
		if !ok && arr.DataType().ID() != arrow.NULL {
			return nil, dberr.New(dberr.Internal, "condition has type %s, want boolean", arr.DataType())
		}
		if !ok || bl.NullN() == n {
			clear(words)
			break
		}
		off := bl.Data().Offset()
		vals := bl.Data().Buffers()[1].Bytes()
		var valid []byte
		if bl.NullN() > 0 {
			valid = bl.NullBitmapBytes()
		}
		for w := range words {
			m := min(64, n-64*w)
			words[w] &= readBits(vals, off+64*w, m)
			if valid != nil {
				words[w] &= readBits(valid, off+64*w, m)
			}
		}
	}
	out := NewBools(mem, n)
	dst := out.vals.Bytes()
	for w, word := range words {
		for k := 0; k < 8 && 8*w+k < len(dst); k++ {
			dst[8*w+k] = byte(word >> (8 * k))
		}
	}
	return out.Finish(), nil
}
