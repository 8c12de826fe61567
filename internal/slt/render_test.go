package slt_test

import (
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/slt"
)

func TestFormatFloat(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{2, "2"},
		{-1.25, "-1.25"},
		{0.1 + 0.2, "0.3"},
		{1.0 / 3, "0.333333333333"},
		{1e20, "100000000000000000000"},
		{1e-6, "0.000001"},
		{2.5e-7, "2.5e-07"},
		{-1e300, "-1e+300"},
		{1e21, "1e+21"},
		{123456789.123456789, "123456789.123"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, slt.FormatFloat(c.in), "%v", c.in)
	}
}

// column builds a one-column batch; the caller releases it.
func column(t *testing.T, mem memory.Allocator, dt arrow.DataType, fill func(array.Builder)) arrow.RecordBatch {
	t.Helper()
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	fill(b)
	arr := b.NewArray()
	defer arr.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{arr}, int64(arr.Len()))
}

func TestRender(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ts := arrow.Timestamp(1_705_314_600_500_000) // 2024-01-15 10:30:00.5 in microseconds
	cases := []struct {
		name   string
		dt     arrow.DataType
		fill   func(array.Builder)
		letter byte
		want   []string
	}{
		{"int32", arrow.PrimitiveTypes.Int32, func(b array.Builder) {
			b.(*array.Int32Builder).AppendValues([]int32{1, -7}, nil)
			b.AppendNull()
		}, 'I', []string{"1", "-7", "NULL"}},
		{"uint8", arrow.PrimitiveTypes.Uint8, func(b array.Builder) {
			b.(*array.Uint8Builder).Append(255)
		}, 'I', []string{"255"}},
		{"float64", arrow.PrimitiveTypes.Float64, func(b array.Builder) {
			b.(*array.Float64Builder).AppendValues([]float64{1.5, 0.1 + 0.2, 3}, nil)
		}, 'R', []string{"1.5", "0.3", "3"}},
		{"float32", arrow.PrimitiveTypes.Float32, func(b array.Builder) {
			b.(*array.Float32Builder).Append(0.25)
		}, 'R', []string{"0.25"}},
		{"decimal scale 2", &arrow.Decimal128Type{Precision: 10, Scale: 2}, func(b array.Builder) {
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(-12345))
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(150))
		}, 'R', []string{"-123.45", "1.5"}},
		{"decimal scale 0 (DuckDB HUGEINT sums)", &arrow.Decimal128Type{Precision: 38, Scale: 0}, func(b array.Builder) {
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(42))
		}, 'I', []string{"42"}},
		{"bool", arrow.FixedWidthTypes.Boolean, func(b array.Builder) {
			b.(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
			b.AppendNull()
		}, 'B', []string{"true", "false", "NULL"}},
		{"string", arrow.BinaryTypes.String, func(b array.Builder) {
			b.(*array.StringBuilder).AppendValues([]string{"abc", "", "a\tb\nc"}, nil)
			b.AppendNull()
		}, 'T', []string{"abc", "(empty)", `a\tb\nc`, "NULL"}},
		{"large string", arrow.BinaryTypes.LargeString, func(b array.Builder) {
			b.(*array.LargeStringBuilder).Append("x")
		}, 'T', []string{"x"}},
		{"binary", arrow.BinaryTypes.Binary, func(b array.Builder) {
			b.(*array.BinaryBuilder).Append([]byte{0xab, 0x01})
		}, 'T', []string{`\xAB01`}},
		{"date32", arrow.FixedWidthTypes.Date32, func(b array.Builder) {
			b.(*array.Date32Builder).Append(arrow.Date32FromTime(mustTime(t, "2024-02-29")))
		}, 'D', []string{"2024-02-29"}},
		{"timestamp", &arrow.TimestampType{Unit: arrow.Microsecond}, func(b array.Builder) {
			b.(*array.TimestampBuilder).Append(ts)
			b.(*array.TimestampBuilder).Append(ts - 500_000)
		}, 'D', []string{"2024-01-15 10:30:00.5", "2024-01-15 10:30:00"}},
		{"timestamp with zone", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}, func(b array.Builder) {
			b.(*array.TimestampBuilder).Append(0)
		}, 'D', []string{"1970-01-01 00:00:00+00"}},
		{"dictionary", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}, func(b array.Builder) {
			db := b.(*array.BinaryDictionaryBuilder)
			require.NoError(t, db.AppendString("red"))
			require.NoError(t, db.AppendString("blue"))
			require.NoError(t, db.AppendString("red"))
		}, 'T', []string{"red", "blue", "red"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := column(t, mem, c.dt, c.fill)
			defer rec.Release()
			require.Equal(t, string(c.letter), slt.Types(rec.Schema()))
			var got []string
			for _, row := range slt.RenderBatches([]arrow.RecordBatch{rec}) {
				require.Len(t, row, 1)
				got = append(got, row[0])
			}
			require.Equal(t, c.want, got)
		})
	}
}

func TestRenderSlicedBooleans(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues([]bool{true, false, true, true, false, false, true, false, true, false}, []bool{true, true, true, true, true, true, false, true, true, true})
	arr := b.NewArray()
	defer arr.Release()
	sliced := array.NewSlice(arr, 5, 9)
	defer sliced.Release()
	var got []string
	for i := range sliced.Len() {
		got = append(got, slt.Render(sliced, i))
	}
	require.Equal(t, []string{"false", "NULL", "false", "true"}, got)
}

func TestResultLines(t *testing.T) {
	rows := [][]string{{"2", "b"}, {"10", "a"}, {"1", "c"}}
	require.Equal(t, []string{"2\tb", "10\ta", "1\tc"}, slt.ResultLines(rows, slt.NoSort))
	require.Equal(t, []string{"1\tc", "10\ta", "2\tb"}, slt.ResultLines(rows, slt.RowSort))
	require.Equal(t, []string{"1", "10", "2", "a", "b", "c"}, slt.ResultLines(rows, slt.ValueSort))
	require.Empty(t, slt.ResultLines(nil, slt.RowSort))
}

func mustTime(t *testing.T, day string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.DateOnly, day)
	require.NoError(t, err)
	return tm
}
