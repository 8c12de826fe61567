package file_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/file"
)

// Null patterns of a generated column.
const (
	nullsNone = iota
	nullsSome
	nullsAll
)

// genField is a random field: its Arrow type and how to fill it.
type genField struct {
	name     string
	typ      arrow.DataType
	nulls    int  // null pattern of this level
	strMode  int  // strings: 0 vocabulary, 1 short random, 2 long random, 3 common prefix, 4 long repetitive
	smallInt bool // integers: small range (bit-packs well)
	runs     bool // integers and floats: long runs of equal values (RLE)
	last     uint64
	children []*genField
}

// leafTypes are the leaf types the round-trip test draws from.
var leafTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Boolean,
	arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeBinary,
	arrow.FixedWidthTypes.Date32,
	&arrow.TimestampType{Unit: arrow.Microsecond},
	&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
	&arrow.Decimal128Type{Precision: 18, Scale: 3},
	arrow.FixedWidthTypes.Float16, &arrow.Decimal256Type{Precision: 50, Scale: 5},
	arrow.FixedWidthTypes.Date64, arrow.FixedWidthTypes.Time32ms, arrow.FixedWidthTypes.Time64ns,
	arrow.FixedWidthTypes.Duration_ms, &arrow.FixedSizeBinaryType{ByteWidth: 5},
	&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "America/New_York"},
	arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Float32),
	arrow.FixedSizeListOf(80, arrow.PrimitiveTypes.Float32), // 320 bytes: full-zip in 2.1
}

// randField draws a field; depth 0 may be nested (list, struct, list of struct).
func randField(rng *rand.Rand, name string, depth int, v file.Version) *genField {
	g := &genField{name: name, nulls: randNulls(rng), strMode: rng.IntN(5), smallInt: rng.IntN(2) == 0,
		runs: rng.IntN(4) == 0}
	kind := rng.IntN(10)
	if depth > 0 {
		kind = 9
	}
	switch kind {
	case 0, 1: // list<leaf> or large_list<int32>
		item := randField(rng, "item", depth+1, v)
		g.children = []*genField{item}
		if kind == 1 {
			item.typ = arrow.PrimitiveTypes.Int32
			g.typ = arrow.LargeListOfField(arrow.Field{Name: "item", Type: item.typ, Nullable: item.nullable()})
			break
		}
		g.typ = arrow.ListOfField(arrow.Field{Name: "item", Type: item.typ, Nullable: item.nullable()})
	case 2: // struct{leaf, leaf, list<int32>}
		a, b := randField(rng, "a", depth+1, v), randField(rng, "b", depth+1, v)
		l := &genField{name: "c", nulls: randNulls(rng),
			children: []*genField{{name: "item", typ: arrow.PrimitiveTypes.Int32, nulls: randNulls(rng)}}}
		l.typ = arrow.ListOf(arrow.PrimitiveTypes.Int32)
		g.children = []*genField{a, b, l}
		g.typ = structOf(g.children)
	case 3: // list<struct{int32, utf8}>
		s := &genField{name: "item", nulls: randNulls(rng), children: []*genField{
			{name: "x", typ: arrow.PrimitiveTypes.Int32, nulls: randNulls(rng)},
			{name: "y", typ: arrow.BinaryTypes.String, nulls: randNulls(rng), strMode: rng.IntN(5)}}}
		s.typ = structOf(s.children)
		g.children = []*genField{s}
		g.typ = arrow.ListOfField(arrow.Field{Name: "item", Type: s.typ, Nullable: true})
	default:
		g.typ = leafTypes[rng.IntN(len(leafTypes))]
	}
	if v == file.V2_0 {
		noStructNulls(g)
	}
	maybeRequired(rng, g)
	return g
}

// noStructNulls removes struct nulls, which 2.0 files cannot hold.
func noStructNulls(g *genField) {
	if g.typ.ID() == arrow.STRUCT {
		g.nulls = nullsNone
	}
	for _, c := range g.children {
		noStructNulls(c)
	}
}

func structOf(children []*genField) arrow.DataType {
	fs := make([]arrow.Field, len(children))
	for i, c := range children {
		fs[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: c.nullable()}
	}
	return arrow.StructOf(fs...)
}

// nullable is the Arrow nullability of the field: fields without nulls are declared
// non-nullable when their name says so (a trailing "!").
func (g *genField) nullable() bool {
	return g.nulls != nullsNone || !strings.HasSuffix(g.name, "!")
}

// maybeRequired marks a field without nulls as non-nullable half of the time.
func maybeRequired(rng *rand.Rand, g *genField) {
	if g.nulls == nullsNone && rng.IntN(2) == 0 {
		g.name += "!"
	}
}

func randNulls(rng *rand.Rand) int {
	switch r := rng.IntN(10); {
	case r < 4:
		return nullsNone
	case r < 9:
		return nullsSome
	}
	return nullsAll
}

func (g *genField) isNull(rng *rand.Rand) bool {
	switch g.nulls {
	case nullsAll:
		return true
	case nullsSome:
		return rng.IntN(5) == 0
	}
	return false
}

