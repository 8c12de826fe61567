package jdbc

import (
	"bytes"
	"encoding/json"
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
	"golang.org/x/sync/errgroup"
)

// The helpers here mirror integration/peers_test.go (a test package cannot import another
// package's test helpers): run the pinned Python peers and reduce results to comparable text.

// runPython runs a script from integration/testdata with args and returns its stdout.
func runPython(t testing.TB, script string, args ...string) []byte {
	t.Helper()
	out, err := pythonOutput(testutil.Python(t), script, args...)
	require.NoError(t, err)
	return out
}

// pythonOutput runs a script from integration/testdata; it is safe to call from any goroutine.
func pythonOutput(py, script string, args ...string) ([]byte, error) {
	cmd := exec.Command(py, append([]string{filepath.Join("..", "testdata", script)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w: %s", script, args, err, stderr.String())
	}
	return out, nil
}

// writeTables writes the skeleton tables (t: a int64, b utf8, c float64; 1000 rows in two
// fragments) with pylance into a fresh root.
func writeTables(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	runPython(t, "make_tables.py", root)
	return root
}

// result is a query result reduced to comparable text: column names and canonical values.
type result struct {
	Names []string
	Rows  [][]string
}

// oracles runs every query in DuckDB in the background (each oracle.py run loads pylance and
// DuckDB, which takes seconds) and returns a function that waits for the results.
func oracles(t *testing.T, root string, sqls []string) func() map[string]result {
	t.Helper()
	py := testutil.Python(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	results := make([]result, len(sqls))
	var g errgroup.Group
	g.SetLimit(4)
	for i, sql := range sqls {
		g.Go(func() error {
			out, err := pythonOutput(py, "oracle.py", root, sql)
			if err != nil {
				return err
			}
			results[i], err = decodeResult(mem, out)
			if err != nil {
				return fmt.Errorf("oracle result of %q: %w", sql, err)
			}
			return nil
		})
	}
	t.Cleanup(func() { _ = g.Wait() }) // no Python left running if the test stops early
	return func() map[string]result {
		t.Helper()
		require.NoError(t, g.Wait())
		mem.AssertSize(t, 0)
		m := map[string]result{}
		for i, sql := range sqls {
			m[sql] = results[i]
		}
		return m
	}
}

// decodeResult reads an Arrow IPC stream into canonical text.
func decodeResult(mem memory.Allocator, stream []byte) (result, error) {
	rdr, err := ipc.NewReader(bytes.NewReader(stream), ipc.WithAllocator(mem))
	if err != nil {
		return result{}, err
	}
	defer rdr.Release()
	res := result{}
	for _, f := range rdr.Schema().Fields() {
		res.Names = append(res.Names, f.Name)
	}
	for rdr.Next() {
		b := rdr.RecordBatch()
		for r := 0; r < int(b.NumRows()); r++ {
			row := make([]string, b.NumCols())
			for c, col := range b.Columns() {
				row[c] = canonicalArrow(col, r)
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res, rdr.Err()
}

// canonicalArrow renders one Arrow value: integers and integral decimals as integers, floats
// with 12 significant digits, everything else through ValueStr.
func canonicalArrow(col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "NULL"
	}
	switch a := col.(type) {
	case *array.Float64:
		return canonicalFloat(a.Value(r))
	case *array.Float32:
		return canonicalFloat(float64(a.Value(r)))
	case *array.Decimal128:
		return decimalString(a.Value(r), a.DataType().(*arrow.Decimal128Type).Scale)
	default:
		return col.ValueStr(r)
	}
}

func canonicalFloat(f float64) string { return strconv.FormatFloat(f, 'g', 12, 64) }

func decimalString(v decimal128.Num, scale int32) string {
	if scale == 0 {
		return v.BigInt().String()
	}
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(v.BigInt()), new(big.Float).SetFloat64(pow10(scale))).Float64()
	return canonicalFloat(f)
}

func pow10(n int32) float64 {
	p := 1.0
	for range n {
		p *= 10
	}
	return p
}

// canonicalJSON renders one value JdbcSmoke printed (decoded with UseNumber) the same way:
// integral numbers as integers, other numbers with 12 significant digits.
func canonicalJSON(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		if b, ok := new(big.Int).SetString(x.String(), 10); ok {
			return b.String(), nil
		}
		f, err := x.Float64()
		if err != nil {
			return "", fmt.Errorf("number %q: %w", x, err)
		}
		return canonicalFloat(f), nil
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		return x, nil
	default:
		return "", fmt.Errorf("unexpected JSON value %T %v", v, v)
	}
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
