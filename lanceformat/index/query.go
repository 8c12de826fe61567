package index

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Op is a predicate operator an index may answer.
type Op int

// Operators. Comparisons follow SQL: a NULL operand matches no row.
const (
	OpEq          Op = iota + 1 // column = Values[0]
	OpIn                        // column IN (Values...)
	OpLt                        // column < Values[0]
	OpLe                        // column <= Values[0]
	OpGt                        // column > Values[0]
	OpGe                        // column >= Values[0]
	OpBetween                   // Values[0] <= column <= Values[1]
	OpIsNull                    // column IS NULL
	OpIsNotNull                 // column IS NOT NULL
	OpArrayHasAny               // list column contains any of Values (LABEL_LIST)
	OpArrayHasAll               // list column contains all of Values (LABEL_LIST)
)

var opNames = map[Op]string{OpEq: "=", OpIn: "IN", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">=",
	OpBetween: "BETWEEN", OpIsNull: "IS NULL", OpIsNotNull: "IS NOT NULL",
	OpArrayHasAny: "array_has_any", OpArrayHasAll: "array_has_all"}

// String is the operator's SQL spelling.
func (o Op) String() string {
	if s, ok := opNames[o]; ok {
		return s
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Query is one predicate on the indexed column. Values are Arrow scalars of (or comparable
// with) the column's type; temporal values must use the column's unit.
type Query struct {
	Op     Op
	Values []scalar.Scalar
}

// String renders the query for errors and logs.
func (q Query) String() string { return fmt.Sprintf("%s %v", q.Op, q.Values) }

// interval is a range of non-null values; unbounded ends have has* false.
type interval struct {
	lo, hi       value
	hasLo, hasHi bool
	loInc, hiInc bool
}

// contains reports whether non-null v is in the interval.
func (iv interval) contains(v value) bool {
	if iv.hasLo {
		if c := compareValues(v, iv.lo); c < 0 || (c == 0 && !iv.loInc) {
			return false
		}
	}
	if iv.hasHi {
		if c := compareValues(v, iv.hi); c > 0 || (c == 0 && !iv.hiInc) {
			return false
		}
	}
	return true
}

// overlaps reports whether the interval may hold a value in [min, max]; a null bound is
// treated as unbounded.
func (iv interval) overlaps(lo, hi value) bool {
	if iv.hasLo && !hi.isNull() {
		if c := compareValues(hi, iv.lo); c < 0 || (c == 0 && !iv.loInc) {
			return false
		}
	}
	if iv.hasHi && !lo.isNull() {
		if c := compareValues(lo, iv.hi); c > 0 || (c == 0 && !iv.hiInc) {
			return false
		}
	}
	return true
}

// plan is a compiled value query: rows match if (null and nulls) or (non-null and in any
// interval).
type plan struct {
	nulls bool
	ivs   []interval
}

// match reports whether a (possibly null) value matches.
func (p plan) match(v value) bool {
	if v.isNull() {
		return p.nulls
	}
	for _, iv := range p.ivs {
		if iv.contains(v) {
			return true
		}
	}
	return false
}

// empty reports whether no value can match.
func (p plan) empty() bool { return !p.nulls && len(p.ivs) == 0 }

// errUnanswerable marks queries an index cannot answer (a NotAnswerable result, not a failure).
type errUnanswerable struct{ reason string }

func (e errUnanswerable) Error() string { return e.reason }

// compile turns a scalar query (not the array ops) into a plan.
func compile(q Query) (plan, error) {
	vals := make([]value, len(q.Values))
	for i, s := range q.Values {
		v, ok := scalarValue(s)
		if !ok {
			return plan{}, errUnanswerable{fmt.Sprintf("unsupported value type %s", s.DataType())}
		}
		vals[i] = v
	}
	need := map[Op]int{OpEq: 1, OpLt: 1, OpLe: 1, OpGt: 1, OpGe: 1, OpBetween: 2, OpIsNull: 0, OpIsNotNull: 0}
	if n, ok := need[q.Op]; ok && len(vals) != n {
		return plan{}, fmt.Errorf("query %s: want %d values, got %d", q.Op, n, len(vals))
	}
	anyNull := false
	for _, v := range vals {
		anyNull = anyNull || v.isNull()
	}
	switch q.Op {
	case OpIsNull:
		return plan{nulls: true}, nil
	case OpIsNotNull:
		return plan{ivs: []interval{{}}}, nil
	case OpEq, OpIn:
		var p plan
		for _, v := range vals {
			if !v.isNull() {
				p.ivs = append(p.ivs, interval{lo: v, hi: v, hasLo: true, hasHi: true, loInc: true, hiInc: true})
			}
		}
		return p, nil
	}
	if anyNull {
		return plan{}, nil
	}
	switch q.Op {
	case OpLt, OpLe:
		return plan{ivs: []interval{{hi: vals[0], hasHi: true, hiInc: q.Op == OpLe}}}, nil
	case OpGt, OpGe:
		return plan{ivs: []interval{{lo: vals[0], hasLo: true, loInc: q.Op == OpGe}}}, nil
	case OpBetween:
		if compareValues(vals[0], vals[1]) > 0 {
			return plan{}, nil
		}
		return plan{ivs: []interval{{lo: vals[0], hi: vals[1], hasLo: true, hasHi: true, loInc: true, hiInc: true}}}, nil
	}
	return plan{}, errUnanswerable{fmt.Sprintf("operator %s", q.Op)}
}
