package functions

import "math"

// IntArith computes the integer function fn (negate, add, subtract or multiply) over vals,
// as constant folding does; ok is false for another function, a wrong argument count, or
// an int64 overflow.
func IntArith(fn string, vals []int64) (out int64, ok bool) {
	switch {
	case fn == "negate" && len(vals) == 1:
		return -vals[0], vals[0] != math.MinInt64
	case fn == "add" && len(vals) == 2:
		out := vals[0] + vals[1]
		return out, (out > vals[0]) == (vals[1] > 0)
	case fn == "subtract" && len(vals) == 2:
		out := vals[0] - vals[1]
		return out, (out < vals[0]) == (vals[1] > 0)
	case fn == "multiply" && len(vals) == 2:
		a, b := vals[0], vals[1]
		if a == 0 || b == 0 {
			return 0, true
		}
		if a == math.MinInt64 || b == math.MinInt64 {
			return 0, false
		}
		out := a * b
		return out, out/b == a
	}
	return 0, false
}
