package encoding_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// fuzzTypes are the leaf types the fuzz targets decode into.
var fuzzTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Boolean,
	arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String, arrow.BinaryTypes.LargeBinary,
	arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Float32), arrow.PrimitiveTypes.Uint8,
	arrow.PrimitiveTypes.Int16, &arrow.FixedSizeBinaryType{ByteWidth: 3},
}

const fuzzMaxRows = 1 << 10

// finishFuzz builds the array (which may fail, but must not panic) and releases it.
func finishFuzz(t *testing.T, b *encoding.Builder) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	if arr, err := b.FinishArray(mem); err == nil {
		arr.Release()
	}
}

func FuzzDecode20(f *testing.F) {
	f.Fuzz(func(t *testing.T, enc, b0, b1, b2 []byte, n uint16, typ uint8) {
		var e enc20pb.ArrayEncoding
		if proto.Unmarshal(enc, &e) != nil {
			return
		}
		b, err := encoding.NewBuilder(fuzzTypes[int(typ)%len(fuzzTypes)])
		if err != nil {
			t.Fatal(err)
		}
		if encoding.Decode20(b, &e, [][]byte{b0, b1, b2}, uint64(n)%fuzzMaxRows) == nil {
			finishFuzz(t, b)
		}
	})
}

// pathFor builds builders for a field path matching layers (innermost first): list layers
// become lists, item layers structs, the innermost layer the leaf.
func pathFor(lv *encoding.Levels, leaf arrow.DataType) ([]encoding.PathNode, *encoding.Builder, error) {
	typ := leaf
	for k := 1; k < lv.NumLayers(); k++ {
		if lv.IsList(k) {
			typ = arrow.ListOf(typ)
		} else {
			typ = arrow.StructOf(arrow.Field{Name: "c", Type: typ, Nullable: true})
		}
	}
	root, err := encoding.NewBuilder(typ)
	if err != nil {
		return nil, nil, err
	}
	path := []encoding.PathNode{}
	b := root
	for k := lv.NumLayers() - 1; k >= 0; k-- {
		path = append(path, encoding.PathNode{B: b, IsList: k > 0 && lv.IsList(k), Owner: true})
		if k > 0 {
			b = b.Child(0)
		}
	}
	return path, root, nil
}

// assembleFuzz runs Assemble over a decoded page and finishes the result.
func assembleFuzz(t *testing.T, lv *encoding.Levels, p *encoding.Page21, leaf arrow.DataType, lo, hi int) {
	if lv.NumLayers() == 0 || lv.IsList(0) {
		return
	}
	path, root, err := pathFor(lv, leaf)
	if err != nil {
		t.Fatal(err)
	}
	if encoding.Assemble(lv, path, p, lo, hi) == nil {
		finishFuzz(t, root)
	}
}

func FuzzMiniBlock(f *testing.F) {
	f.Fuzz(func(t *testing.T, layout, meta, data, dict []byte, typ uint8, lo, hi uint16) {
		var l enc21pb.MiniBlockLayout
		if proto.Unmarshal(layout, &l) != nil || l.GetNumItems() > fuzzMaxRows {
			return
		}
		leaf := fuzzTypes[int(typ)%len(fuzzTypes)]
		chunks, err := encoding.ParseChunkMeta(meta, l.GetNumItems(), uint64(len(data)), l.GetHasLargeChunk())
		if err != nil {
			return
		}
		m, err := encoding.NewMiniBlock(&l, leaf, dict)
		if err != nil {
			return
		}
		p, err := m.Decode(chunks, data)
		if err != nil {
			return
		}
		assembleFuzz(t, m.Levels(), p, leaf, int(lo), int(hi))
	})
}

func FuzzFullZip(f *testing.F) {
	f.Fuzz(func(t *testing.T, layout, data []byte, typ uint8, lo, hi uint16) {
		var l enc21pb.FullZipLayout
		if proto.Unmarshal(layout, &l) != nil || l.GetNumItems() > fuzzMaxRows {
			return
		}
		leaf := fuzzTypes[int(typ)%len(fuzzTypes)]
		p, lv, err := encoding.DecodeFullZip(&l, leaf, data)
		if err != nil {
			return
		}
		assembleFuzz(t, lv, p, leaf, int(lo), int(hi))
	})
}

func FuzzConstant(f *testing.F) {
	f.Fuzz(func(t *testing.T, layout, b0, b1, b2 []byte, nbufs uint8, rows uint16, typ uint8) {
		var l enc21pb.ConstantLayout
		if proto.Unmarshal(layout, &l) != nil || l.GetNumDefValues() > fuzzMaxRows || l.GetNumRepValues() > fuzzMaxRows {
			return
		}
		leaf := fuzzTypes[int(typ)%len(fuzzTypes)]
		bufs := [][]byte{b0, b1, b2}[:int(nbufs)%4]
		p, lv, err := encoding.DecodeConstant(&l, leaf, bufs, uint64(rows)%fuzzMaxRows)
		if err != nil {
			return
		}
		assembleFuzz(t, lv, p, leaf, 0, int(rows)%fuzzMaxRows)
	})
}
