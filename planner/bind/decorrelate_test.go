package bind_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// TestBindDecorrelate checks the bound plans of quantified comparisons (ANY/ALL) and of
// correlated subqueries decorrelated over a domain (testdata/decorrelate). Rewrite with
// go test -rewrite.
func TestBindDecorrelate(t *testing.T) {
	plantest.RunFile(t, "testdata/decorrelate", func(t *testing.T, c plantest.Case) string {
		n, err := bindSQL(t, c.Input)
		if err != nil {
			return "error: " + err.Error()
		}
		return plan.Explain(n) + plantest.SchemaString(n.Schema())
	})
}

func TestBindDecorrelateErrors(t *testing.T) {
	tests := []struct {
		sql  string
		kind dberr.Kind
	}{
		{"SELECT id FROM t WHERE id > ANY (SELECT id, t_id FROM u)", dberr.Binder},
		{"SELECT (SELECT name, id FROM u WHERE u.t_id < t.id) FROM t", dberr.Binder},
		{"SELECT (SELECT sum(amount) FROM u WHERE u.t_id < t.id GROUP BY name) FROM t", dberr.NotImplemented},
		{"SELECT id FROM t WHERE score > ANY (SELECT max(amount) FROM u WHERE u.t_id < t.id GROUP BY name)", dberr.NotImplemented},
		{"SELECT id, id > ALL (SELECT max(t_id) FROM u WHERE u.t_id < t.id GROUP BY name) FROM t", dberr.NotImplemented},
		{"SELECT * FROM t, LATERAL (SELECT amount FROM u WHERE u.t_id = t.id LIMIT 1) l", dberr.NotImplemented},
		{"SELECT * FROM t RIGHT JOIN LATERAL (SELECT amount FROM u WHERE u.t_id < t.id) l ON true", dberr.NotImplemented},
		{"SELECT * FROM t, (SELECT amount FROM u WHERE u.t_id = nope) l", dberr.Binder},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := bindSQL(t, tc.sql)
			require.Error(t, err)
			var e *dberr.Error
			require.ErrorAs(t, err, &e, "want *dberr.Error, got %T: %v", err, err)
			require.Equal(t, tc.kind, e.Kind, err.Error())
		})
	}
}
