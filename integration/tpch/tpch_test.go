package tpch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/testutil"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// knownFailing lists the queries flightd does not answer like DuckDB yet, with the reason.
// The test fails when a listed query starts passing, so that the list only shrinks.
var knownFailing = map[string]string{}

// TestTPCH runs every query through flightd and compares its rows with DuckDB's.
func TestTPCH(t *testing.T) {
	sf := os.Getenv("FLIGHTD_TPCH_SF")
	if sf == "" {
		sf = "0.01"
	}
	dir := tpchData(t, sf)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(filepath.Join(dir, "lance")))
	require.NoError(t, err)
	srv, err := flightsrv.New(flightsrv.Config{Catalog: lancecat.New(store), Mem: mem})
	require.NoError(t, err)
	for i := 1; i <= 22; i++ {
		name := fmt.Sprintf("q%02d", i)
		t.Run(name, func(t *testing.T) {
			want := duckResult(t, filepath.Join(dir, "duckdb", name+".arrow"))
			got, err := runQuery(ctx, srv, readQuery(t, name))
			problem := compare(got, err, want)
			if reason, known := knownFailing[name]; known {
				require.NotEmpty(t, problem, "%s is listed as known failing (%s) but now passes: remove it from knownFailing", name, reason)
				t.Logf("known failing: %s", problem)
				return
			}
			require.Empty(t, problem)
		})
	}
}

// compare returns "" when got equals want, else a description of the difference.
func compare(got result, err error, want result) string {
	if err != nil {
		return "error: " + err.Error()
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("flightd returned %d rows, DuckDB %d\nflightd:\n%s\nDuckDB:\n%s", len(got.Rows), len(want.Rows), got, want)
	}
	if !equalStrings(got.Names, want.Names) {
		return fmt.Sprintf("columns %v, DuckDB %v", got.Names, want.Names)
	}
	for i := range want.Rows {
		if !equalStrings(got.Rows[i], want.Rows[i]) {
			return fmt.Sprintf("row %d: flightd %v, DuckDB %v\nflightd:\n%s\nDuckDB:\n%s", i, got.Rows[i], want.Rows[i], got, want)
		}
	}
	return ""
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func readQuery(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "bench", "queries", name+".sql"))
	require.NoError(t, err)
	return strings.TrimRight(strings.TrimSpace(string(src)), ";")
}

// runQuery runs sql in-process with a one-minute limit and renders its rows.
func runQuery(ctx context.Context, srv *flightsrv.Server, sql string) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	op, err := srv.Execute(ctx, sql)
	if err != nil {
		return result{}, err
	}
	defer op.Close()
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return result{}, err
		}
		if b == nil {
			break
		}
		batches = append(batches, b)
	}
	return toResult(op.Schema(), batches), nil
}

// duckResult reads DuckDB's answer written by testdata/tpch.py.
func duckResult(t *testing.T, path string) result {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	rdr, err := ipc.NewReader(bytes.NewReader(src), ipc.WithAllocator(memory.NewGoAllocator()))
	require.NoError(t, err)
	defer rdr.Release()
	var batches []arrow.RecordBatch
	for rdr.Next() {
		b := rdr.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	require.NoError(t, rdr.Err())
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	return toResult(rdr.Schema(), batches)
}

// tpchData returns a directory with the Lance tables and DuckDB's answers at scale factor sf,
// generated once and kept under $FLIGHTD_TPCH_DATA (default: the OS temp dir) keyed by the
// scale factor and a hash of the generator and the queries.
func tpchData(t *testing.T, sf string) string {
	t.Helper()
	repo := testutil.RepoRoot(t)
	qdir := filepath.Join(repo, "bench", "queries")
	script := filepath.Join(repo, "integration", "tpch", "testdata", "tpch.py")
	h := sha256.New()
	for _, p := range append([]string{script}, queryFiles(t, qdir)...) {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		h.Write(src)
	}
	root := os.Getenv("FLIGHTD_TPCH_DATA")
	if root == "" {
		root = os.TempDir()
	}
	dir := filepath.Join(root, "flightd-tpch-sf"+sf+"-"+hex.EncodeToString(h.Sum(nil)[:4]))
	if _, err := os.Stat(filepath.Join(dir, ".done")); err == nil {
		return dir
	}
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	cmd := exec.Command(testutil.Python(t), script, sf, qdir, dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "generate TPC-H SF %s: %s", sf, out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".done"), nil, 0o644))
	return dir
}

func queryFiles(t *testing.T, qdir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(qdir, "q*.sql"))
	require.NoError(t, err)
	require.Len(t, files, 22)
	sort.Strings(files)
	return files
}

// result is a query result as text: column names and rows of canonically rendered values,
// so that type differences between engines (DuckDB's HUGEINT sums, double vs decimal
// averages) do not hide or fake a difference in values.
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
		for r := range int(b.NumRows()) {
			row := make([]string, b.NumCols())
			for c, col := range b.Columns() {
				row[c] = canonical(col, r)
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res
}

// canonical renders one value: integers and decimals exactly, floats with 10 significant
// digits (engines sum doubles in different orders), everything else through Arrow's
// ValueStr.
func canonical(col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "NULL"
	}
	switch a := col.(type) {
	case *array.Float64:
		return number(a.Value(r))
	case *array.Float32:
		return number(float64(a.Value(r)))
	case *array.Decimal128:
		return decimalString(a.Value(r), a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Int64:
		return strconv.FormatInt(a.Value(r), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(r)), 10)
	default:
		return col.ValueStr(r)
	}
}

func number(f float64) string {
	return strconv.FormatFloat(f, 'g', 10, 64)
}

// decimalString renders a decimal exactly, without trailing fractional zeros, so that
// sums of different declared scales compare equal when their values are.
func decimalString(v decimal128.Num, scale int32) string {
	r := new(big.Rat).SetFrac(v.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	out := r.FloatString(int(scale))
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

func (res result) String() string {
	var sb strings.Builder
	fmt.Fprintln(&sb, strings.Join(res.Names, " | "))
	for i, r := range res.Rows {
		if i == 20 {
			fmt.Fprintf(&sb, "... %d more rows\n", len(res.Rows)-20)
			break
		}
		fmt.Fprintln(&sb, strings.Join(r, " | "))
	}
	return sb.String()
}
