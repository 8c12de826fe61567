package substrait_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/extensions"
	sgplan "github.com/substrait-io/substrait-go/v8/plan"

	"github.com/flightd/flightd/planner/substrait"
)

// List literals of NULL items and nested lists of mixed numeric types survive SQL → plan
// → Substrait → plan with their DuckDB types ("NULL"[], DECIMAL(11,1)[][]), and so do the
// list operators (bound to array_has_any/all, <@ with its operands swapped) and the list
// aggregates.
func TestListLiteralRoundTrip(t *testing.T) {
	require.NoError(t, loadOwnExtension())
	cases := []struct {
		sql  string
		want string // in the EXPLAIN text or the schemas
	}{
		{sql: "SELECT [NULL]", want: "list<item: null, nullable>"},
		{sql: "SELECT [NULL, NULL]", want: "list<item: null, nullable>"},
		{sql: "SELECT [[1], [2.5]]", want: "list<item: list<item: decimal(11, 1), nullable>, nullable>"},
		{sql: "SELECT [[NULL], [1]]", want: "list<item: list<item: int32, nullable>, nullable>"},
		{sql: "SELECT [1, 2] && [2, 3.5]", want: ":= array_has_any([1 2], [2 3.5])"},
		{sql: "SELECT [2] <@ [1, 2]", want: ":= array_has_all([1 2], [2])"},
		{sql: "SELECT [NULL] @> [NULL, NULL]", want: ":= array_has_all([(null)], [(null) (null)])"},
		{sql: "SELECT list_min([1, 2]), list_max(['a']), list_sum([1.5]), list_avg([2])", want: "int32 null, list_max(list_value('a')) utf8 null, list_sum(list_value(1.5)) decimal(38, 1) null, list_avg(list_value(2)) float64 null"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			bound := bindSQL(t, c.sql)
			require.Contains(t, describe(bound), c.want)
			require.Equal(t, describe(bound), describe(roundTrip(t, bound)))
			pp, err := substrait.Produce(bound)
			require.NoError(t, err)
			_, err = sgplan.FromProto(pp, extensions.GetDefaultCollectionWithNoError())
			require.NoError(t, err, "substrait-go rejects the plan")
		})
	}
}
