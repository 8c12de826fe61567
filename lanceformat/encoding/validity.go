package encoding

import "github.com/apache/arrow-go/v18/arrow/bitutil"

// validity is an append-only Arrow validity bitmap. While every appended bit is 1 it stores
// only the count; the bitmap is materialized at the first null.
type validity struct {
	n     int
	nulls int
	bits  []byte // nil while nulls == 0
}

func (v *validity) materialize() {
	if v.bits != nil {
		return
	}
	v.bits = make([]byte, bitutil.BytesForBits(int64(v.n)), bitutil.BytesForBits(int64(v.n))+64)
	for i := range v.n {
		bitutil.SetBit(v.bits, i)
	}
}

func (v *validity) grow(n int) {
	need := int(bitutil.BytesForBits(int64(v.n + n)))
	for len(v.bits) < need {
		v.bits = append(v.bits, 0)
	}
}

// appendN appends n copies of valid.
func (v *validity) appendN(valid bool, n int) {
	if n <= 0 {
		return
	}
	if valid && v.bits == nil {
		v.n += n
		return
	}
	v.materialize()
	v.grow(n)
	if valid {
		for i := range n {
			bitutil.SetBit(v.bits, v.n+i)
		}
	} else {
		v.nulls += n
	}
	v.n += n
}

// appendBitmap appends bits [off, off+n) of bm; a nil bm means all valid.
func (v *validity) appendBitmap(bm []byte, off, n int) {
	if bm == nil {
		v.appendN(true, n)
		return
	}
	set := bitutil.CountSetBits(bm, off, n)
	if set == n && v.bits == nil {
		v.n += n
		return
	}
	v.materialize()
	v.grow(n)
	for i := range n {
		if bitutil.BitIsSet(bm, off+i) {
			bitutil.SetBit(v.bits, v.n+i)
		}
	}
	v.nulls += n - set
	v.n += n
}

// appendBools appends one bit per element of b.
func (v *validity) appendBools(b []bool) {
	for _, x := range b {
		if !x {
			v.materialize()
			break
		}
	}
	if v.bits == nil {
		v.n += len(b)
		return
	}
	v.grow(len(b))
	for i, x := range b {
		if x {
			bitutil.SetBit(v.bits, v.n+i)
		} else {
			v.nulls++
		}
	}
	v.n += len(b)
}

// isValid reports bit i.
func (v *validity) isValid(i int) bool {
	return v.bits == nil || bitutil.BitIsSet(v.bits, i)
}
