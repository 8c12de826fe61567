package ast

import "strings"

// ddlSQL renders the DDL and DML statements; ok is false for other statements.
func (sf stmtFormatter) ddlSQL(s Statement) (string, bool) {
	switch s := s.(type) {
	case *CreateTable:
		return sf.createTableSQL(s), true
	case *Insert:
		return "INSERT INTO " + sf.nameSQL(s.Table) + sf.columnsSQL(s.Columns) + " " + sf.stmt(s.Query), true
	case *Update:
		out := "UPDATE " + sf.tableSQL(s.Table) + " SET " + sf.assignSQL(s.Set)
		if s.From != nil {
			out += " FROM " + sf.fromSQL(s.From)
		}
		if s.Where != nil {
			out += " WHERE " + sf.expr(s.Where)
		}
		return out, true
	case *Delete:
		out := "DELETE FROM " + sf.tableSQL(s.Table)
		if s.Where != nil {
			out += " WHERE " + sf.expr(s.Where)
		}
		return out, true
	case *Drop:
		out := "DROP " + s.Kind + " "
		if s.IfExists {
			out += "IF EXISTS "
		}
		return out + sf.nameSQL(s.Name), true
	case *AlterTable:
		return sf.alterSQL(s), true
	case *CreateIndex:
		return sf.createIndexSQL(s), true
	case *Merge:
		return sf.mergeSQL(s), true
	}
	return "", false
}

func (sf stmtFormatter) nameSQL(parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = sf.ident(p)
	}
	return strings.Join(out, ".")
}

func (sf stmtFormatter) columnDefSQL(c ColumnDef) string {
	out := sf.ident(c.Name) + " " + c.Type.String()
	if c.NotNull {
		out += " NOT NULL"
	}
	if c.PrimaryKey {
		out += " PRIMARY KEY"
	}
	if c.Default != nil {
		out += " DEFAULT " + sf.expr(c.Default)
	}
	return out
}

func (sf stmtFormatter) createTableSQL(s *CreateTable) string {
	out := "CREATE "
	if s.OrReplace {
		out += "OR REPLACE "
	}
	out += "TABLE "
	if s.IfNotExists {
		out += "IF NOT EXISTS "
	}
	out += sf.nameSQL(s.Name)
	if s.As != nil {
		return out + " AS " + sf.stmt(s.As)
	}
	cols := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		cols[i] = sf.columnDefSQL(c)
	}
	return out + " (" + strings.Join(cols, ", ") + ")"
}

func (sf stmtFormatter) assignSQL(set []Assignment) string {
	parts := make([]string, len(set))
	for i, a := range set {
		parts[i] = sf.ident(a.Column) + " = " + sf.expr(a.Value)
	}
	return strings.Join(parts, ", ")
}

func (sf stmtFormatter) alterSQL(s *AlterTable) string {
	out := "ALTER TABLE " + sf.nameSQL(s.Table) + " "
	switch s.Action {
	case "ADD COLUMN":
		return out + "ADD COLUMN " + sf.columnDefSQL(*s.Column)
	case "DROP COLUMN":
		return out + "DROP COLUMN " + sf.ident(s.Name)
	case "RENAME COLUMN":
		return out + "RENAME COLUMN " + sf.ident(s.Name) + " TO " + sf.ident(s.NewName)
	}
	return out + "RENAME TO " + sf.ident(s.NewName)
}

func (sf stmtFormatter) createIndexSQL(s *CreateIndex) string {
	out := "CREATE "
	if s.Unique {
		out += "UNIQUE "
	}
	out += "INDEX "
	if s.IfNotExists {
		out += "IF NOT EXISTS "
	}
	out += sf.ident(s.Name) + " ON " + sf.nameSQL(s.Table)
	if s.Using != "" {
		out += " USING " + sf.ident(s.Using)
	}
	return out + " " + sf.columnsSQL(s.Columns)
}

func (sf stmtFormatter) mergeSQL(s *Merge) string {
	out := "MERGE INTO " + sf.tableSQL(s.Target) + " USING " + sf.fromSQL(s.Source) + " ON " + sf.expr(s.On)
	for _, a := range s.Actions {
		out += " WHEN "
		if !a.Matched {
			out += "NOT "
		}
		out += "MATCHED"
		if a.Cond != nil {
			out += " AND " + sf.expr(a.Cond)
		}
		out += " THEN "
		switch a.Kind {
		case "UPDATE":
			out += "UPDATE SET " + sf.assignSQL(a.Set)
		case "INSERT":
			out += "INSERT" + sf.columnsSQL(a.Columns) + " VALUES (" + sf.exprList(a.Values) + ")"
		default:
			out += a.Kind
		}
	}
	return out
}
