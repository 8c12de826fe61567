package index

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// labelListNullsKey is the schema metadata key naming the global buffer of null lists.
const labelListNullsKey = "lance:label_list_nulls"

// bitmapIndex reads a Bitmap or LabelList segment (§8.2, §8.3): the keys are loaded at
// open; the bitmaps of the keys a query needs are read when first needed and kept, decoded,
// in the page cache (cache.go).
type bitmapIndex struct {
	typ   Type
	store lanceio.ObjectStore
	// listNulls is the global buffer holding the rows whose list is null (label lists of
	// index_version >= 1, metadata "lance:label_list_nulls"); -1 if absent.
	listNulls int64
	file      indexFile
	covered   []uint32
	mem       memory.Allocator
	keys      []value
	bitmaps   int32  // field id of the bitmaps column
	owner     uint64 // this segment's bitmaps in the page cache, by key row
}

func openBitmap(ctx context.Context, store lanceio.ObjectStore, dir string, t Type, covered []uint32,
	mem memory.Allocator) (*bitmapIndex, error) {
	r, err := openFile(ctx, store, dir, bitmapFile)
	if err != nil {
		return nil, err
	}
	ids, err := fieldIDs(r, "bitmaps")
	if err != nil {
		return nil, err
	}
	b := &bitmapIndex{typ: t, store: store, listNulls: -1, file: r, covered: covered, mem: mem, bitmaps: ids[0],
		owner: newCacheOwner()}
	if v, ok := r.Schema().Metadata[labelListNullsKey]; ok && t == TypeLabelList {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return nil, corrupt("%s: %s = %q", r.Path(), labelListNullsKey, v)
		}
		b.listNulls = int64(n)
	}
	arrs, err := readColumns(ctx, r, 0, r.NumRows(), mem, "keys")
	if err != nil {
		return nil, err
	}
	defer releaseAll(arrs)
	for i := 0; i < arrs[0].Len(); i++ {
		v, ok := valueAt(arrs[0], i)
		if !ok {
			return nil, notSupported("%s index over %s", t, arrs[0].DataType())
		}
		b.keys = append(b.keys, v)
	}
	return b, nil
}

func (b *bitmapIndex) Type() Type { return b.typ }

// Search unions (or, for array_has_all, intersects) the bitmaps of the matching keys.
func (b *bitmapIndex) Search(ctx context.Context, q Query) (Result, error) {
	if b.typ == TypeLabelList {
		return b.searchLabels(ctx, q)
	}
	if q.Op == OpArrayHasAll || q.Op == OpArrayHasAny {
		return Result{Kind: NotAnswerable, Reason: fmt.Sprintf("%s on a bitmap index", q.Op)}, nil
	}
	p, err := compile(q)
	if err != nil {
		return unanswerable(err)
	}
	var rows []uint64
	for i, k := range b.keys {
		if p.match(k) {
			rows = append(rows, uint64(i))
		}
	}
	sets, err := b.load(ctx, rows)
	if err != nil {
		return Result{}, err
	}
	out := Result{Kind: Exact, Rows: NewRowSet(), Covered: b.covered}
	for _, s := range sets {
		out.Rows.Union(s)
	}
	return out, nil
}

// searchLabels answers array_has_any and array_has_all on a LabelList segment.
func (b *bitmapIndex) searchLabels(ctx context.Context, q Query) (Result, error) {
	if q.Op == OpIsNull && b.listNulls >= 0 {
		buf, err := readGlobalBuffer(ctx, b.store, b.file.Path(), uint32(b.listNulls))
		if err != nil {
			return Result{}, err
		}
		rows, err := DecodeRowTreeMap(buf)
		if err != nil {
			return Result{}, fmt.Errorf("%s: null lists: %w", b.file.Path(), err)
		}
		return Result{Kind: Exact, Rows: rows, Covered: b.covered}, nil
	}
	if q.Op == OpIsNull {
		return Result{Kind: NotAnswerable, Reason: "IS NULL on a label list index without a null-list buffer (index_version 0)"}, nil
	}
	if q.Op != OpArrayHasAny && q.Op != OpArrayHasAll {
		return Result{Kind: NotAnswerable, Reason: fmt.Sprintf("%s on a label list index", q.Op)}, nil
	}
	if len(q.Values) == 0 {
		return Result{Kind: NotAnswerable, Reason: fmt.Sprintf("%s without values", q.Op)}, nil
	}
	out := Result{Kind: Exact, Rows: NewRowSet(), Covered: b.covered}
	var rows []uint64
	for _, s := range q.Values {
		v, ok := scalarValue(s)
		if !ok {
			return Result{Kind: NotAnswerable, Reason: fmt.Sprintf("unsupported value type %s", s.DataType())}, nil
		}
		i := slices.IndexFunc(b.keys, func(k value) bool { return !k.isNull() && !v.isNull() && compareValues(k, v) == 0 })
		if i < 0 {
			if q.Op == OpArrayHasAll {
				return out, nil // a missing label: no row has them all
			}
			continue
		}
		rows = append(rows, uint64(i))
	}
	slices.Sort(rows)
	rows = slices.Compact(rows)
	if len(rows) == 0 {
		return out, nil
	}
	sets, err := b.load(ctx, rows)
	if err != nil {
		return Result{}, err
	}
	out.Rows.Union(sets[0])
	for _, s := range sets[1:] {
		if q.Op == OpArrayHasAll {
			out.Rows.Intersect(s)
		} else {
			out.Rows.Union(s)
		}
	}
	return out, nil
}

// load returns the decoded bitmaps of the given key rows (ascending): from the page cache
// when there, else read (the missing ones in one Take), decoded and cached. The returned
// sets are shared with the cache: callers must not modify them.
func (b *bitmapIndex) load(ctx context.Context, rows []uint64) ([]*RowSet, error) {
	out := make([]*RowSet, len(rows))
	var missing []uint64
	var at []int // positions in rows of missing
	for i, r := range rows {
		if v, ok := pages.get(cacheKey{b.owner, r}); ok {
			out[i] = v.(*RowSet)
		} else {
			missing, at = append(missing, r), append(at, i)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	arrs, err := b.file.Take(ctx, []int32{b.bitmaps}, missing, b.mem)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", b.file.Path(), wrapFileErr(err))
	}
	defer releaseAll(arrs)
	bin, ok := arrs[0].(*array.Binary)
	if !ok {
		return nil, corrupt("%s: bitmaps is %s, want binary", b.file.Path(), arrs[0].DataType())
	}
	for i := range missing {
		set := NewRowSet()
		if !bin.IsNull(i) {
			if set, err = DecodeRowTreeMap(bin.Value(i)); err != nil {
				return nil, fmt.Errorf("%s: key row %d: %w", b.file.Path(), missing[i], err)
			}
		}
		out[at[i]] = set
		pages.add(cacheKey{b.owner, missing[i]}, set, set.cost())
	}
	return out, nil
}