// fill appends one value of g to b.
func (g *genField) fill(rng *rand.Rand, b array.Builder) {
	if g.isNull(rng) {
		if sb, ok := b.(*array.StructBuilder); ok {
			sb.AppendNulls(1) // also appends nulls to the children
			return
		}
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.StructBuilder:
		b.Append(true)
		for i, c := range g.children {
			c.fill(rng, b.FieldBuilder(i))
		}
	case *array.ListBuilder:
		b.Append(true)
		for range rng.IntN(5) { // 0 gives empty lists
			g.children[0].fill(rng, b.ValueBuilder())
		}
	case *array.LargeListBuilder:
		b.Append(true)
		for range rng.IntN(5) {
			g.children[0].fill(rng, b.ValueBuilder())
		}
	case *array.FixedSizeListBuilder:
		b.Append(true)
		vb := b.ValueBuilder().(*array.Float32Builder)
		for range g.typ.(*arrow.FixedSizeListType).Len() {
			if rng.IntN(50) == 0 {
				vb.AppendNull()
			} else {
				vb.Append(float32(rng.NormFloat64()))
			}
		}
	default:
		g.fillLeaf(rng, b)
	}
}

func (g *genField) randInt(rng *rand.Rand, bits int) uint64 {
	if g.runs && rng.IntN(20) != 0 {
		return g.last & (1<<bits - 1)
	}
	g.last = g.freshInt(rng, bits)
	return g.last
}

func (g *genField) freshInt(rng *rand.Rand, bits int) uint64 {
	if g.smallInt {
		return uint64(rng.IntN(100))
	}
	if bits == 64 {
		return rng.Uint64()
	}
	return rng.Uint64() & (1<<bits - 1)
}

func (g *genField) randString(rng *rand.Rand) string {
	switch g.strMode {
	case 0:
		return []string{"apple", "banana", "cherry", "", "durian", "elderberry"}[rng.IntN(6)]
	case 1:
		return randText(rng, rng.IntN(20))
	case 2:
		return randText(rng, 200+rng.IntN(200))
	case 3:
		return fmt.Sprintf("common/prefix/for/fsst/%d/suffix", rng.IntN(100000))
	}
	return fmt.Sprintf("%s%d", strings.Repeat("long repetitive text ", 15), rng.IntN(100000))
}

func randText(rng *rand.Rand, n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteByte(byte('a' + rng.IntN(26)))
	}
	return sb.String()
}

func (g *genField) fillLeaf(rng *rand.Rand, b array.Builder) {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(g.randInt(rng, 8)))
	case *array.Int16Builder:
		b.Append(int16(g.randInt(rng, 16)))
	case *array.Int32Builder:
		b.Append(int32(g.randInt(rng, 32)))
	case *array.Int64Builder:
		b.Append(int64(g.randInt(rng, 64)))
	case *array.Uint8Builder:
		b.Append(uint8(g.randInt(rng, 8)))
	case *array.Uint16Builder:
		b.Append(uint16(g.randInt(rng, 16)))
	case *array.Uint32Builder:
		b.Append(uint32(g.randInt(rng, 32)))
	case *array.Uint64Builder:
		b.Append(g.randInt(rng, 64))
	case *array.Float32Builder:
		b.Append(float32(rng.NormFloat64() * 1000))
	case *array.Float64Builder:
		if g.runs {
			b.Append(float64(g.randInt(rng, 16)) / 4)
			return
		}
		b.Append(rng.NormFloat64() * 1e6)
	case *array.BooleanBuilder:
		b.Append(rng.IntN(2) == 0)
	case *array.StringBuilder:
		b.Append(g.randString(rng))
	case *array.LargeStringBuilder:
		b.Append(g.randString(rng))
	case *array.BinaryBuilder:
		b.Append([]byte(g.randString(rng)))
	case *array.Date32Builder:
		b.Append(arrow.Date32(rng.IntN(40000) - 10000))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(rng.Int64N(math.MaxInt64/1000) - math.MaxInt64/2000))
	case *array.Float16Builder:
		b.Append(float16.New(float32(rng.IntN(2000)) / 8))
	case *array.Decimal256Builder:
		b.Append(decimal256.FromI64(rng.Int64N(1e15) - 5e14))
	case *array.Date64Builder:
		b.Append(arrow.Date64(int64(rng.IntN(40000)-10000) * 86400000))
	case *array.Time32Builder:
		b.Append(arrow.Time32(rng.IntN(86400000)))
	case *array.Time64Builder:
		b.Append(arrow.Time64(rng.Int64N(86400 * 1e9)))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(g.randInt(rng, 32)))
	case *array.FixedSizeBinaryBuilder:
		b.Append([]byte(randText(rng, 5)))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(rng.Int64N(1e15) - 5e14))
	case *array.BinaryDictionaryBuilder:
		if b.Type().(*arrow.DictionaryType).ValueType.ID() == arrow.BINARY {
			_ = b.Append([]byte(g.randString(rng)))
		} else {
			_ = b.AppendString(g.randString(rng))
		}
	case *array.Int64DictionaryBuilder:
		_ = b.Append(int64(rng.IntN(6)) * 1000)
	default:
		panic(fmt.Sprintf("test generator: no filler for %T", b))
	}
}

// genBatch builds a batch of n rows of the fields.
func genBatch(rng *rand.Rand, mem memory.Allocator, sc *arrow.Schema, fields []*genField, n int) arrow.RecordBatch {
	rb := array.NewRecordBuilder(mem, sc)
	defer rb.Release()
	for i, g := range fields {
		for range n {
			g.fill(rng, rb.Field(i))
		}
	}
	return rb.NewRecordBatch()
}
