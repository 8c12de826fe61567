package kernel

import (
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// substringDirect is substring over utf8/large_utf8 input that writes the result's offsets
// and data buffers in one pass. ASCII rows slice bytes directly (character positions are
// byte positions); rows with multi-byte UTF-8 use Substring. ok is false when the input
// does not suit this path (other types, empty, or more than 2 GiB of string data); the
// caller then uses substringRows.
func substringDirect(mem memory.Allocator, args []arrow.Array) (arrow.Array, bool, error) {
	n := args[0].Len()
	if n == 0 {
		return nil, false, nil
	}
	start, err := int64Values(args[1])
	if err != nil {
		return nil, false, err
	}
	length, hasLength := start, len(args) == 3
	if hasLength {
		if length, err = int64Values(args[2]); err != nil {
			return nil, false, err
		}
	}
	switch a := args[0].(type) {
	case *array.String:
		return substringOffsets(mem, args, a.ValueOffsets(), a.ValueBytes(), start, length, hasLength)
	case *array.LargeString:
		return substringOffsets(mem, args, a.ValueOffsets(), a.ValueBytes(), start, length, hasLength)
	}
	return nil, false, nil
}

// substringOffsets computes substring for string rows given by offs (n+1 entries, relative
// to offs[0]) into data.
func substringOffsets[O int32 | int64](mem memory.Allocator, args []arrow.Array, offs []O, data []byte,
	start, length []int64, hasLength bool) (arrow.Array, bool, error) {
	n := len(offs) - 1
	if int64(offs[n]-offs[0]) > math.MaxInt32 {
		return nil, false, nil
	}
	valid, nulls := substringValidity(mem, args, n)
	outOffs := memory.NewResizableBuffer(mem)
	outOffs.Resize(arrow.Int32Traits.BytesRequired(n + 1))
	outData := memory.NewResizableBuffer(mem)
	outData.Resize(int(offs[n] - offs[0]))
	oo := arrow.Int32Traits.CastFromBytes(outOffs.Bytes())
	od := outData.Bytes()
	pos := 0
	base := offs[0]
	for i := range n {
		oo[i] = int32(pos)
		if valid != nil && !bitutil.BitIsSet(valid.Bytes(), i) {
			continue
		}
		s := data[offs[i]-base : offs[i+1]-base]
		pos += copy(od[pos:], substringBytes(s, start[i], length[i], hasLength))
	}
	oo[n] = int32(pos)
	outData.Resize(pos)
	d := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{valid, outOffs, outData}, nil, nulls, 0)
	outOffs.Release()
	outData.Release()
	if valid != nil {
		valid.Release()
	}
	defer d.Release()
	return array.NewStringData(d), true, nil
}

// substringBytes is Substring on the bytes of one row: a byte slice for ASCII rows, the
// per-character path otherwise.
func substringBytes(s []byte, start, length int64, hasLength bool) []byte {
	for _, c := range s {
		if c >= utf8.RuneSelf {
			return []byte(Substring(string(s), start, length, hasLength))
		}
	}
	begin, end := substringBounds(int64(len(s)), start, length, hasLength)
	if end <= begin {
		return nil
	}
	return s[begin:end]
}

// substringValidity returns the result's validity bitmap (nil when no row is NULL) and
// its NULL count: a row is NULL when any argument is NULL there.
func substringValidity(mem memory.Allocator, args []arrow.Array, n int) (*memory.Buffer, int) {
	anyNull := false
	for _, a := range args {
		anyNull = anyNull || a.NullN() > 0
	}
	if !anyNull {
		return nil, 0
	}
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(n))))
	nulls := 0
	for i := range n {
		ok := allValid(args, i)
		bitutil.SetBitTo(bits.Bytes(), i, ok)
		if !ok {
			nulls++
		}
	}
	return bits, nulls
}

// int64Values returns the values of an integer array as int64s (the array's own values
// for int64; a copy for other widths). Values at NULL rows are unspecified.
func int64Values(a arrow.Array) ([]int64, error) {
	if a, ok := a.(*array.Int64); ok {
		return a.Int64Values(), nil
	}
	get, err := intGetter(a)
	if err != nil {
		return nil, err
	}
	out := make([]int64, a.Len())
	for i := range out {
		out[i] = get(i)
	}
	return out, nil
}
