package planner

import (
	"context"

	"github.com/flightd/flightd/planner/bind"
)

// DefaultVersions are the table versions statements read when their SQL names none (time
// travel set by a session option or request header); an AT clause wins. See
// bind.VersionDefaults.
type DefaultVersions = bind.VersionDefaults

// WithDefaultVersions returns ctx carrying d: PlanSQL, PlanSQLWithParams and Explain under
// it bind every table reference without an AT clause to d's version of that table, and the
// produced plan pins that version, so a ticket made from it reads the same snapshot.
// Substrait plans from clients (PlanSubstrait) are not affected: not supported yet.
func WithDefaultVersions(ctx context.Context, d DefaultVersions) context.Context {
	return bind.WithVersionDefaults(ctx, d)
}
