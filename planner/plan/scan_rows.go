package plan

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
)

// NewRowScan builds a scan of the given columns of t followed by the hidden row columns
// asked for (_rowid when rowID, then _rowaddr when rowAddr), with no filter and no limit.
func NewRowScan(t catalog.Table, columns []int, rowID, rowAddr bool) *Scan {
	s := &Scan{Table: t, Columns: columns, RowID: rowID, RowAddr: rowAddr, Limit: -1}
	s.schema = projectSchema(t.Schema(), columns)
	if extra := s.Request().RowFields(); len(extra) > 0 {
		s.schema = arrow.NewSchema(append(s.schema.Fields(), extra...), nil)
	}
	return s
}

// Request is the catalog.ScanRequest for the scan's columns and row columns, with no limit
// (and no index filter: the executor adds what it needs).
func (s *Scan) Request() catalog.ScanRequest {
	return catalog.ScanRequest{Columns: s.Columns, Limit: -1, RowID: s.RowID, RowAddr: s.RowAddr}
}
