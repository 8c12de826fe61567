package file_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/schema"
)

// compressionMeta is field metadata asking for a compression scheme (and level).
func compressionMeta(kv ...string) arrow.Metadata {
	var keys, vals []string
	for i := 0; i+1 < len(kv); i += 2 {
		keys = append(keys, kv[i])
		vals = append(vals, kv[i+1])
	}
	return arrow.NewMetadata(keys, vals)
}

var (
	dictStr   = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	dictI8Bin = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.Binary}
	dictI16   = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.PrimitiveTypes.Int64}
	dictU8    = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.BinaryTypes.String}
)

// featureSchema has a column per writer feature: General compression asked by field
// metadata (top level and on a list item), compression turned off, huge strings (per-value
// zstd by default), and Arrow dictionary columns (flat, in a list, in a struct).
func featureSchema() *arrow.Schema {
	zstd := compressionMeta(encoding.MetaCompression, "zstd")
	return arrow.NewSchema([]arrow.Field{
		{Name: "i64_zstd", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: zstd},
		{Name: "i32_zstd9", Type: arrow.PrimitiveTypes.Int32, Nullable: true,
			Metadata: compressionMeta(encoding.MetaCompression, "zstd", encoding.MetaCompressionLevel, "9")},
		{Name: "str_zstd", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: zstd},
		{Name: "f64_lz4", Type: arrow.PrimitiveTypes.Float64, Nullable: true, Metadata: compressionMeta(encoding.MetaCompression, "lz4")},
		{Name: "bin_lz4", Type: arrow.BinaryTypes.LargeBinary, Nullable: true, Metadata: compressionMeta(encoding.MetaCompression, "lz4")},
		{Name: "str_none", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: compressionMeta(encoding.MetaCompression, "none")},
		{Name: "huge", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "list_zstd", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: zstd}), Nullable: true},
		{Name: "dict_str", Type: dictStr, Nullable: true},
		{Name: "dict_i8_bin", Type: dictI8Bin, Nullable: true},
		{Name: "dict_i64", Type: dictI16, Nullable: true},
		{Name: "dict_u8", Type: dictU8, Nullable: true},
		{Name: "dict_zstd", Type: dictStr, Nullable: true, Metadata: zstd},
		{Name: "list_dict", Type: arrow.ListOf(dictStr), Nullable: true},
		{Name: "struct_dict", Type: arrow.StructOf(arrow.Field{Name: "d", Type: dictStr, Nullable: true},
			arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
	}, nil)
}

var featureWords = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}

// fillFeature appends row i (of batch batch) to the builder of column col.
func fillFeature(b array.Builder, col, batch, i int) {
	if i%13 == 7 && col != 6 {
		b.AppendNull()
		return
	}
	word := featureWords[(i*7+batch)%len(featureWords)]
	switch b := b.(type) {
	case *array.Int64Builder:
		b.Append(int64(i*i%100003) - 5000)
	case *array.Int32Builder:
		b.Append(int32(i % 977))
	case *array.Float64Builder:
		b.Append(float64(i%500) / 8)
	case *array.StringBuilder:
		b.Append(fmt.Sprintf("%s-%d-%s", word, i, strings.Repeat("x", i%7)))
	case *array.BinaryBuilder:
		b.Append([]byte(strings.Repeat(word, 1+i%5)))
	case *array.LargeStringBuilder: // huge: one value above 32 KiB per 400 rows
		if i%400 == 3 {
			b.Append(strings.Repeat(fmt.Sprintf("%s %d ", word, i), 4000))
		} else if i%5 == 0 {
			b.AppendNull()
		} else {
			b.Append(word)
		}
	case *array.ListBuilder:
		b.Append(true)
		for j := range i % 4 {
			fillFeature(b.ValueBuilder(), col, batch, i+j*3+1)
		}
	case *array.StructBuilder:
		b.Append(true)
		fillFeature(b.FieldBuilder(0), 8, batch, i+1)
		b.FieldBuilder(1).(*array.Int32Builder).Append(int32(i))
	case *array.BinaryDictionaryBuilder:
		if _, ok := b.Type().(*arrow.DictionaryType).ValueType.(*arrow.BinaryType); ok {
			_ = b.Append([]byte(word))
		} else {
			_ = b.AppendString(word)
		}
	case *array.Int64DictionaryBuilder:
		_ = b.Append(int64((i*3+batch)%11) * 1000)
	default:
		panic(fmt.Sprintf("fillFeature: no filler for %T", b))
	}
}

