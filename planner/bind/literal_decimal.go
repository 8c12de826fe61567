package bind

import (
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/planner/plan"
)

// decimalLiteral types a number literal with a point as DuckDB does: DECIMAL(p, s) where p
// is the number of digits written (at least s, at least 1) and s the digits after the point;
// a literal with an exponent or more than 38 digits is DOUBLE. ok is false for the DOUBLE
// cases (the caller parses them as floats).
func decimalLiteral(text string) (plan.Expr, bool) {
	if strings.ContainsAny(text, "eE") {
		return nil, false
	}
	neg := strings.HasPrefix(text, "-")
	body := strings.TrimPrefix(strings.TrimPrefix(text, "-"), "+")
	intPart, frac, _ := strings.Cut(body, ".")
	digits := intPart + frac
	if len(digits) == 0 || len(digits) > 38 || strings.Trim(digits, "0123456789") != "" {
		return nil, false
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, false
	}
	if neg {
		n.Neg(n)
	}
	prec := int32(max(len(digits), 1))
	dt := &arrow.Decimal128Type{Precision: prec, Scale: int32(len(frac))}
	return &plan.Literal{Value: scalar.NewDecimal128Scalar(decimal128.FromBigInt(n), dt)}, true
}
