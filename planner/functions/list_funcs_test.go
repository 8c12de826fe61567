package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// The list search functions' typing: result types, the function a call binds to (length
// of a list is array_length), the argument types after the implicit casts, and errors.
func TestListFuncTyping(t *testing.T) {
	li32, li64, lstr := arrow.ListOf(i32), arrow.ListOf(i64), arrow.ListOf(str)
	null := &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}
	cases := []struct {
		fn       string
		args     []plan.Expr
		want     arrow.DataType
		bound    string
		argTypes []arrow.DataType
		err      string
	}{
		{fn: "length", args: []plan.Expr{vecCol(li32)}, want: i64, bound: "array_length", argTypes: []arrow.DataType{li32}},
		{fn: "length", args: []plan.Expr{vecCol(str)}, want: i64, bound: "length", argTypes: []arrow.DataType{str}},
		{fn: "array_length", args: []plan.Expr{vecCol(arrow.FixedSizeListOf(3, f32))}, want: i64, bound: "array_length"},
		{fn: "array_length", args: []plan.Expr{vecCol(str)}, err: "no function matches"},
		{fn: "list_contains", args: []plan.Expr{vecCol(li32), vecCol(i64)}, want: tBol, bound: "list_contains", argTypes: []arrow.DataType{li64, i64}},
		{fn: "list_contains", args: []plan.Expr{vecCol(lstr), &plan.Literal{Value: scalar.NewStringScalar("a")}}, want: tBol, bound: "list_contains", argTypes: []arrow.DataType{lstr, str}},
		{fn: "list_contains", args: []plan.Expr{vecCol(li32), vecCol(str)}, err: "no function matches"},
		{fn: "list_contains", args: []plan.Expr{vecCol(i32), vecCol(i32)}, err: "no function matches"},
		{fn: "list_position", args: []plan.Expr{vecCol(li64), null}, want: i32, bound: "list_position", argTypes: []arrow.DataType{li64, i64}},
		{fn: "list_position", args: []plan.Expr{null, vecCol(str)}, want: i32, bound: "list_position", argTypes: []arrow.DataType{lstr, str}},
		{fn: "array_has_any", args: []plan.Expr{vecCol(lstr), vecCol(lstr)}, want: tBol, bound: "array_has_any", argTypes: []arrow.DataType{lstr, lstr}},
		{fn: "array_has_all", args: []plan.Expr{vecCol(li64), vecCol(li32)}, want: tBol, bound: "array_has_all", argTypes: []arrow.DataType{li64, li64}},
		{fn: "array_has_all", args: []plan.Expr{null, vecCol(li32)}, want: tBol, bound: "array_has_all", argTypes: []arrow.DataType{li32, li32}},
		{fn: "array_has_any", args: []plan.Expr{vecCol(lstr), vecCol(li32)}, err: "no function matches"},
		{fn: "array_has_any", args: []plan.Expr{vecCol(lstr)}, err: "no function matches"},
		{fn: "list_concat", args: []plan.Expr{vecCol(li32), null, vecCol(li64)}, want: li64, bound: "list_concat", argTypes: []arrow.DataType{li64, li64, li64}},
		{fn: "concat", args: []plan.Expr{vecCol(lstr), vecCol(lstr)}, want: lstr, bound: "list_concat", argTypes: []arrow.DataType{lstr, lstr}},
		{fn: "concat", args: []plan.Expr{vecCol(str), vecCol(i32)}, want: str, bound: "concat", argTypes: []arrow.DataType{str, str}},
		{fn: "list_concat", args: []plan.Expr{vecCol(lstr), vecCol(li32)}, err: "no function matches"},
		{fn: "flatten", args: []plan.Expr{vecCol(arrow.ListOf(li32))}, want: li32, bound: "flatten"},
		{fn: "flatten", args: []plan.Expr{vecCol(li32)}, err: "no function matches"},
	}
	for _, c := range cases {
		t.Run(c.fn+c.err, func(t *testing.T) {
			call, err := NewCall(c.fn, c.args)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.True(t, arrow.TypeEqual(c.want, call.DataType), "got %s", call.DataType)
			require.Equal(t, c.bound, call.Func)
			for i, at := range c.argTypes {
				require.True(t, arrow.TypeEqual(at, call.Args[i].Type()), "argument %d: got %s, want %s", i, call.Args[i].Type(), at)
			}
		})
	}
	for alias, name := range map[string]string{"len": "length", "array_has": "list_contains", "list_indexof": "list_position", "list_has_all": "array_has_all"} {
		require.Equal(t, name, Aliases[alias])
	}
}