// TestWriterFeatures writes General-compressed, uncompressed, huge-string and Arrow
// dictionary columns to 2.1 and 2.2 files (two batches with different dictionaries, large
// and small pages) and checks our reader and pylance read them back equal, types included.
func TestWriterFeatures(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	if d := os.Getenv("LANCE_WRITER_KEEP"); d != "" {
		dir = d
	}
	asc := featureSchema()
	var cases []writerCase
	for _, v := range []file.Version{file.V2_1, file.V2_2} {
		for _, pageBytes := range []int64{0, 16 << 10} {
			t.Run(fmt.Sprintf("%s/page%d", v, pageBytes), func(t *testing.T) {
				cases = append(cases, writeFeatureFile(t, dir, asc, v, pageBytes, mem))
			})
		}
	}
	if t.Failed() {
		return
	}
	results := runPylanceChecker(t, dir, cases)
	for _, c := range cases {
		res, ok := results[c.Name]
		require.True(t, ok, "no pylance result for %s", c.Name)
		require.True(t, res.OK, "pylance rejected %s: %s", c.Name, res.Error)
	}
}

func writeFeatureFile(t *testing.T, dir string, asc *arrow.Schema, v file.Version, pageBytes int64, mem memory.Allocator) writerCase {
	ctx := context.Background()
	sc, err := schema.FromArrow(asc, 0)
	require.NoError(t, err)
	name := fmt.Sprintf("features_%s_%d", v, pageBytes)
	opts := []file.WriterOption{file.WithAllocator(mem)}
	if pageBytes > 0 {
		opts = append(opts, file.WithPageBytes(pageBytes))
	}
	store := osStore{dir}
	w, err := file.NewWriter(ctx, store, name+".lance", sc, v, opts...)
	require.NoError(t, err)
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for batch, n := range []int{3000, 1700} {
		rb := array.NewRecordBuilder(mem, asc)
		for i := range n {
			for c := range asc.NumFields() {
				fillFeature(rb.Field(c), c, batch, i)
			}
		}
		b := rb.NewRecordBatch()
		rb.Release()
		batches = append(batches, b)
		require.NoError(t, w.Write(ctx, b))
	}
	info, err := w.Close(ctx)
	require.NoError(t, err)
	checkOwnReader(t, store, name+".lance", v, batches, sc, info, mem)
	// The IPC file format cannot change dictionaries between batches: one batch holds all.
	all := concatBatches(t, asc, batches, mem)
	defer all.Release()
	return writeExpected(t, dir, name, asc, []arrow.RecordBatch{all}, nil, v, mem)
}

// concatBatches concatenates batches column by column (unifying dictionaries).
func concatBatches(t *testing.T, asc *arrow.Schema, batches []arrow.RecordBatch, mem memory.Allocator) arrow.RecordBatch {
	cols := make([]arrow.Array, asc.NumFields())
	var rows int64
	for c := range cols {
		parts := make([]arrow.Array, len(batches))
		for j, b := range batches {
			parts[j] = b.Column(c)
		}
		a, err := array.Concatenate(parts, mem)
		require.NoError(t, err)
		cols[c] = a
		rows = int64(a.Len())
	}
	rec := array.NewRecordBatch(asc, cols, rows)
	for _, a := range cols {
		a.Release()
	}
	return rec
}

func TestWriterRejectsDictionaryIn20(t *testing.T) {
	tests := []struct {
		name string
		typ  arrow.DataType
	}{
		{"top level", dictStr},
		{"in a list", arrow.ListOf(dictStr)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := schema.FromArrow(arrow.NewSchema([]arrow.Field{{Name: "d", Type: tc.typ, Nullable: true}}, nil), 0)
			require.NoError(t, err)
			_, err = file.NewWriter(context.Background(), osStore{t.TempDir()}, "x.lance", sc, file.V2_0)
			require.ErrorIs(t, err, encoding.ErrNotSupported)
			require.ErrorContains(t, err, "dictionary")
		})
	}
}

func TestWriterRejectsUnknownCompression(t *testing.T) {
	asc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32,
		Metadata: compressionMeta(encoding.MetaCompression, "snappy")}}, nil)
	sc, err := schema.FromArrow(asc, 0)
	require.NoError(t, err)
	_, err = file.NewWriter(context.Background(), osStore{t.TempDir()}, "x.lance", sc, file.V2_1)
	require.ErrorIs(t, err, encoding.ErrNotSupported)
	require.ErrorContains(t, err, "snappy")
}

