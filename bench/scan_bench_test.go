package bench

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// scanColumns is the projection of the projected scan: keys, decimals, a date and strings.
var scanColumns = []string{"l_orderkey", "l_partkey", "l_quantity", "l_extendedprice",
	"l_shipdate", "l_returnflag", "l_comment"}

// BenchmarkFlightSQLScan: a full scan of TPC-H lineitem streamed from flightd over Flight
// SQL to a pyarrow.flight client (every endpoint, fetched in parallel) vs pylance's
// dataset.to_table() of the same columns in-process, interleaved. Sub-benchmarks: a
// projection of 7 of the 16 columns, and all columns.
func BenchmarkFlightSQLScan(b *testing.B) {
	root := filepath.Join(tpchData(b), "lance")
	addr := startFlightd(b, root, runtime.GOMAXPROCS(0))
	p := startPeer(b)
	uri := filepath.Join(root, "lineitem.lance")
	cases := []struct {
		name string
		cols []string
	}{
		{"projected", scanColumns},
		{"all", nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			sql := "SELECT * FROM lineitem"
			if c.cols != nil {
				sql = "SELECT " + strings.Join(c.cols, ", ") + " FROM lineitem"
			}
			var ps pairs
			for b.Loop() {
				ours := p.mustCall(b, map[string]any{"op": "flightsql", "addr": addr, "sql": sql})
				theirs := p.mustCall(b, map[string]any{"op": "lance_to_table", "uri": uri, "columns": c.cols})
				if ours.Rows != theirs.Rows || ours.Columns != theirs.Columns {
					b.Fatalf("flightd returned %d rows × %d columns, pylance %d × %d",
						ours.Rows, ours.Columns, theirs.Rows, theirs.Columns)
				}
				ps.add(seconds(ours.Seconds), seconds(theirs.Seconds))
			}
			ps.report(b, "pylance")
		})
	}
}
