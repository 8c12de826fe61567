package kernel

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// constFloat32 is the shape of a kNN search that distanceConst32 speeds up: one
// fixed_size_list<float32> column without NULL elements against a constant vector of the
// same size.
type constFloat32 struct {
	vals  []float32 // the column's elements, from its first row on
	col   *array.FixedSizeList
	query []float32
}

// matchConstFloat32 recognizes that shape; ok is false for anything else.
func matchConstFloat32(op VectorOp, left, right arrow.Array, rows int) (constFloat32, bool) {
	if op != VecL2 && op != VecInnerProduct && op != VecNegInnerProduct || rows < 2 {
		return constFloat32{}, false
	}
	col, c := left, right
	if left.Len() == 1 {
		col, c = right, left
	}
	cf, ok1 := col.(*array.FixedSizeList)
	qf, ok2 := c.(*array.FixedSizeList)
	if !ok1 || !ok2 || cf.Len() != rows || qf.Len() != 1 || qf.IsNull(0) {
		return constFloat32{}, false
	}
	n := cf.DataType().(*arrow.FixedSizeListType).Len()
	if qf.DataType().(*arrow.FixedSizeListType).Len() != n {
		return constFloat32{}, false
	}
	cv, ok1 := cf.ListValues().(*array.Float32)
	qv, ok2 := qf.ListValues().(*array.Float32)
	if !ok1 || !ok2 || cv.NullN() > 0 || qv.NullN() > 0 {
		return constFloat32{}, false
	}
	start, _ := cf.ValueOffsets(0)
	qs, qe := qf.ValueOffsets(0)
	return constFloat32{vals: cv.Float32Values()[start:], col: cf, query: qv.Float32Values()[qs:qe]}, true
}

// distanceConst32 computes op for every row of m.col against m.query, four rows at a
// time: each row still accumulates in order (bit-identical to apply32), but four
// independent sums hide the latency of one.
func distanceConst32(mem memory.Allocator, op VectorOp, m constFloat32, rows int) arrow.Array {
	n := len(m.query)
	out := make([]float32, rows)
	i := 0
	for ; i+4 <= rows && n > 0; i += 4 {
		x := m.vals[i*n : (i+4)*n]
		r := fourRows32(op, x[:n], x[n:2*n], x[2*n:3*n], x[3*n:], m.query)
		copy(out[i:i+4], r[:])
	}
	for ; i < rows; i++ {
		out[i] = apply32(op, m.vals[i*n:(i+1)*n], m.query)
	}
	var valid []bool
	if m.col.NullN() > 0 {
		valid = make([]bool, rows)
		for j := range valid {
			valid[j] = m.col.IsValid(j)
		}
	}
	b := array.NewFloat32Builder(mem)
	defer b.Release()
	b.AppendValues(out, valid)
	return b.NewArray()
}

// fourRows32 is apply32 (VecL2 or an inner product) over four rows at once.
func fourRows32(op VectorOp, x0, x1, x2, x3, q []float32) [4]float32 {
	n := len(q)
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	var s0, s1, s2, s3 float64
	if op == VecL2 {
		for i, b := range q {
			d0, d1 := float64(x0[i]-b), float64(x1[i]-b)
			d2, d3 := float64(x2[i]-b), float64(x3[i]-b)
			s0 = float64(float32(s0 + d0*d0))
			s1 = float64(float32(s1 + d1*d1))
			s2 = float64(float32(s2 + d2*d2))
			s3 = float64(float32(s3 + d3*d3))
		}
		return [4]float32{
			float32(math.Sqrt(s0)), float32(math.Sqrt(s1)),
			float32(math.Sqrt(s2)), float32(math.Sqrt(s3)),
		}
	}
	for i, b := range q {
		bb := float64(b)
		s0 = float64(float32(s0 + float64(x0[i])*bb))
		s1 = float64(float32(s1 + float64(x1[i])*bb))
		s2 = float64(float32(s2 + float64(x2[i])*bb))
		s3 = float64(float32(s3 + float64(x3[i])*bb))
	}
	r := [4]float32{float32(s0), float32(s1), float32(s2), float32(s3)}
	if op == VecNegInnerProduct {
		for k := range r {
			r[k] = -r[k]
		}
	}
	return r
}