// TestWriterMap writes map columns (null, empty and non-empty maps, null values, a map in
// a struct) to a 2.2 file and checks pylance and our reader (full reads, ranges and takes)
// read them back equal, types included.
func TestWriterMap(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	mt := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)
	asc := arrow.NewSchema([]arrow.Field{
		{Name: "m", Type: mt, Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "tags", Type: arrow.MapOf(arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String), Nullable: true}), Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, asc)
	defer rb.Release()
	mb := rb.Field(0).(*array.MapBuilder)
	sb := rb.Field(1).(*array.StructBuilder)
	tb := sb.FieldBuilder(0).(*array.MapBuilder)
	for i := range 3000 {
		switch i % 5 {
		case 0:
			mb.AppendNull()
		case 1:
			mb.Append(true) // empty
		default:
			mb.Append(true)
			for j := range i % 4 {
				mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", j))
				if (i+j)%7 == 0 {
					mb.ItemBuilder().AppendNull()
				} else {
					mb.ItemBuilder().(*array.Int32Builder).Append(int32(i * j))
				}
			}
		}
		sb.Append(true)
		if i%3 == 0 {
			tb.AppendNull()
			continue
		}
		tb.Append(true)
		tb.KeyBuilder().(*array.Int64Builder).Append(int64(i))
		tb.ItemBuilder().(*array.StringBuilder).Append(featureWords[i%len(featureWords)])
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	sc, err := schema.FromArrow(asc, 0)
	require.NoError(t, err)
	ctx := context.Background()
	for _, v := range []file.Version{file.V2_0, file.V2_1} {
		_, err := file.NewWriter(ctx, osStore{dir}, "old.lance", sc, v)
		require.ErrorIs(t, err, encoding.ErrNotSupported, "maps need 2.2 (%s)", v)
	}
	w, err := file.NewWriter(ctx, osStore{dir}, "map.lance", sc, file.V2_2, file.WithAllocator(mem))
	require.NoError(t, err)
	require.NoError(t, w.Write(ctx, rec))
	info, err := w.Close(ctx)
	require.NoError(t, err)
	require.Equal(t, []int32{2, 3, 7, 8}, info.Fields, "leaves: key, value, tags.key, tags.value")
	r, err := file.Open(ctx, osStore{dir}, "map.lance")
	require.NoError(t, err)
	for i, f := range r.Schema().Fields {
		t.Run("own reader/"+f.Name, func(t *testing.T) {
			require.True(t, arrow.TypeEqual(asc.Field(i).Type, f.Type), "type %s vs %s", f.Type, asc.Field(i).Type)
			checkField(t, ctx, r, f.ID, rec.Column(i), mem)
		})
	}
	c := writeExpected(t, dir, "map", asc, []arrow.RecordBatch{rec}, nil, file.V2_2, mem)
	res := runPylanceChecker(t, dir, []writerCase{c})["map"]
	require.True(t, res.OK, "pylance: %s", res.Error)
}

// randomCompression draws a lance-encoding:compression setting (and sometimes a level).
func randomCompression(rng *rand.Rand) arrow.Metadata {
	switch rng.IntN(6) {
	case 0:
		return compressionMeta(encoding.MetaCompression, "zstd")
	case 1:
		return compressionMeta(encoding.MetaCompression, "zstd", encoding.MetaCompressionLevel, strconv.Itoa(1+rng.IntN(15)))
	case 2:
		return compressionMeta(encoding.MetaCompression, "lz4")
	case 3:
		return compressionMeta(encoding.MetaCompression, "none")
	}
	return arrow.Metadata{}
}

// randomDictField draws a field of an Arrow dictionary type the writer supports; 8-bit keys
// get a 6-word vocabulary so every batch's dictionary fits them.
func randomDictField(rng *rand.Rand, name string) *genField {
	t := randomDictType(rng)
	g := &genField{name: name, typ: t, nulls: randNulls(rng), strMode: rng.IntN(4), smallInt: true}
	if t.(*arrow.DictionaryType).IndexType.(arrow.FixedWidthDataType).BitWidth() == 8 {
		g.strMode = 0
	}
	return g
}

// randomDictType draws an Arrow dictionary type the writer supports.
func randomDictType(rng *rand.Rand) arrow.DataType {
	keys := []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32,
		arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16}
	vals := []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.PrimitiveTypes.Int64}
	return &arrow.DictionaryType{IndexType: keys[rng.IntN(len(keys))], ValueType: vals[rng.IntN(len(vals))]}
}

// TestWriterFeaturesRandom writes random schemas whose fields carry random compression
// settings, mixed with Arrow dictionary columns (alone or in lists; 2.1+), to 2.0, 2.1 and
// 2.2 files, and checks our reader and pylance read them back equal.
func TestWriterFeaturesRandom(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	if d := os.Getenv("LANCE_WRITER_KEEP"); d != "" {
		dir = d
	}
	var cases []writerCase
	for seed := uint64(1); seed <= 10; seed++ {
		for _, v := range writerVersions {
			t.Run(fmt.Sprintf("seed%d/%s", seed, v), func(t *testing.T) {
				cases = append(cases, writeRandomFeatureFile(t, dir, seed, v, mem))
			})
		}
	}
	if t.Failed() {
		return
	}
	results := runPylanceChecker(t, dir, cases)
	for _, c := range cases {
		res, ok := results[c.Name]
		require.True(t, ok, "no pylance result for %s", c.Name)
		require.True(t, res.OK, "pylance rejected %s (%v): %s", c.Name, c.types, res.Error)
	}
}

