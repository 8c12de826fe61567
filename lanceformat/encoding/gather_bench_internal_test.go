package encoding

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// strDict returns a finished-looking string dictionary builder of vals.
func strDict(vals ...string) *Builder {
	d := &Builder{typ: arrow.BinaryTypes.String, kind: KindVariable, n: len(vals), valid: validity{n: len(vals)},
		offsets: []int64{0}}
	for _, v := range vals {
		d.data = append(d.data, v...)
		d.offsets = append(d.offsets, int64(len(d.data)))
	}
	return d
}

// BenchmarkGatherStrings gathers 16Ki short strings from small dictionaries (TPC-H
// l_shipmode and l_shipinstruct shapes) as a mini-block chunk of dictionary indices does.
func BenchmarkGatherStrings(b *testing.B) {
	dicts := map[string]*Builder{
		"shipmode":     strDict("REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"),
		"shipinstruct": strDict("DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"),
		"flag":         strDict("A", "N", "R"),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"flag", "shipmode", "shipinstruct"} {
		dict := dicts[name]
		idx := make([]byte, 4*(16<<10))
		for i := range 16 << 10 {
			idx[4*i] = byte(r.IntN(dict.n))
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				out, err := NewBuilder(arrow.BinaryTypes.String)
				if err != nil {
					b.Fatal(err)
				}
				out.Reserve(16 << 10)
				var short *shortDict
				if err := out.appendGather(dict, &short, idx, 32, 16<<10); err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
		})
	}
}

// BenchmarkAppendVariable appends 16Ki one-byte strings (TPC-H l_linestatus) from decoded
// mini-block offsets.
func BenchmarkAppendVariable(b *testing.B) {
	for _, n := range []int{16 << 10} {
		offs := make([]uint64, n+1)
		data := make([]byte, n)
		for i := range n {
			offs[i+1] = uint64(i + 1)
			data[i] = 'F'
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				out, err := NewBuilder(arrow.BinaryTypes.String)
				if err != nil {
					b.Fatal(err)
				}
				out.Reserve(n)
				if err := out.AppendVariable(offs, data, 0, n, nil); err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
		})
	}
}
