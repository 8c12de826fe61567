package substrait_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/extensions"
	sgplan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/planner/substrait"
)

// The trigonometric functions, strftime and mode map to the standard Substrait extensions;
// median, factorial (Substrait's returns the argument's type, DuckDB's HUGEINT) and the
// functions Substrait lacks use flightd's own. Every plan round-trips to the same plan.
func TestMoreFunctionExtensions(t *testing.T) {
	sql := "SELECT sin(score), atan2(score, 1), degrees(score), factorial(qty), strftime(ts, '%Y'), " +
		"gcd(id, 2), trunc(score), datediff('day', day, day) FROM t"
	agg := "SELECT mode(id), median(score), arg_max(name, qty), arg_min(id, name), quantile_cont(qty, 0.5), " +
		"quantile_disc(name, 0.5), mode(name), string_agg(name, ',' ORDER BY id) FROM t"
	dates := "SELECT last_day(day), isnan(score), isinf(score), isfinite(score), lcm(id, 3), cot(score), cbrt(qty), " +
		"ascii(name), chr(qty), trunc(score, 1), pi(), cos(score), tan(score), asin(score), acos(score), atan(score), " +
		"radians(score) FROM t"
	want := map[string]string{
		"sin:fp64": "extension:io.substrait:functions_arithmetic", "atan2:fp64_fp64": "extension:io.substrait:functions_arithmetic",
		"degrees:fp64": "extension:io.substrait:functions_arithmetic", "factorial:any": substrait.URN,
		"strftime:pts_str": "extension:io.substrait:functions_datetime", "gcd:any_any": substrait.URN,
		"trunc:any": substrait.URN, "date_diff:any_any_any": substrait.URN,
		"mode:i64": "extension:io.substrait:functions_arithmetic", "median:any": substrait.URN,
		"arg_max:any_any": substrait.URN,
	}
	require.NoError(t, loadOwnExtension())
	got := map[string]string{}
	for _, q := range []string{sql, agg, dates} {
		n := bindSQL(t, q)
		b, err := substrait.Marshal(n)
		require.NoError(t, err)
		var p substraitpb.Plan
		require.NoError(t, proto.Unmarshal(b, &p))
		urns := map[uint32]string{}
		for _, u := range p.GetExtensionUrns() {
			urns[u.GetExtensionUrnAnchor()] = u.GetUrn()
		}
		for _, e := range p.GetExtensions() {
			f := e.GetExtensionFunction()
			got[f.GetName()] = urns[f.GetExtensionUrnReference()]
		}
		require.Equal(t, describe(n), describe(roundTrip(t, n)), q)
		pp, err := substrait.Produce(n)
		require.NoError(t, err)
		_, err = sgplan.FromProto(pp, extensions.GetDefaultCollectionWithNoError())
		require.NoError(t, err, "substrait-go rejects the plan of %s", q)
	}
	for sig, urn := range want {
		require.Equal(t, urn, got[sig], "%s in %v", sig, got)
	}
}
