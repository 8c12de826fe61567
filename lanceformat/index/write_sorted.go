package index

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// sortedOrder returns the row indices of values ordered ascending with nulls first, ties
// by position, and the normalized values.
func sortedOrder(values arrow.Array) ([]int64, []value, error) {
	vals := make([]value, values.Len())
	for i := range vals {
		v, ok := valueAt(values, i)
		if !ok {
			return nil, nil, notSupported("indexing %s values", values.DataType())
		}
		vals[i] = v
	}
	order := make([]int64, len(vals))
	for i := range order {
		order[i] = int64(i)
	}
	slices.SortStableFunc(order, func(a, b int64) int { return compareNullsFirst(vals[a], vals[b]) })
	return order, vals, nil
}

// compareNullsFirst orders values with null before everything.
func compareNullsFirst(a, b value) int {
	switch {
	case a.isNull() && b.isNull():
		return 0
	case a.isNull():
		return -1
	case b.isNull():
		return 1
	}
	return compareValues(a, b)
}

// btree writes page_data.lance and page_lookup.lance (§8.1).
func (w *indexWriter) btree(col *Column) error {
	order, vals, err := sortedOrder(col.Values)
	if err != nil {
		return err
	}
	sorted, err := takeRows(w.ctx, col.Values, order, w.mem)
	if err != nil {
		return err
	}
	defer sorted.Release()
	ids := array.NewUint64Builder(w.mem)
	defer ids.Release()
	for _, i := range order {
		ids.Append(col.Addrs[i])
	}
	idArr := ids.NewArray()
	defer idArr.Release()
	typ := col.Values.DataType()
	dataSchema := arrow.NewSchema([]arrow.Field{{Name: "values", Type: typ, Nullable: true},
		{Name: "ids", Type: arrow.PrimitiveTypes.Uint64}}, nil)
	if err := w.writeFile(btreeDataFile, dataSchema, []arrow.Array{sorted, idArr}); err != nil {
		return err
	}
	return w.btreeLookup(sorted, order, vals)
}

// btreeLookup writes page_lookup.lance: per page the first and last value, the null
// count and the page index.
func (w *indexWriter) btreeLookup(sorted arrow.Array, order []int64, vals []value) error {
	bs := w.opts.BTreeBatchSize
	var firsts, lasts []int64
	nulls := array.NewUint32Builder(w.mem)
	defer nulls.Release()
	pages := array.NewUint32Builder(w.mem)
	defer pages.Release()
	for p := 0; p*bs < len(order); p++ {
		start, end := p*bs, min((p+1)*bs, len(order))
		firsts, lasts = append(firsts, int64(start)), append(lasts, int64(end-1))
		n := uint32(0)
		for _, i := range order[start:end] {
			if vals[i].isNull() {
				n++
			}
		}
		nulls.Append(n)
		pages.Append(uint32(p))
	}
	mins, err := takeRows(w.ctx, sorted, firsts, w.mem)
	if err != nil {
		return err
	}
	defer mins.Release()
	maxs, err := takeRows(w.ctx, sorted, lasts, w.mem)
	if err != nil {
		return err
	}
	defer maxs.Release()
	nullArr, pageArr := nulls.NewArray(), pages.NewArray()
	defer nullArr.Release()
	defer pageArr.Release()
	typ := sorted.DataType()
	md := arrow.NewMetadata([]string{"batch_size", "range_partitioned"}, []string{strconv.Itoa(bs), "false"})
	as := arrow.NewSchema([]arrow.Field{{Name: "min", Type: typ, Nullable: true}, {Name: "max", Type: typ, Nullable: true},
		{Name: "null_count", Type: arrow.PrimitiveTypes.Uint32}, {Name: "page_idx", Type: arrow.PrimitiveTypes.Uint32}}, &md)
	return w.writeFile(btreeLookupFile, as, []arrow.Array{mins, maxs, nullArr, pageArr})
}

// bitmap writes bitmap_page_lookup.lance (§8.2): one row per distinct value (null
// included) with the RowIdTreeMap of its rows. extra is added to the schema metadata.
func (w *indexWriter) bitmap(values arrow.Array, addrs []uint64, extra map[string]string) error {
	order, vals, err := sortedOrder(values)
	if err != nil {
		return err
	}
	var keyRows []int64
	bitmaps := array.NewBinaryBuilder(w.mem, arrow.BinaryTypes.Binary)
	defer bitmaps.Release()
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && compareNullsFirst(vals[order[start]], vals[order[end]]) == 0 {
			end++
		}
		group := make([]uint64, 0, end-start)
		for _, i := range order[start:end] {
			group = append(group, addrs[i])
		}
		keyRows = append(keyRows, order[start])
		bitmaps.Append(EncodeRowTreeMap(RowSetOf(group...)))
		start = end
	}
	keys, err := takeRows(w.ctx, values, keyRows, w.mem)
	if err != nil {
		return err
	}
	defer keys.Release()
	bm := bitmaps.NewArray()
	defer bm.Release()
	stats, err := json.Marshal(map[string]int{"num_bitmaps": len(keyRows)})
	if err != nil {
		return fmt.Errorf("index stats: %w", err)
	}
	mk, mv := []string{"lance:index_stats"}, []string{string(stats)}
	for k, v := range extra {
		mk, mv = append(mk, k), append(mv, v)
	}
	md := arrow.NewMetadata(mk, mv)
	as := arrow.NewSchema([]arrow.Field{{Name: "keys", Type: values.DataType(), Nullable: true},
		{Name: "bitmaps", Type: arrow.BinaryTypes.Binary, Nullable: true}}, &md)
	return w.writeFile(bitmapFile, as, []arrow.Array{keys, bm})
}

// labelList flattens a list column and writes a bitmap of its non-null items (§8.3),
// in index_version 0 layout (no null-list buffer).
func (w *indexWriter) labelList(col *Column) error {
	var items arrow.Array
	var offsets func(i int) (int64, int64)
	switch l := col.Values.(type) {
	case *array.List:
		items, offsets = l.ListValues(), l.ValueOffsets
	case *array.LargeList:
		items, offsets = l.ListValues(), l.ValueOffsets
	default:
		return fmt.Errorf("label list over %s: want a list column", col.Values.DataType())
	}
	var idx []int64
	var addrs []uint64
	for i := 0; i < col.Values.Len(); i++ {
		if col.Values.IsNull(i) {
			continue
		}
		s, e := offsets(i)
		for j := s; j < e; j++ {
			if items.IsValid(int(j)) {
				idx, addrs = append(idx, j), append(addrs, col.Addrs[i])
			}
		}
	}
	flat, err := takeRows(w.ctx, items, idx, w.mem)
	if err != nil {
		return err
	}
	defer flat.Release()
	return w.bitmap(flat, addrs, nil)
}
