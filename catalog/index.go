package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Indexed is an optional capability of a Table: it has scalar indexes (BTREE, BITMAP,
// LABEL_LIST, ZONEMAP, BLOOMFILTER) that can narrow a scan. The planner asks for it with a
// type assertion, extracts the indexable part of a scan's filter (an IndexExpr) and, when
// the selection is small enough, puts it in the scan's ScanRequest.Index.
//
// A selection is always a superset of the rows that match: the plan keeps applying the full
// filter above the scan, so results never depend on an index being right.
type Indexed interface {
	// Indexes lists the usable scalar indexes of this snapshot (an empty list when there are
	// none, or when they cannot be read: implementations log that and fall back to scans).
	Indexes(ctx context.Context) ([]IndexInfo, error)
	// SelectRows answers e with the indexes: per fragment, the rows a scan must read. It
	// returns (nil, nil) when the indexes cannot narrow the scan at all. Results are
	// memoized per snapshot and expression, so Morsels and Scan do not search again.
	SelectRows(ctx context.Context, e *IndexExpr) (*RowSelection, error)
}

// IndexInfo describes one usable scalar index of a table snapshot.
type IndexInfo struct {
	Name      string   // the index name
	Column    int      // the indexed column, an index into Table.Schema()
	Type      string   // "BTree", "Bitmap", "LabelList", "ZoneMap" or "BloomFilter"
	Fragments []uint64 // the fragment ids the index covers, ascending
}

// String renders the index as EXPLAIN shows it: "<name> (<type>)".
func (i IndexInfo) String() string { return fmt.Sprintf("%s (%s)", i.Name, i.Type) }

// IndexOp is a predicate operator on one indexed column. SQL semantics: a NULL operand
// matches no row.
type IndexOp int

// Index operators.
const (
	IndexEq          IndexOp = iota + 1 // column = Values[0]
	IndexIn                             // column IN (Values...)
	IndexLt                             // column < Values[0]
	IndexLe                             // column <= Values[0]
	IndexGt                             // column > Values[0]
	IndexGe                             // column >= Values[0]
	IndexBetween                        // Values[0] <= column <= Values[1]
	IndexIsNull                         // column IS NULL
	IndexIsNotNull                      // column IS NOT NULL
	IndexArrayHasAny                    // the list column holds any of Values
	IndexArrayHasAll                    // the list column holds all of Values
)

var indexOpNames = map[IndexOp]string{IndexEq: "=", IndexIn: "IN", IndexLt: "<", IndexLe: "<=",
	IndexGt: ">", IndexGe: ">=", IndexBetween: "BETWEEN", IndexIsNull: "IS NULL",
	IndexIsNotNull: "IS NOT NULL", IndexArrayHasAny: "array_has_any", IndexArrayHasAll: "array_has_all"}

// String is the operator's SQL spelling.
func (o IndexOp) String() string {
	if s, ok := indexOpNames[o]; ok {
		return s
	}
	return fmt.Sprintf("IndexOp(%d)", int(o))
}

// Valid reports whether o is one of the defined operators.
func (o IndexOp) Valid() bool { _, ok := indexOpNames[o]; return ok }

// IndexExprKind says what an IndexExpr node is.
type IndexExprKind int

// Index expression kinds.
const (
	IndexPred IndexExprKind = iota + 1 // Column Op Values
	IndexAnd                           // all of Args
	IndexOr                            // any of Args
	IndexNot                           // not Args[0]
)

// IndexExpr is a predicate tree over indexed columns: comparisons combined with AND, OR and
// NOT. Columns are indices into Table.Schema() (not into a scan's projection).
type IndexExpr struct {
	Kind   IndexExprKind
	Column int             // IndexPred: the column
	Op     IndexOp         // IndexPred: the operator
	Values []scalar.Scalar // IndexPred: the operands, of (or comparable with) the column's type
	Args   []*IndexExpr    // IndexAnd, IndexOr (two or more), IndexNot (one)
}

// String renders e canonically (it is the memoization key of selections), with columns as
// #i: "and(#0 = 5, not(#2 IS NULL))".
func (e *IndexExpr) String() string {
	if e == nil {
		return "<nil>"
	}
	switch e.Kind {
	case IndexPred:
		var b strings.Builder
		fmt.Fprintf(&b, "#%d %s", e.Column, e.Op)
		for i, v := range e.Values {
			sep := ", "
			if i == 0 {
				sep = " "
			}
			b.WriteString(sep)
			if v == nil || !v.IsValid() {
				b.WriteString("NULL")
			} else {
				fmt.Fprintf(&b, "%s:%q", v.DataType(), v.String())
			}
		}
		return b.String()
	case IndexAnd, IndexOr, IndexNot:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = a.String()
		}
		name := map[IndexExprKind]string{IndexAnd: "and", IndexOr: "or", IndexNot: "not"}[e.Kind]
		return name + "(" + strings.Join(args, ", ") + ")"
	}
	return fmt.Sprintf("IndexExpr(kind %d)", int(e.Kind))
}

// Validate checks the tree's shape (operator arity is the index's business).
func (e *IndexExpr) Validate() error {
	if e == nil {
		return errors.New("index expression: nil node")
	}
	switch e.Kind {
	case IndexPred:
		if !e.Op.Valid() || e.Column < 0 {
			return fmt.Errorf("index expression %s: bad operator or column", e)
		}
		return nil
	case IndexAnd, IndexOr:
		if len(e.Args) < 2 {
			return fmt.Errorf("index expression %s: want two or more arguments", e)
		}
	case IndexNot:
		if len(e.Args) != 1 {
			return fmt.Errorf("index expression %s: want one argument", e)
		}
	default:
		return fmt.Errorf("index expression: unknown kind %d", int(e.Kind))
	}
	for _, a := range e.Args {
		if err := a.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// IndexFilter is the index part of a scan (ScanRequest.Index): the scan reads only the rows
// Expr selects. Explain says what the planner decided, for EXPLAIN; it is informational.
type IndexFilter struct {
	Expr    *IndexExpr
	Explain string
}

// RowRange is the physical rows [Start, End) of one fragment.
type RowRange struct {
	Start, End int64
}

// FragmentSelection is the rows of one fragment a scan must read: all of them (All), none
// (not All and no Ranges), or the sorted, disjoint, non-adjacent Ranges.
type FragmentSelection struct {
	All    bool
	Ranges []RowRange
}

// None reports whether no row of the fragment is selected.
func (s FragmentSelection) None() bool { return !s.All && len(s.Ranges) == 0 }

// RangeRows is the number of rows in Ranges (0 for All: the fragment's size is not known
// here).
func (s FragmentSelection) RangeRows() int64 {
	var n int64
	for _, r := range s.Ranges {
		n += r.End - r.Start
	}
	return n
}

// RowSelection is what the indexes of a table answer for an IndexExpr.
type RowSelection struct {
	// Fragments holds one entry per fragment of the snapshot, keyed by Morsel.Fragment.
	Fragments map[uint64]FragmentSelection
	// Used are the indexes that answered part of the expression.
	Used []IndexInfo
	// SelectedRows is the number of physical rows the scan reads (deleted ones included);
	// TotalRows the number of physical rows of the table.
	SelectedRows, TotalRows int64
	// Ranges is the number of row ranges read from fragments that are not read whole.
	Ranges int
	// SelectedFragments is the number of fragments with rows to read, of TotalFragments.
	SelectedFragments, TotalFragments int
	// TableBytes is the size of the table's data files (0 when the manifest does not say).
	TableBytes int64
}
