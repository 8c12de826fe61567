package substrait

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// Substrait's window function expression has no GROUPS frames, only integer frame offsets
// and no FILTER clause. flightd writes them as function options in its own namespace:
//
//   - optFrameUnit ("GROUPS"): the frame counts peer groups; bounds_type is ROWS and the
//     bound offsets are group counts.
//   - optTrailing (roles, in order): the last len(roles) arguments are not arguments of the
//     function but, per role, the frame's lower offset ("lower_offset"), its upper offset
//     ("upper_offset") or the FILTER condition ("filter"). Offsets go there when they are
//     not non-negative integer literals (RANGE offsets of decimal, float or interval type);
//     the bound's own offset is then 0.
//   - optNulls ("IGNORE"): IGNORE NULLS (lag, lead, first_value, last_value, nth_value).
//
// A consumer that ignores the options computes something else, as it would with any
// unknown function option; flightd's consumer rejects no option it wrote.
const (
	optFrameUnit = "flightd:frame_unit"
	optTrailing  = "flightd:trailing_arguments"
	optNulls     = "flightd:null_treatment"
)

// Roles of trailing arguments.
const (
	roleLowerOffset = "lower_offset"
	roleUpperOffset = "upper_offset"
	roleFilter      = "filter"
)

// intOffset returns a bound's offset when Substrait can hold it: a non-negative integer
// literal.
func intOffset(b plan.FrameBound) (int64, bool) {
	lit, ok := b.Offset.(*plan.Literal)
	if !ok {
		return 0, false
	}
	v, ok := functions.IntValue(lit.Value)
	return v, ok && v >= 0
}

// hasOffset reports whether a bound carries an offset.
func hasOffset(b plan.FrameBound) bool {
	return (b.Kind == plan.Preceding || b.Kind == plan.Following) && b.Offset != nil
}

// windowExtras returns the trailing arguments of f and their roles.
func windowExtras(f plan.WindowFunc) ([]plan.Expr, []string) {
	var exprs []plan.Expr
	var roles []string
	if fr := f.Frame; fr != nil {
		if _, ok := intOffset(fr.Start); hasOffset(fr.Start) && !ok {
			exprs, roles = append(exprs, fr.Start.Offset), append(roles, roleLowerOffset)
		}
		if _, ok := intOffset(fr.End); hasOffset(fr.End) && !ok {
			exprs, roles = append(exprs, fr.End.Offset), append(roles, roleUpperOffset)
		}
	}
	if f.Filter != nil {
		exprs, roles = append(exprs, f.Filter), append(roles, roleFilter)
	}
	return exprs, roles
}

// windowExtraArgs are the parts of a window function read from flightd's options.
type windowExtraArgs struct {
	groups, ignoreNulls      bool
	lower, upper, filter     plan.Expr
	hasLower, hasUpper, hasF bool
}

// splitWindowExtras separates the trailing arguments from the function's own arguments.
func splitWindowExtras(x *pb.Expression_WindowFunction, args []plan.Expr, path string) ([]plan.Expr, windowExtraArgs, error) {
	var ex windowExtraArgs
	for i, o := range x.GetOptions() {
		switch o.GetName() {
		case optFrameUnit:
			if len(o.GetPreference()) != 1 || o.GetPreference()[0] != "GROUPS" {
				return nil, ex, invalid(fmt.Sprintf("%s.options[%d]", path, i), "unknown frame unit %v", o.GetPreference())
			}
			ex.groups = true
		case optNulls:
			if len(o.GetPreference()) != 1 || o.GetPreference()[0] != "IGNORE" {
				return nil, ex, invalid(fmt.Sprintf("%s.options[%d]", path, i), "unknown null treatment %v", o.GetPreference())
			}
			ex.ignoreNulls = true
		case optTrailing:
			roles := o.GetPreference()
			if len(roles) > len(args) {
				return nil, ex, invalid(path, "%d trailing arguments, %d arguments", len(roles), len(args))
			}
			tail := args[len(args)-len(roles):]
			args = args[:len(args)-len(roles)]
			for k, role := range roles {
				if err := ex.set(role, tail[k], path); err != nil {
					return nil, ex, err
				}
			}
		}
	}
	return args, ex, nil
}

func (ex *windowExtraArgs) set(role string, e plan.Expr, path string) error {
	switch role {
	case roleLowerOffset:
		ex.lower, ex.hasLower = e, true
	case roleUpperOffset:
		ex.upper, ex.hasUpper = e, true
	case roleFilter:
		if t := e.Type().ID(); t != arrow.BOOL && t != arrow.NULL {
			return invalid(path, "window FILTER of type %s", e.Type())
		}
		ex.filter, ex.hasF = e, true
	default:
		return invalid(path, "unknown trailing argument role %q", role)
	}
	return nil
}

// apply puts the extras into w (whose frame has been consumed).
func (ex windowExtraArgs) apply(w *plan.WindowFunc, path string) error {
	if ex.hasF {
		w.Filter = ex.filter
	}
	w.IgnoreNulls = ex.ignoreNulls
	if !ex.groups && !ex.hasLower && !ex.hasUpper {
		return nil
	}
	if w.Frame == nil {
		return invalid(path, "frame options without a frame")
	}
	if ex.groups {
		w.Frame.Unit = plan.FrameGroups
	}
	if ex.hasLower {
		if !hasOffset(w.Frame.Start) {
			return invalid(path, "a lower offset for a bound without one")
		}
		w.Frame.Start.Offset = ex.lower
	}
	if ex.hasUpper {
		if !hasOffset(w.Frame.End) {
			return invalid(path, "an upper offset for a bound without one")
		}
		w.Frame.End.Offset = ex.upper
	}
	return nil
}
