package substrait

import (
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-go/v8/extensions"

	"github.com/flightd/flightd/planner/functions"
)

// Extension URNs. The standard ones are the YAML files shipped with Substrait; URN is
// flightd's own, for functions (or overloads) Substrait lacks. Substrait v0.85 URNs must
// read extension:<owner>:<id>, so flightd's is not the bare URL; URI is accepted as an
// alias from producers that still declare URIs.
const (
	urnComparison = "extension:io.substrait:functions_comparison"
	urnBoolean    = "extension:io.substrait:functions_boolean"
	urnArithmetic = "extension:io.substrait:functions_arithmetic"
	urnDecimal    = "extension:io.substrait:functions_arithmetic_decimal"
	urnString     = "extension:io.substrait:functions_string"
	urnDatetime   = "extension:io.substrait:functions_datetime"
	urnAggregate  = "extension:io.substrait:functions_aggregate_generic"
	urnRounding   = "extension:io.substrait:functions_rounding"
	urnLog        = "extension:io.substrait:functions_logarithmic"

	// URN is flightd's own function extension.
	URN = "extension:flightd:functions"
	// URI is the URL form of flightd's function extension, accepted from older producers.
	URI = "https://github.com/flightd/flightd/functions"
)

// standardURNs are the extension URNs the consumer resolves by function name.
var standardURNs = map[string]bool{
	urnComparison: true, urnBoolean: true, urnArithmetic: true, urnDecimal: true,
	urnString: true, urnDatetime: true, urnAggregate: true, URN: true, URI: true,
	urnRounding: true, urnLog: true,
	"extension:io.substrait:functions_aggregate_decimal_output": true,
}

// signature is a Substrait function signature name: "add:i64_i64".
func signature(name string, codes []string) string {
	return name + ":" + strings.Join(codes, "_")
}

// anySignature is the signature of a function in flightd's own extension, where every
// argument is declared "any" (see functions.yaml).
func anySignature(name string, nargs int) string {
	codes := make([]string, nargs)
	for i := range codes {
		codes[i] = "any"
	}
	return signature(name, codes)
}

func codesOf(args []arrow.DataType) []string {
	out := make([]string, len(args))
	for i, t := range args {
		out[i] = sigCode(t)
	}
	return out
}

// scalarExtension picks the extension URN and signature of a canonical scalar call.
func scalarExtension(name string, args []arrow.DataType) (urn, sig string) {
	switch functions.Scalars[name] {
	case functions.Comparison:
		return urnComparison, signature(name, []string{"any", "any"})
	case functions.NullTest:
		return urnComparison, signature(name, []string{"any"})
	case functions.Coalesce:
		return urnComparison, signature(name, []string{"any"})
	case functions.Boolean:
		return urnBoolean, signature(name, []string{"bool"})
	case functions.Pattern:
		return urnString, signature(name, []string{"str", "str"})
	case functions.Arithmetic:
		return arithmeticExtension(name, args)
	case functions.Generic:
		if std, ok := standardScalars[name]; ok && allCoded(args) {
			sig := signature(std.name, codesOf(args))
			if _, known := standardCollection().GetScalarFunc(extensions.ID{URN: std.urn, Name: sig}); known {
				return std.urn, sig
			}
		}
	}
	return URN, anySignature(name, len(args))
}

// standardScalars are the generic functions a standard Substrait extension declares,
// with the name it uses there. The consumer maps the names back (functions.Aliases).
// Functions without a standard counterpart of the same semantics (cbrt, cot, factorial
// (DuckDB's is HUGEINT), gcd, lcm, isnan/isinf/isfinite, trunc, ascii, chr, date_diff,
// last_day, ...) are not mapped to standard Substrait yet: they use flightd's extension.
var standardScalars = map[string]struct{ urn, name string }{
	"lower": {urnString, "lower"}, "upper": {urnString, "upper"}, "concat": {urnString, "concat"},
	"replace": {urnString, "replace"}, "starts_with": {urnString, "starts_with"},
	"ends_with": {urnString, "ends_with"}, "contains": {urnString, "contains"},
	"strpos": {urnString, "strpos"}, "reverse": {urnString, "reverse"},
	"ltrim": {urnString, "ltrim"}, "rtrim": {urnString, "rtrim"}, "trim": {urnString, "trim"},
	"length": {urnString, "char_length"},
	"sqrt":   {urnArithmetic, "sqrt"}, "exp": {urnArithmetic, "exp"}, "power": {urnArithmetic, "power"},
	"ceil": {urnRounding, "ceil"}, "floor": {urnRounding, "floor"},
	"ln": {urnLog, "ln"}, "log10": {urnLog, "log10"}, "log2": {urnLog, "log2"},
	"sin": {urnArithmetic, "sin"}, "cos": {urnArithmetic, "cos"}, "tan": {urnArithmetic, "tan"},
	"asin": {urnArithmetic, "asin"}, "acos": {urnArithmetic, "acos"}, "atan": {urnArithmetic, "atan"},
	"atan2": {urnArithmetic, "atan2"}, "radians": {urnArithmetic, "radians"},
	"degrees": {urnArithmetic, "degrees"}, "strftime": {urnDatetime, "strftime"},
}

// standardCollection is substrait-go's copy of the standard extensions, used to check that
// a standard signature exists before a plan names it.
var standardCollection = sync.OnceValue(extensions.GetDefaultCollectionWithNoError)

// allCoded reports whether every argument type has a Substrait signature code.
func allCoded(args []arrow.DataType) bool {
	for _, c := range codesOf(args) {
		if c == "any" {
			return false
		}
	}
	return true
}

func arithmeticExtension(name string, args []arrow.DataType) (urn, sig string) {
	codes := codesOf(args)
	t := args[0]
	switch {
	case t.ID() == arrow.DECIMAL128 && name != "negate":
		return urnDecimal, signature(name, codes)
	case t.ID() == arrow.DECIMAL128:
		return URN, anySignature(name, len(args))
	case functions.IsInteger(t) && !isUnsignedCode(codes[0]):
		return urnArithmetic, signature(name, codes)
	case functions.IsFloat(t) && name != "modulus":
		return urnArithmetic, signature(name, codes)
	}
	return URN, anySignature(name, len(args))
}

func isUnsignedCode(code string) bool { return code == "any" }

// aggregateExtension picks the extension URN and signature of an aggregate.
func aggregateExtension(name string, args []arrow.DataType) (urn, sig string) {
	codes := codesOf(args)
	if name == "count" {
		if len(args) == 0 {
			return urnAggregate, "count:"
		}
		return urnAggregate, "count:any"
	}
	t := args[0]
	switch {
	case name == "mode" && ((functions.IsInteger(t) && codes[0] != "any") || functions.IsFloat(t)):
		return urnArithmetic, signature(name, codes)
	case name != "sum" && name != "min" && name != "max" && name != "avg":
		// median and quantile_cont/quantile_disc: the standard median and quantile take
		// rounding and distribution options flightd does not model, so they are not
		// mapped to standard Substrait yet (flightd's own URN carries them).
		return URN, anySignature(name, len(args))
	case t.ID() == arrow.DECIMAL128:
		return urnDecimal, signature(name, codes)
	case (functions.IsInteger(t) && codes[0] != "any") || functions.IsFloat(t):
		return urnArithmetic, signature(name, codes)
	case (name == "min" || name == "max") && (t.ID() == arrow.DATE32 || t.ID() == arrow.TIMESTAMP):
		return urnDatetime, signature(name, codes)
	}
	return URN, anySignature(name, len(args))
}
