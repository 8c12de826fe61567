package index

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// zoneRange is a zone and the positions [start, end) of its rows in the Column.
type zoneRange struct {
	zone       Zone
	start, end int
}

// splitZones cuts the column's rows into zones of at most size rows that never span
// fragments. A zone covers the offsets from its first to its last row (deleted rows in
// between included), so Zone ranges are supersets.
func splitZones(addrs []uint64, size int) []zoneRange {
	var out []zoneRange
	for start := 0; start < len(addrs); {
		frag := uint32(addrs[start] >> 32)
		end := start + 1
		for end < len(addrs) && end-start < size && uint32(addrs[end]>>32) == frag {
			end++
		}
		first, last := addrs[start]&0xFFFFFFFF, addrs[end-1]&0xFFFFFFFF
		out = append(out, zoneRange{zone: Zone{Fragment: frag, Start: first, Length: last - first + 1}, start: start, end: end})
		start = end
	}
	return out
}

// zoneColumns builds the fragment_id, zone_start and zone_length columns.
func zoneColumns(zones []zoneRange, mem memory.Allocator) []arrow.Array {
	var cols []arrow.Array
	for c := range 3 {
		b := array.NewUint64Builder(mem)
		for _, z := range zones {
			b.Append([]uint64{uint64(z.zone.Fragment), z.zone.Start, z.zone.Length}[c])
		}
		cols = append(cols, b.NewArray())
		b.Release()
	}
	return cols
}

var zoneFields = []arrow.Field{{Name: "fragment_id", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "zone_start", Type: arrow.PrimitiveTypes.Uint64}, {Name: "zone_length", Type: arrow.PrimitiveTypes.Uint64}}

// zoneMap writes zonemap.lance (§8.4): per zone min and max (NaN and null excluded),
// null and NaN counts.
func (w *indexWriter) zoneMap(col *Column) error {
	zones := splitZones(col.Addrs, w.opts.RowsPerZone)
	mins, maxs := array.NewInt64Builder(w.mem), array.NewInt64Builder(w.mem)
	defer mins.Release()
	defer maxs.Release()
	nulls, nans := array.NewUint32Builder(w.mem), array.NewUint32Builder(w.mem)
	defer nulls.Release()
	defer nans.Release()
	for _, z := range zones {
		lo, hi := -1, -1
		var nNull, nNaN uint32
		var loV, hiV value
		for i := z.start; i < z.end; i++ {
			v, ok := valueAt(col.Values, i)
			switch {
			case !ok:
				return notSupported("zone map over %s", col.Values.DataType())
			case v.isNull():
				nNull++
			case v.kind == kFloat && math.IsNaN(v.f):
				nNaN++
			default:
				if lo < 0 || compareValues(v, loV) < 0 {
					lo, loV = i, v
				}
				if hi < 0 || compareValues(v, hiV) > 0 {
					hi, hiV = i, v
				}
			}
		}
		appendIndex(mins, lo)
		appendIndex(maxs, hi)
		nulls.Append(nNull)
		nans.Append(nNaN)
	}
	minIdx, maxIdx := mins.NewArray(), maxs.NewArray()
	defer minIdx.Release()
	defer maxIdx.Release()
	minArr, err := takeIndices(w.ctx, col.Values, minIdx, w.mem)
	if err != nil {
		return err
	}
	defer minArr.Release()
	maxArr, err := takeIndices(w.ctx, col.Values, maxIdx, w.mem)
	if err != nil {
		return err
	}
	defer maxArr.Release()
	nullArr, nanArr := nulls.NewArray(), nans.NewArray()
	defer nullArr.Release()
	defer nanArr.Release()
	zc := zoneColumns(zones, w.mem)
	defer releaseAll(zc)
	typ := col.Values.DataType()
	md := arrow.NewMetadata([]string{"rows_per_zone"}, []string{strconv.Itoa(w.opts.RowsPerZone)})
	fields := append([]arrow.Field{{Name: "min", Type: typ, Nullable: true}, {Name: "max", Type: typ, Nullable: true},
		{Name: "null_count", Type: arrow.PrimitiveTypes.Uint32}, {Name: "nan_count", Type: arrow.PrimitiveTypes.Uint32}},
		zoneFields...)
	return w.writeFile(zoneMapFile, arrow.NewSchema(fields, &md), append([]arrow.Array{minArr, maxArr, nullArr, nanArr}, zc...))
}

// appendIndex appends i, or null when i < 0.
func appendIndex(b *array.Int64Builder, i int) {
	if i < 0 {
		b.AppendNull()
		return
	}
	b.Append(int64(i))
}

// bloom writes bloomfilter.lance (§8.5): per zone of BloomItems rows a split-block bloom
// filter of the xxHash64 of each non-null value.
func (w *indexWriter) bloom(col *Column) error {
	zones := splitZones(col.Addrs, w.opts.BloomItems)
	typ := col.Values.DataType()
	hasNull := array.NewBooleanBuilder(w.mem)
	defer hasNull.Release()
	data := array.NewBinaryBuilder(w.mem, arrow.BinaryTypes.Binary)
	defer data.Release()
	for _, z := range zones {
		f := NewSBBF(sbbfBlocks(w.opts.BloomItems, w.opts.BloomProbability))
		sawNull := false
		for i := z.start; i < z.end; i++ {
			v, ok := valueAt(col.Values, i)
			if !ok {
				return notSupported("bloom filter over %s", typ)
			}
			if v.isNull() {
				sawNull = true
				continue
			}
			b, err := hashBytes(v, typ)
			if err != nil {
				return notSupported("bloom filter over %s", typ)
			}
			f.Insert(xxhashSum64(b))
		}
		hasNull.Append(sawNull)
		data.Append(f.Encode())
	}
	hn, bd := hasNull.NewArray(), data.NewArray()
	defer hn.Release()
	defer bd.Release()
	zc := zoneColumns(zones, w.mem)
	defer releaseAll(zc)
	md := arrow.NewMetadata([]string{"bloomfilter_item", "bloomfilter_probability"},
		[]string{strconv.Itoa(w.opts.BloomItems), strconv.FormatFloat(w.opts.BloomProbability, 'g', -1, 64)})
	fields := append(append([]arrow.Field{}, zoneFields...), arrow.Field{Name: "has_null", Type: arrow.FixedWidthTypes.Boolean},
		arrow.Field{Name: "bloom_filter_data", Type: arrow.BinaryTypes.Binary})
	return w.writeFile(bloomFile, arrow.NewSchema(fields, &md), append(zc, hn, bd))
}

// sbbfBlocks sizes a filter for ndv distinct values at false-positive rate fpp, as Parquet
// does: bits = -8·ndv / ln(1 - fpp^(1/8)), rounded up to a power of two bytes in
// [32 B, 128 MiB].
func sbbfBlocks(ndv int, fpp float64) int {
	bits := -8 * float64(ndv) / math.Log(1-math.Pow(fpp, 1.0/8))
	bytes := 32
	for float64(bytes*8) < bits && bytes < 128<<20 {
		bytes <<= 1
	}
	return bytes / 32
}
