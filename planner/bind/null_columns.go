package bind

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

// typedNullColumns casts n's columns of type NULL (SELECT NULL AS x) to INTEGER, for a
// table that stores them: DuckDB 2.0 would create a column of type "NULL", which Lance
// files cannot hold yet. n is returned as is when it has none.
func typedNullColumns(n plan.Node) (plan.Node, error) {
	fields := n.Schema().Fields()
	types := make([]arrow.DataType, len(fields))
	names := make([]string, len(fields))
	found := false
	for i, f := range fields {
		types[i], names[i] = f.Type, f.Name
		if f.Type.ID() == arrow.NULL {
			types[i], found = arrow.PrimitiveTypes.Int32, true
		}
	}
	if !found {
		return n, nil
	}
	return castColumns(n, types, names) // setop.go
}
