package plan

import "strings"

// TypedKey renders e with the type of every call, cast and leaf in it. Two expressions share
// a key only when they compute the same values with the same types, which String alone does
// not say: the decimal literals 1.0 (DECIMAL(2,1)) and 1.00 (DECIMAL(3,2)) both print as 1,
// so `p * 1.0` and `p * 1.00` print alike but yield different decimal types. Use it to share
// subexpressions.
func TypedKey(e Expr) string {
	var sb strings.Builder
	writeTypedKey(&sb, e)
	return sb.String()
}

func writeTypedKey(sb *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *Call:
		sb.WriteString(x.Func)
		sb.WriteByte('(')
		for i, a := range x.Args {
			if i > 0 {
				sb.WriteString(", ")
			}
			writeTypedKey(sb, a)
		}
		sb.WriteByte(')')
	case *Cast:
		if x.Try {
			sb.WriteString("try_")
		}
		sb.WriteString("cast(")
		writeTypedKey(sb, x.Input)
		sb.WriteByte(')')
	default:
		sb.WriteString(e.String())
	}
	if t := e.Type(); t != nil {
		sb.WriteString("::")
		sb.WriteString(t.String())
	}
}
