package bind_test

import (
	"strings"
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
		{"SELECT (SELECT name, id FROM u WHERE u.t_id = t.id LIMIT 1) FROM t", dberr.Binder},
		{"SELECT * FROM t RIGHT JOIN LATERAL (SELECT amount FROM u WHERE u.t_id < t.id) l ON true", dberr.Binder},
		{"SELECT * FROM t FULL JOIN LATERAL (SELECT amount FROM u WHERE u.t_id = t.id LIMIT 1) l ON true", dberr.Binder},
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

// TestBindFlatten checks which correlated subqueries go through the general decorrelation
// (flatten.go: the domain is cross joined into the subquery) and that the shapes the
// specialised decorrelations handle (TPC-H's) keep them.
func TestBindFlatten(t *testing.T) {
	tests := []struct {
		sql     string
		general bool
	}{
		{"SELECT (SELECT sum(amount) FROM u WHERE u.t_id < t.id GROUP BY name) FROM t", true},
		{"SELECT id FROM t WHERE score > ANY (SELECT max(amount) FROM u WHERE u.t_id < t.id GROUP BY name)", true},
		{"SELECT id, id > ALL (SELECT max(t_id) FROM u WHERE u.t_id < t.id GROUP BY name) FROM t", true},
		{"SELECT * FROM t, LATERAL (SELECT amount FROM u WHERE u.t_id = t.id LIMIT 1) l", true},
		{"SELECT (SELECT amount FROM u WHERE u.t_id = t.id ORDER BY amount LIMIT 1) FROM t", true},
		{"SELECT (SELECT sum(amount + t.score) FROM u WHERE u.t_id = t.id) FROM t", true},
		{"SELECT (SELECT count(*) FROM u WHERE u.amount > (SELECT min(score) FROM t AS s WHERE s.id = t.id)) FROM t", true},
		{"SELECT (SELECT u.id FROM u WHERE u.t_id > t.id ORDER BY 1) FROM t", true},
		{"SELECT (SELECT t.name FROM u WHERE u.t_id = t.id) FROM t", true},
		{"SELECT id FROM t WHERE id IN (SELECT t_id FROM u WHERE u.id = t.id LIMIT 1)", true},
		{"SELECT name, (SELECT count(*) FROM u WHERE u.t_id = t.id) FROM t GROUP BY id, name", true},
		{"SELECT count(*), (SELECT 1) FROM t", false},
		{"SELECT (SELECT sum(amount) FROM u WHERE u.t_id = t.id) FROM t", false},
		{"SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.t_id = t.id AND u.amount > t.score)", false},
		{"SELECT id FROM t WHERE score > (SELECT avg(amount) FROM u WHERE u.t_id = t.id)", false},
		{"SELECT id FROM t WHERE id IN (SELECT t_id FROM u WHERE u.amount < t.score)", false},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			n, err := bindSQL(t, tc.sql)
			require.NoError(t, err)
			require.Equal(t, tc.general, crossJoinsDomain(n), plan.Explain(n))
		})
	}
}

// crossJoinsDomain reports whether n has a cross join whose right side is a domain.
func crossJoinsDomain(n plan.Node) bool {
	if j, ok := n.(*plan.Join); ok && j.Type == plan.CrossJoin {
		if f := j.Right.Schema().Fields(); len(f) > 0 && strings.HasPrefix(f[0].Name, "__domain") {
			return true
		}
	}
	for _, c := range n.Children() {
		if crossJoinsDomain(c) {
			return true
		}
	}
	return false
}
