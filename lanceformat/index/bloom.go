package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// bloomZone is one row of bloomfilter.lance.
type bloomZone struct {
	zone    Zone
	hasNull bool
	filter  SBBF
}

// bloomIndex answers = and IN with candidate zones (§8.5); the file is loaded at open.
type bloomIndex struct {
	colType arrow.DataType
	covered []uint32
	zones   []bloomZone
}

func openBloom(ctx context.Context, store lanceio.ObjectStore, dir string, colType arrow.DataType,
	covered []uint32, mem memory.Allocator) (*bloomIndex, error) {
	r, err := openFile(ctx, store, dir, bloomFile)
	if err != nil {
		return nil, err
	}
	arrs, err := readColumns(ctx, r, 0, r.NumRows(), mem,
		"fragment_id", "zone_start", "zone_length", "has_null", "bloom_filter_data")
	if err != nil {
		return nil, err
	}
	defer releaseAll(arrs)
	zones, err := readZones(arrs[:3])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Path(), err)
	}
	hasNull, ok1 := arrs[3].(*array.Boolean)
	data, ok2 := arrs[4].(*array.Binary)
	if !ok1 || !ok2 {
		return nil, corrupt("%s: has_null/bloom_filter_data are %s/%s", r.Path(), arrs[3].DataType(), arrs[4].DataType())
	}
	b := &bloomIndex{colType: colType, covered: covered}
	for i, zone := range zones {
		f, err := DecodeSBBF(data.Value(i))
		if err != nil {
			return nil, fmt.Errorf("%s: zone %d: %w", r.Path(), i, err)
		}
		b.zones = append(b.zones, bloomZone{zone: zone, hasNull: hasNull.Value(i), filter: f})
	}
	return b, nil
}

func (b *bloomIndex) Type() Type { return TypeBloomFilter }

// Search keeps the zones whose filter may contain one of the values (= and IN) or that
// have nulls (IS NULL).
func (b *bloomIndex) Search(_ context.Context, q Query) (Result, error) {
	out := Result{Kind: AtMost, Covered: b.covered}
	var hashes []uint64
	switch q.Op {
	case OpIsNull:
	case OpEq, OpIn:
		for _, s := range q.Values {
			if s == nil || !s.IsValid() {
				continue
			}
			h, err := hashScalar(s, b.colType)
			if err != nil {
				return unanswerable(err)
			}
			hashes = append(hashes, h)
		}
	default:
		return Result{Kind: NotAnswerable, Reason: fmt.Sprintf("%s on a bloom filter", q.Op)}, nil
	}
	for _, z := range b.zones {
		keep := q.Op == OpIsNull && z.hasNull
		for _, h := range hashes {
			keep = keep || z.filter.MayContain(h)
		}
		if keep {
			out.Zones = append(out.Zones, z.zone)
		}
	}
	return out, nil
}

// hashScalar hashes a query value as the writer hashed column values: xxHash64 (seed 0)
// of the column type's native little-endian bytes, or of the string/binary bytes.
func hashScalar(s scalar.Scalar, colType arrow.DataType) (uint64, error) {
	b, err := valueBytes(s, colType)
	if err != nil {
		return 0, err
	}
	return xxhashSum64(b), nil
}

// valueBytes renders a scalar as the column type's bytes (§8.5).
func valueBytes(s scalar.Scalar, colType arrow.DataType) ([]byte, error) {
	v, ok := scalarValue(s)
	if !ok {
		return nil, errUnanswerable{fmt.Sprintf("unsupported value type %s", s.DataType())}
	}
	return hashBytes(v, colType)
}

// hashBytes renders a non-null value as the bytes the bloom filter hashes for a column of
// type colType: native-width little-endian numbers, raw string and binary bytes.
func hashBytes(v value, colType arrow.DataType) ([]byte, error) {
	le := binary.LittleEndian
	switch colType.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		if v.kind != kBytes {
			return nil, errUnanswerable{fmt.Sprintf("non-string value for a %s column", colType)}
		}
		return v.b, nil
	case arrow.FLOAT32:
		return le.AppendUint32(nil, math.Float32bits(float32(v.float()))), nil
	case arrow.FLOAT64:
		return le.AppendUint64(nil, math.Float64bits(v.float())), nil
	}
	if v.kind != kInt && v.kind != kUint {
		return nil, errUnanswerable{fmt.Sprintf("non-integer value for a %s column", colType)}
	}
	raw := uint64(v.i)
	if v.kind == kUint {
		raw = v.u
	}
	fw, ok := colType.(arrow.FixedWidthDataType)
	if !ok || colType.ID() == arrow.BOOL {
		return nil, errUnanswerable{fmt.Sprintf("bloom filter over %s", colType)}
	}
	switch fw.BitWidth() {
	case 8:
		return []byte{byte(raw)}, nil
	case 16:
		return le.AppendUint16(nil, uint16(raw)), nil
	case 32:
		return le.AppendUint32(nil, uint32(raw)), nil
	case 64:
		return le.AppendUint64(nil, raw), nil
	}
	return nil, errUnanswerable{fmt.Sprintf("bloom filter over %s", colType)}
}
