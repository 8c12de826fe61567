package ops

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
)

// minMaxAcc is min(x) or max(x) over values read as T.
type minMaxAcc[T any] struct {
	max    bool
	vals   []T
	seen   []bool
	less   func(a, b T) bool
	getter func(arrow.Array) func(int) T
	own    func(T) T // copies a value that must outlive its batch; nil: none needed
	build  func(mem memory.Allocator, dt arrow.DataType, vals []T, valid []bool) (arrow.Array, error)
}

func newMinMax(dt arrow.DataType, isMax bool) (accumulator, error) {
	k, ok := kindOf(dt)
	if !ok {
		return nil, dberr.NotSupported("min/max of " + dt.String())
	}
	switch k {
	case kindSigned:
		return &minMaxAcc[int64]{max: isMax, less: func(a, b int64) bool { return a < b }, getter: signedGetter,
			build: noErr(buildSigned)}, nil
	case kindUnsigned:
		return &minMaxAcc[uint64]{max: isMax, less: func(a, b uint64) bool { return a < b }, getter: unsignedGetter,
			build: noErr(buildUnsigned)}, nil
	case kindFloat:
		return &minMaxAcc[float64]{max: isMax, less: floatLess, getter: floatGetter, build: noErr(buildFloat)}, nil
	case kindString:
		return &minMaxAcc[string]{max: isMax, less: func(a, b string) bool { return a < b }, getter: stringGetter,
			own: strings.Clone, build: buildString}, nil
	case kindBool:
		return &minMaxAcc[bool]{max: isMax, less: func(a, b bool) bool { return !a && b }, getter: boolGetter,
			build: func(mem memory.Allocator, _ arrow.DataType, vals, valid []bool) (arrow.Array, error) {
				return buildBool(mem, vals, valid), nil
			}}, nil
	}
	return &minMaxAcc[decimal128.Num]{max: isMax, less: decimal128.Num.Less, getter: decimalGetter,
		build: func(mem memory.Allocator, dt arrow.DataType, vals []decimal128.Num, valid []bool) (arrow.Array, error) {
			return buildFixed(mem, dt, vals, valid, func(v decimal128.Num) decimal128.Num { return v }), nil
		}}, nil
}

// floatLess orders NaN above every other value, as DuckDB does.
func floatLess(a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	return math.IsNaN(b) || a < b
}

func noErr[T any](f func(memory.Allocator, arrow.DataType, []T, []bool) arrow.Array) func(memory.Allocator, arrow.DataType, []T, []bool) (arrow.Array, error) {
	return func(mem memory.Allocator, dt arrow.DataType, vals []T, valid []bool) (arrow.Array, error) {
		return f(mem, dt, vals, valid), nil
	}
}

func (m *minMaxAcc[T]) resize(n int) {
	m.vals = grow(m.vals, n)
	m.seen = grow(m.seen, n)
}

func (m *minMaxAcc[T]) update(groups []int32, arg arrow.Array, include []bool) error {
	get := m.getter(arg)
	for i, g := range groups {
		if (include != nil && !include[i]) || !kernel.IsValid(arg, i) {
			continue
		}
		v := get(i)
		if m.seen[g] && (m.max && !m.less(m.vals[g], v) || !m.max && !m.less(v, m.vals[g])) {
			continue
		}
		if m.own != nil {
			v = m.own(v)
		}
		m.vals[g], m.seen[g] = v, true
	}
	return nil
}

func (m *minMaxAcc[T]) finish(mem memory.Allocator, dt arrow.DataType) (arrow.Array, error) {
	return m.build(mem, dt, m.vals, m.seen)
}
