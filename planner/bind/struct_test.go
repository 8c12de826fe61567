package bind_test

import (
	"testing"

	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// TestBindStruct checks struct values in testdata/struct: literals, struct_pack, row,
// field access and subscripts, casts between struct types, and their errors. Rewrite
// with go test -rewrite -run TestBindStruct.
func TestBindStruct(t *testing.T) {
	plantest.RunFile(t, "testdata/struct", func(t *testing.T, c plantest.Case) string {
		n, err := bindSQL(t, c.Input)
		if err != nil {
			return "error: " + err.Error()
		}
		return plan.Explain(n) + plantest.SchemaString(n.Schema())
	})
}
