package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestRowColumnsMatchPylance writes tables with pylance (several fragments; with deletions,
// an update, compaction; storage versions 2.0, 2.1 and 2.2; with and without stable row
// ids) and checks that flightd's hidden _rowid and _rowaddr columns, read over Flight SQL,
// equal pylance's to_table(with_row_id=True, with_row_address=True), also under filters on
// them, in aggregates and in joins, and that * leaves them out.
func TestRowColumnsMatchPylance(t *testing.T) {
	root := t.TempDir()
	var py struct {
		Tables  map[string][][]string `json:"tables"`
		BigSums []string              `json:"big_sums"`
	}
	require.NoError(t, json.Unmarshal(itest.RunScript(t, "rowid_tables.py", root), &py))
	require.Len(t, py.Tables, 8)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	cl := itest.Dial(t, srv.Addr)
	ctx := context.Background()
	query := func(t *testing.T, sql string) itest.Result {
		t.Helper()
		got, err := itest.Query(ctx, t, cl, sql)
		require.NoError(t, err, sql)
		return got
	}
	t.Run("big", func(t *testing.T) {
		got := query(t, "SELECT count(*), sum(_rowid), sum(_rowaddr), sum((_rowaddr % 65537) * x) FROM big")
		require.Equal(t, [][]string{py.BigSums}, got.Rows)
	})
	for name, rows := range py.Tables {
		t.Run(name, func(t *testing.T) {
			require.NotEmpty(t, rows)
			got := query(t, "SELECT _rowid, _rowaddr, * FROM "+name)
			require.Equal(t, []string{"_rowid", "_rowaddr", "x", "s"}, got.Names)
			require.Equal(t, rows, got.Rows)

			got = query(t, "SELECT * FROM "+name)
			require.Equal(t, []string{"x", "s"}, got.Names, "* leaves the hidden columns out")

			// A filter on _rowaddr (pushed into the scan) and a qualified _rowid.
			mid := rows[len(rows)/2][1]
			got = query(t, fmt.Sprintf("SELECT %s._rowid, x FROM %s WHERE _rowaddr >= %s", name, name, mid))
			var wantFiltered [][]string
			for _, r := range rows[len(rows)/2:] {
				wantFiltered = append(wantFiltered, []string{r[0], r[2]})
			}
			require.Equal(t, wantFiltered, got.Rows)

			// The row id of one row found by its value, and an aggregate over row ids.
			got = query(t, fmt.Sprintf("SELECT _rowid, _rowaddr FROM %s t WHERE x = %s", name, rows[0][2]))
			require.Equal(t, [][]string{rows[0][:2]}, got.Rows)
			got = query(t, "SELECT count(*), max(_rowid), min(_rowaddr) FROM "+name)
			require.Equal(t, [][]string{{strconv.Itoa(len(rows)), maxCol(rows, 0), minCol(rows, 1)}}, got.Rows)

			// A self-join on _rowid pairs each row with itself.
			got = query(t, fmt.Sprintf("SELECT count(*) FROM %s a JOIN %s b ON a._rowid = b._rowid WHERE a.x = b.x", name, name))
			require.Equal(t, [][]string{{strconv.Itoa(len(rows))}}, got.Rows)
		})
	}
}

func maxCol(rows [][]string, c int) string {
	var m uint64
	for _, r := range rows {
		v, _ := strconv.ParseUint(r[c], 10, 64)
		m = max(m, v)
	}
	return strconv.FormatUint(m, 10)
}

func minCol(rows [][]string, c int) string {
	m := ^uint64(0)
	for _, r := range rows {
		v, _ := strconv.ParseUint(r[c], 10, 64)
		m = min(m, v)
	}
	return strconv.FormatUint(m, 10)
}
