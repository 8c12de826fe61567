package bind

import (
	"context"
	"strings"
	"time"

	"github.com/flightd/flightd/catalog"
)

// VersionDefaults are the table versions a statement reads when its SQL names none: time
// travel for clients that cannot change their SQL (a Flight SQL session option or request
// header sets them). An AT clause in the statement always wins.
type VersionDefaults struct {
	// AsOf pins every table without an entry in Tables to its newest version committed at or
	// before this instant; zero means the latest version.
	AsOf time.Time
	// Tables pins single tables, by name (matched case-insensitively).
	Tables map[string]catalog.VersionRef
}

// IsZero reports whether d pins nothing.
func (d VersionDefaults) IsZero() bool { return d.AsOf.IsZero() && len(d.Tables) == 0 }

// For returns the default version of table name.
func (d VersionDefaults) For(name string) catalog.VersionRef {
	if ref, ok := d.Tables[name]; ok {
		return ref
	}
	for n, ref := range d.Tables {
		if strings.EqualFold(n, name) {
			return ref
		}
	}
	return catalog.VersionRef{Timestamp: d.AsOf}
}

type versionDefaultsKey struct{}

// WithVersionDefaults returns ctx carrying d for every statement bound under it.
func WithVersionDefaults(ctx context.Context, d VersionDefaults) context.Context {
	return context.WithValue(ctx, versionDefaultsKey{}, d)
}

// VersionDefaultsFrom returns the defaults ctx carries (zero when none).
func VersionDefaultsFrom(ctx context.Context) VersionDefaults {
	d, _ := ctx.Value(versionDefaultsKey{}).(VersionDefaults)
	return d
}
