package integration

import (
	"bytes"
	"fmt"
	"math/big"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/stretchr/testify/require"
)

// runPython runs a script from testdata with args and returns its stdout.
func runPython(t testing.TB, script string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testutil.Python(t), append([]string{filepath.Join("testdata", script)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s %v failed: %s", script, args, stderr.String())
	return out
}

// oracle runs sql in DuckDB over pylance's reading of the tables under root.
func oracle(t testing.TB, root, sql string) result {
	t.Helper()
	out := runPython(t, "oracle.py", root, sql)
	mem := memory.NewGoAllocator()
	rdr, err := ipc.NewReader(bytes.NewReader(out), ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer rdr.Release()
	var batches []arrow.RecordBatch
	for rdr.Next() {
		b := rdr.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	require.NoError(t, rdr.Err())
	res := toResult(rdr.Schema(), batches)
	for _, b := range batches {
		b.Release()
	}
	return res
}

// result is a query result reduced to comparable text: column names and rows of values
// rendered canonically, so that type widening between engines (DuckDB's HUGEINT sums, for
// one) does not hide or fake a difference in values.
type result struct {
	Names []string
	Rows  [][]string
}

func toResult(sc *arrow.Schema, batches []arrow.RecordBatch) result {
	res := result{}
	for _, f := range sc.Fields() {
		res.Names = append(res.Names, f.Name)
	}
	for _, b := range batches {
		for r := 0; r < int(b.NumRows()); r++ {
			row := make([]string, b.NumCols())
			for c, col := range b.Columns() {
				row[c] = canonical(col, r)
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res
}

// canonical renders one value: integers and integral decimals as integers, floats with 12
// significant digits, everything else through Arrow's ValueStr.
func canonical(col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "NULL"
	}
	switch a := col.(type) {
	case *array.Float64:
		return strconv.FormatFloat(a.Value(r), 'g', 12, 64)
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(r)), 'g', 7, 32)
	case *array.Decimal128:
		return decimalString(a.Value(r), a.DataType().(*arrow.Decimal128Type).Scale)
	default:
		return col.ValueStr(r)
	}
}

func decimalString(v decimal128.Num, scale int32) string {
	if scale == 0 {
		return v.BigInt().String()
	}
	f, _ := new(big.Float).SetInt(v.BigInt()).Float64()
	return strconv.FormatFloat(f/pow10(scale), 'g', 12, 64)
}

func pow10(n int32) float64 {
	p := 1.0
	for range n {
		p *= 10
	}
	return p
}

// sorted returns res with its rows in a canonical order, for queries without a total ORDER BY.
func (res result) sorted() result {
	rows := append([][]string(nil), res.Rows...)
	sort.Slice(rows, func(i, j int) bool {
		return strings.Join(rows[i], "\x00") < strings.Join(rows[j], "\x00")
	})
	return result{Names: res.Names, Rows: rows}
}

func (res result) String() string {
	var sb strings.Builder
	fmt.Fprintln(&sb, strings.Join(res.Names, " | "))
	for _, r := range res.Rows {
		fmt.Fprintln(&sb, strings.Join(r, " | "))
	}
	return sb.String()
}

// writeTables writes the skeleton tables with pylance into a fresh root.
func writeTables(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	runPython(t, "make_tables.py", root)
	return root
}
