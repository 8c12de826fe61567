package substrait_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/extensions"
	sgplan "github.com/substrait-io/substrait-go/v8/plan"

	"github.com/flightd/flightd/planner/substrait"
)

// TestVectorRoundTrip: distance functions, array and list literals and casts to arrays
// survive SQL → plan → Substrait → plan with their types (FLOAT[2] stays a fixed-size
// list), and substrait-go accepts the produced plans.
func TestVectorRoundTrip(t *testing.T) {
	require.NoError(t, loadOwnExtension())
	for _, sql := range []string{
		"SELECT array_distance([1, 2]::FLOAT[2], [3, 5]::FLOAT[2])",
		"SELECT array_cosine_similarity([1, 2]::DOUBLE[2], [3.5, 5]::FLOAT[2]) AS s",
		"SELECT array_inner_product(NULL, [3, 5]::FLOAT[2]), array_negative_inner_product([1, 2]::FLOAT[2], NULL)",
		"SELECT list_distance([1, 2], [3, 5.5]), list_cosine_distance([1, 2]::FLOAT[], [3, 4])",
		"SELECT [1, 2, 3], [1.5, 2]::FLOAT[2], []::INTEGER[], [[1, 2]::INTEGER[2]]",
		"SELECT array_distance(x::FLOAT[2], [0, 0]::FLOAT[2]) FROM (SELECT [1, 2]::INTEGER[2] AS x) s",
	} {
		t.Run(sql, func(t *testing.T) {
			bound := bindSQL(t, sql)
			require.Equal(t, describe(bound), describe(roundTrip(t, bound)))
			pp, err := substrait.Produce(bound)
			require.NoError(t, err)
			_, err = sgplan.FromProto(pp, extensions.GetDefaultCollectionWithNoError())
			require.NoError(t, err, "substrait-go rejects the plan")
		})
	}
}
