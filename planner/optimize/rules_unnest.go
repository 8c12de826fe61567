package optimize

import "github.com/flightd/flightd/planner/plan"

// pruneUnnest keeps the input columns the parent or the unnested lists read, so a scan
// under an UNNEST reads only those columns; the element columns follow the input's.
func pruneUnnest(u *plan.Unnest, need []bool) (plan.Node, mapping) {
	nin := u.Input.Schema().NumFields()
	cn := make([]bool, nin)
	copy(cn, need[:nin])
	mark(cn, u.Lists...)
	in, cm := prune(u.Input, cn)
	names := make([]string, len(u.Lists))
	for i := range names {
		names[i] = u.Schema().Field(nin + i).Name
	}
	out := plan.NewUnnest(in, rewriteAll(cm, u.Lists), names)
	m := make(mapping, u.Schema().NumFields())
	copy(m, cm)
	width := in.Schema().NumFields()
	for i := range u.Lists {
		m[nin+i] = width + i
	}
	return out, m
}
