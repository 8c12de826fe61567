package jdbc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/flightd/flightd/integration/itest"
)

// JDBC-specific rendering; the shared helpers (Python peers, DuckDB oracle, canonical
// results) are in integration/itest.

// result is a query result reduced to comparable text.
type result = itest.Result

// canonicalJSON renders one value JdbcSmoke printed (decoded with UseNumber) the same way:
// integral numbers as integers, other numbers with 12 significant digits.
func canonicalJSON(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		if b, ok := new(big.Int).SetString(x.String(), 10); ok {
			return b.String(), nil
		}
		f, err := x.Float64()
		if err != nil {
			return "", fmt.Errorf("number %q: %w", x, err)
		}
		return itest.Float(f), nil
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		return x, nil
	default:
		return "", fmt.Errorf("unexpected JSON value %T %v", v, v)
	}
}
