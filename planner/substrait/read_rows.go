package substrait

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/plan"
)

// Hidden row columns in reads. A read of a table's hidden row columns (plan.Scan's RowID and
// RowAddr) names them at the end of its base schema, after the table's columns:
// catalog.RowIDColumn and then catalog.RowAddrColumn, each only when read, typed i64 (the
// same bits as Lance's uint64; the consumer takes the types from the catalog). The
// projection mask and the filter then address them by their base-schema positions. The
// consumer accepts them from any producer in that order.

// scanBase is the base schema of a scan's read, the table's columns then its row columns,
// and the base-schema position of each of the scan's output columns.
func scanBase(s *plan.Scan) (*arrow.Schema, []int) {
	tbl := s.Table.Schema()
	rows := s.Request().RowFields()
	base := tbl
	if len(rows) > 0 {
		md := tbl.Metadata()
		base = arrow.NewSchema(append(tbl.Fields(), rows...), &md)
	}
	pos := make([]int, 0, len(s.Columns)+len(rows))
	pos = append(pos, s.Columns...)
	for i := range rows {
		pos = append(pos, tbl.NumFields()+i)
	}
	return base, pos
}

// baseRowColumns reads the row columns a base schema names after the table's columns, and
// returns the base schema as Arrow (the table's fields, then the row columns'). ok is false
// when the names are not the table's (as namedStruct lists them) followed by such row columns.
func baseRowColumns(names []string, t catalog.Table) (rowID, rowAddr bool, base *arrow.Schema, ok bool) {
	tbl := t.Schema()
	ns, err := namedStruct(tbl)
	if err != nil {
		return false, false, nil, false
	}
	want := ns.GetNames()
	if len(names) < len(want) || !slices.Equal(names[:len(want)], want) {
		return false, false, nil, false
	}
	rest := names[len(want):]
	if len(rest) > 0 && rest[0] == catalog.RowIDColumn && !hasColumn(tbl, catalog.RowIDColumn) {
		rowID, rest = true, rest[1:]
	}
	if len(rest) > 0 && rest[0] == catalog.RowAddrColumn && !hasColumn(tbl, catalog.RowAddrColumn) {
		rowAddr, rest = true, rest[1:]
	}
	if len(rest) > 0 {
		return false, false, nil, false
	}
	base = tbl
	if rows := (catalog.ScanRequest{RowID: rowID, RowAddr: rowAddr}).RowFields(); len(rows) > 0 {
		md := tbl.Metadata()
		base = arrow.NewSchema(append(tbl.Fields(), rows...), &md)
	}
	return rowID, rowAddr, base, true
}

// hasColumn reports whether s has a column named name, case-insensitively (as the binder
// resolves names: a real column shadows the hidden one).
func hasColumn(s *arrow.Schema, name string) bool {
	for _, f := range s.Fields() {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// readScan builds the scan of a read: cols are the base-schema positions the read outputs
// (its projection), filter is over the base schema (nil: none), and base positions from
// ntable on are the row columns rowID and rowAddr, in that order. Columns the filter needs
// beyond the projection are read too, and a projection above the scan drops them and puts
// the outputs in the read's order when the scan's (row columns last) differs.
func readScan(t catalog.Table, cols []int, filter plan.Expr, rowID, rowAddr bool) scanNode {
	ntable := t.Schema().NumFields()
	all := append([]int(nil), cols...)
	if filter != nil {
		plan.Columns(filter, func(c *plan.ColumnRef) {
			if !slices.Contains(all, c.Index) {
				all = append(all, c.Index)
			}
		})
	}
	var real []int
	useID, useAddr := false, false
	for _, b := range all {
		switch {
		case b < ntable:
			real = append(real, b)
		case rowID && b == ntable:
			useID = true
		default:
			useAddr = true
		}
	}
	// pos is the scan output position of base position b: real columns, then the row id,
	// then the row address.
	pos := func(b int) int {
		switch {
		case b < ntable:
			return slices.Index(real, b)
		case rowID && b == ntable: // the row id
			return len(real)
		case useID: // the row address after the row id
			return len(real) + 1
		}
		return len(real)
	}
	s := plan.NewRowScan(t, real, useID, useAddr)
	if filter != nil {
		s.Filter = plan.RewriteColumns(filter, func(c *plan.ColumnRef) plan.Expr {
			out := *c
			out.Index = pos(c.Index)
			return &out
		})
	}
	identity := len(all) == len(cols)
	for i, b := range cols {
		identity = identity && pos(b) == i
	}
	if identity {
		return scanNode{scan: s, node: s}
	}
	fields := s.Schema().Fields()
	exprs := make([]plan.Expr, len(cols))
	names := make([]string, len(cols))
	for i, b := range cols {
		f := fields[pos(b)]
		exprs[i] = &plan.ColumnRef{Index: pos(b), Name: f.Name, DataType: f.Type, Null: f.Nullable}
		names[i] = f.Name
	}
	return scanNode{scan: s, node: plan.NewProject(s, exprs, names)}
}
