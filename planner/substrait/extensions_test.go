package substrait_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/substrait"
)

// TestStandardFunctionNames: functions a standard Substrait extension declares (with the
// exact signature) are written there; the rest go to flightd's extension.
func TestStandardFunctionNames(t *testing.T) {
	n := bindSQL(t, "SELECT lower(name), length(name), sqrt(score), ln(score), floor(score), lpad(name, 3, 'x'), date_part('year', day) FROM t")
	p, err := substrait.Produce(n)
	require.NoError(t, err)
	urns := map[uint32]string{}
	for _, u := range p.GetExtensionUrns() {
		urns[u.GetExtensionUrnAnchor()] = u.GetUrn()
	}
	got := map[string]string{}
	for _, e := range p.GetExtensions() {
		f := e.GetExtensionFunction()
		got[f.GetName()] = urns[f.GetExtensionUrnReference()]
	}
	require.Equal(t, map[string]string{
		"lower:str":         "extension:io.substrait:functions_string",
		"char_length:str":   "extension:io.substrait:functions_string",
		"sqrt:fp64":         "extension:io.substrait:functions_arithmetic",
		"ln:fp64":           "extension:io.substrait:functions_logarithmic",
		"floor:fp64":        "extension:io.substrait:functions_rounding",
		"lpad:any_any_any":  substrait.URN,
		"date_part:any_any": substrait.URN,
	}, got)
	out := roundTrip(t, n)
	require.Equal(t, describe(n), describe(out))
}