func writeRandomFeatureFile(t *testing.T, dir string, seed uint64, v file.Version, mem memory.Allocator) writerCase {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 7000+uint64(v)))
	nf := 2 + rng.IntN(4)
	gens := make([]*genField, nf)
	afs := make([]arrow.Field, nf)
	for i := range gens {
		name := fmt.Sprintf("f%d", i)
		kind := rng.IntN(4)
		if v == file.V2_0 {
			kind = 3 // no Arrow dictionaries in 2.0 files
		}
		switch kind {
		case 0:
			gens[i] = randomDictField(rng, name)
		case 1:
			item := randomDictField(rng, "item")
			gens[i] = &genField{name: name, nulls: randNulls(rng), children: []*genField{item},
				typ: arrow.ListOfField(arrow.Field{Name: "item", Type: item.typ, Nullable: true})}
		default:
			gens[i] = randField(rng, name, 0, v)
		}
		afs[i] = arrow.Field{Name: gens[i].name, Type: gens[i].typ, Nullable: gens[i].nullable(), Metadata: randomCompression(rng)}
	}
	asc := arrow.NewSchema(afs, nil)
	sc, err := schema.FromArrow(asc, 0)
	require.NoError(t, err)
	name := fmt.Sprintf("features_seed%d_v%s", seed, v)
	opts := []file.WriterOption{file.WithAllocator(mem)}
	if rng.IntN(2) == 0 {
		opts = append(opts, file.WithPageBytes(int64(1+rng.IntN(64))<<10))
	}
	store := osStore{dir}
	w, err := file.NewWriter(ctx, store, name+".lance", sc, v, opts...)
	require.NoError(t, err)
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for range 1 + rng.IntN(3) {
		b := genBatch(rng, mem, asc, gens, rng.IntN(3000)+1)
		batches = append(batches, b)
		require.NoError(t, w.Write(ctx, b))
	}
	info, err := w.Close(ctx)
	require.NoError(t, err)
	checkOwnReader(t, store, name+".lance", v, batches, sc, info, mem)
	all := concatBatches(t, asc, batches, mem)
	defer all.Release()
	return writeExpected(t, dir, name, asc, []arrow.RecordBatch{all}, gens, v, mem)
}

// TestWriter20Zstd checks lance-encoding:compression=zstd shrinks the string bytes of a 2.0
// file (as pylance's 2.0 writer does) and the file still reads back equal in both readers.
func TestWriter20Zstd(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	sizes := map[string]uint64{}
	var cases []writerCase
	for _, comp := range []string{"", "zstd"} {
		md := arrow.Metadata{}
		if comp != "" {
			md = compressionMeta(encoding.MetaCompression, comp)
		}
		asc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md}}, nil)
		rb := array.NewRecordBuilder(mem, asc)
		for i := range 4000 {
			if i%11 == 0 {
				rb.Field(0).AppendNull()
				continue
			}
			rb.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("%s-%d-%s", featureWords[i%8], i, strings.Repeat("pad", i%9)))
		}
		rec := rb.NewRecordBatch()
		rb.Release()
		sc, err := schema.FromArrow(asc, 0)
		require.NoError(t, err)
		name := "zstd20_" + comp
		w, err := file.NewWriter(context.Background(), osStore{dir}, name+".lance", sc, file.V2_0, file.WithAllocator(mem))
		require.NoError(t, err)
		require.NoError(t, w.Write(context.Background(), rec))
		info, err := w.Close(context.Background())
		require.NoError(t, err)
		sizes[comp] = info.Size
		checkOwnReader(t, osStore{dir}, name+".lance", file.V2_0, []arrow.RecordBatch{rec}, sc, info, mem)
		cases = append(cases, writeExpected(t, dir, name, asc, []arrow.RecordBatch{rec}, nil, file.V2_0, mem))
		rec.Release()
	}
	require.Less(t, sizes["zstd"], sizes[""]/2, "zstd shrinks the string bytes")
	results := runPylanceChecker(t, dir, cases)
	for _, c := range cases {
		require.True(t, results[c.Name].OK, "pylance rejected %s: %s", c.Name, results[c.Name].Error)
	}
}
