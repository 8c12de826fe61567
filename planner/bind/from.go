package bind

import (
	"errors"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// bindFrom loads the table of ref at the version its AT clause names.
// DefaultCatalog and DefaultSchema are the catalog and schema names flightd reports to
// Flight SQL clients (flightsrv.CatalogName, flightsrv.SchemaName); tables may be
// qualified with them, as JDBC tools do: flightd.main.t, main.t.
const (
	DefaultCatalog = "flightd"
	DefaultSchema  = "main"
)

// bindTable binds a base table (or a CTE named like one) and returns its scan and scope.
func (b *binder) bindTable(ref *ast.TableRef) (plan.Node, *scope, error) {
	if len(ref.Name) == 1 && ref.At == nil {
		if cte, ok := b.lookupCTE(ref.Name[0]); ok {
			return b.bindCTERef(cte, ref)
		}
	}
	name, err := tableName(ref.Name)
	if err != nil {
		return nil, nil, errAt(err, ref.Pos)
	}
	at := VersionDefaultsFrom(b.ctx).For(name) // the session's time travel, unless AT says otherwise
	if ref.At != nil {
		if at, err = b.bindAt(ref.At); err != nil {
			return nil, nil, errAt(err, ref.At.Pos)
		}
	}
	t, err := b.loadTable(name, at)
	if err != nil {
		pos := ref.Pos
		if ref.At != nil && errors.Is(err, catalog.ErrNoSuchVersion) {
			pos = ref.At.Pos
		}
		return nil, nil, errAt(err, pos)
	}
	rel := ref.Alias
	if rel == "" {
		rel = t.Name()
	}
	scan, sc := b.baseTableScan(t, rel)
	return scan, sc, nil
}

// tableName checks the qualifiers of a table name and returns the bare name.
func tableName(parts []string) (string, error) {
	n := len(parts)
	switch {
	case n > 3:
		return "", dberr.New(dberr.Parser, "too many dots in table name %s", strings.Join(parts, "."))
	case n == 3 && !strings.EqualFold(parts[0], DefaultCatalog):
		return "", dberr.Wrap(dberr.Catalog, catalog.ErrNoSuchTable, "Catalog %q does not exist! (flightd has one catalog, %q)", parts[0], DefaultCatalog)
	case n >= 2 && !strings.EqualFold(parts[n-2], DefaultSchema):
		return "", dberr.Wrap(dberr.Catalog, catalog.ErrNoSuchTable, "Schema %q does not exist! (flightd has one schema, %q)", parts[n-2], DefaultSchema)
	}
	return parts[n-1], nil
}

// loadTable finds name in the catalog, exactly first and then case-insensitively.
func (b *binder) loadTable(name string, at catalog.VersionRef) (catalog.Table, error) {
	t, err := b.cat.LoadTable(b.ctx, name, at)
	if err == nil {
		return t, nil
	}
	if !errors.Is(err, catalog.ErrNoSuchTable) {
		return nil, catalog.LoadError(name, at, err)
	}
	names, lerr := b.cat.ListTables(b.ctx)
	if lerr != nil {
		return nil, dberr.Wrap(dberr.IO, lerr, "list tables")
	}
	var match []string
	for _, n := range names {
		if strings.EqualFold(n, name) {
			match = append(match, n)
		}
	}
	if len(match) != 1 {
		return nil, catalog.LoadError(name, at, err)
	}
	t, err = b.cat.LoadTable(b.ctx, match[0], at)
	if err != nil {
		return nil, catalog.LoadError(match[0], at, err)
	}
	return t, nil
}

// bindAt evaluates the AT clause's constant expression once, into a VersionRef.
func (b *binder) bindAt(at *ast.AtClause) (catalog.VersionRef, error) {
	if p, ok := at.Expr.(*ast.Param); ok && b.params != nil && b.params.values == nil {
		// Inferring parameter types: any version will do.
		t := arrow.DataType(arrow.PrimitiveTypes.Int64)
		if at.Unit == ast.AtTimestamp {
			t = timestampType
		}
		b.params.note(paramIndex(p), t)
		return catalog.VersionRef{}, nil
	}
	eb := &exprBinder{b: b, scope: &scope{noColumns: true}, clause: "AT clause"}
	e, err := eb.bind(at.Expr)
	if err != nil {
		return catalog.VersionRef{}, err
	}
	lit, ok := foldInteger(e).(*plan.Literal)
	if !ok {
		return catalog.VersionRef{}, dberr.NotSupported("non-constant AT clause expressions")
	}
	if !lit.Value.IsValid() {
		return catalog.VersionRef{}, dberr.New(dberr.Binder, "AT clause value cannot be NULL")
	}
	if at.Unit == ast.AtVersion {
		return versionRef(lit)
	}
	ts, err := timestampOf(lit)
	if err != nil {
		return catalog.VersionRef{}, err
	}
	return catalog.VersionRef{Timestamp: ts}, nil
}

func versionRef(lit *plan.Literal) (catalog.VersionRef, error) {
	if functions.IsString(lit.Type()) {
		return catalog.VersionRef{Tag: lit.Value.String()}, nil
	}
	n, ok := functions.IntValue(lit.Value)
	if !ok {
		return catalog.VersionRef{}, dberr.New(dberr.Binder, "AT (VERSION => ...) needs an integer version or a string tag, not %s", lit.Type())
	}
	if n < 1 {
		return catalog.VersionRef{}, dberr.New(dberr.Binder, "table versions start at 1, got %d", n)
	}
	return catalog.VersionRef{Version: uint64(n)}, nil
}

func timestampOf(lit *plan.Literal) (time.Time, error) {
	switch v := lit.Value.(type) {
	case *scalar.Timestamp:
		unit := v.Type.(*arrow.TimestampType).Unit
		return v.Value.ToTime(unit), nil
	case *scalar.Date32:
		return v.Value.ToTime(), nil
	case *scalar.String:
		return functions.ParseTimestamp(v.String())
	}
	return time.Time{}, dberr.New(dberr.Binder, "AT (TIMESTAMP => ...) needs a timestamp, not %s", lit.Type())
}
