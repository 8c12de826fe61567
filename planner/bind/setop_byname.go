package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/planner/plan"
)

// alignByName projects both sides of UNION [ALL] BY NAME onto one column list: the left
// side's columns in order, then the right side's columns the left lacks; names match case
// insensitively and a side without a column gives NULL for it (DuckDB's rules).
func alignByName(left, right plan.Node) (plan.Node, plan.Node) {
	var names []string
	index := map[string]bool{}
	for _, n := range []plan.Node{left, right} {
		for _, f := range n.Schema().Fields() {
			if k := strings.ToLower(f.Name); !index[k] {
				index[k] = true
				names = append(names, f.Name)
			}
		}
	}
	return projectNames(left, names), projectNames(right, names)
}

// projectNames projects n onto names: its column of that name, or NULL.
func projectNames(n plan.Node, names []string) plan.Node {
	sc := n.Schema()
	refs := columnRefs(sc, sc.NumFields())
	exprs := make([]plan.Expr, len(names))
	for i, name := range names {
		exprs[i] = &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}
		for c, f := range sc.Fields() {
			if strings.EqualFold(f.Name, name) {
				exprs[i] = refs[c]
				break
			}
		}
	}
	return plan.NewProject(n, exprs, names)
}
