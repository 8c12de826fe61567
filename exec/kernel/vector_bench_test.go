package kernel_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
)

// BenchmarkDistance128 is array_distance over a batch of 8,192 128-dimensional float32
// vectors against one constant query vector (the inner loop of a brute-force kNN).
func BenchmarkDistance128(b *testing.B) {
	const rows, dim = 8192, 128
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]float32, rows*dim)
	for i := range vals {
		vals[i] = float32(rng.NormFloat64())
	}
	mk := func(v []float32, n int) arrow.Array {
		child := array.NewFloat32Builder(mem)
		defer child.Release()
		child.AppendValues(v, nil)
		c := child.NewArray()
		defer c.Release()
		data := array.NewData(arrow.FixedSizeListOf(dim, arrow.PrimitiveTypes.Float32), n, []*memory.Buffer{nil}, []arrow.ArrayData{c.Data()}, 0, 0)
		defer data.Release()
		return array.MakeFromData(data)
	}
	l, q := mk(vals, rows), mk(vals[:dim], 1)
	defer l.Release()
	defer q.Release()
	b.SetBytes(rows * dim * 4)
	for b.Loop() {
		out, err := kernel.Distance(mem, "array_distance", kernel.VecL2, l, q, rows, false)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
}
