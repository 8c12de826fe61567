package itest

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Result is a query result reduced to comparable text: column names and rows of values
// rendered canonically, so that type widening between engines (DuckDB's HUGEINT sums, for
// one) does not hide or fake a difference in values.
type Result struct {
	Names []string
	Rows  [][]string
}

// ToResult renders batches with schema sc.
func ToResult(sc *arrow.Schema, batches []arrow.RecordBatch) Result {
	res := Result{}
	for _, f := range sc.Fields() {
		res.Names = append(res.Names, f.Name)
	}
	for _, b := range batches {
		res.appendBatch(b)
	}
	return res
}

func (res *Result) appendBatch(b arrow.RecordBatch) {
	for r := range int(b.NumRows()) {
		row := make([]string, b.NumCols())
		for c, col := range b.Columns() {
			row[c] = Canonical(col, r)
		}
		res.Rows = append(res.Rows, row)
	}
}

// DecodeIPC renders an Arrow IPC stream.
func DecodeIPC(mem memory.Allocator, stream []byte) (Result, error) {
	rdr, err := ipc.NewReader(bytes.NewReader(stream), ipc.WithAllocator(mem))
	if err != nil {
		return Result{}, fmt.Errorf("read result stream: %w", err)
	}
	defer rdr.Release()
	res := Result{}
	for _, f := range rdr.Schema().Fields() {
		res.Names = append(res.Names, f.Name)
	}
	for rdr.Next() {
		res.appendBatch(rdr.RecordBatch())
	}
	return res, rdr.Err()
}

// Canonical renders one value: integers and integral decimals as integers, floats with 12
// significant digits, everything else through Arrow's ValueStr.
func Canonical(col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "NULL"
	}
	switch a := col.(type) {
	case *array.Float64:
		return Float(a.Value(r))
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(r)), 'g', 7, 32)
	case *array.Decimal128:
		return decimalString(a.Value(r), a.DataType().(*arrow.Decimal128Type).Scale)
	default:
		return col.ValueStr(r)
	}
}

// Float renders a float64 the way Canonical does.
func Float(f float64) string { return strconv.FormatFloat(f, 'g', 12, 64) }

func decimalString(v decimal128.Num, scale int32) string {
	if scale == 0 {
		return v.BigInt().String()
	}
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(v.BigInt()),
		new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))).Float64()
	return Float(f)
}

// Sorted returns res with its rows in a canonical order, for queries without a total ORDER BY.
func (res Result) Sorted() Result {
	rows := append([][]string(nil), res.Rows...)
	sort.Slice(rows, func(i, j int) bool {
		return strings.Join(rows[i], "\x00") < strings.Join(rows[j], "\x00")
	})
	return Result{Names: res.Names, Rows: rows}
}

func (res Result) String() string {
	var sb strings.Builder
	fmt.Fprintln(&sb, strings.Join(res.Names, " | "))
	for _, r := range res.Rows {
		fmt.Fprintln(&sb, strings.Join(r, " | "))
	}
	return sb.String()
}
