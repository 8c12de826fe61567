package parse

import (
	"github.com/flightd/flightd/planner/ast"
)

// ddlStatement parses INSERT, UPDATE, DELETE, CREATE TABLE/INDEX, DROP, ALTER TABLE and
// MERGE; ok is false for other statements.
func (p *parser) ddlStatement() (ast.Statement, bool, error) {
	t := p.peek()
	var s ast.Statement
	var err error
	switch t.upper() {
	case "INSERT":
		s, err = p.insert()
	case "UPDATE":
		s, err = p.update()
	case "DELETE":
		s, err = p.deleteStmt()
	case "CREATE":
		s, err = p.create()
	case "DROP":
		s, err = p.drop()
	case "ALTER":
		s, err = p.alter()
	case "MERGE":
		s, err = p.merge()
	default:
		return nil, false, nil
	}
	return s, true, err
}

// qualifiedName parses name[.name...].
func (p *parser) qualifiedName() ([]string, error) {
	var out []string
	for {
		n, err := p.identifier()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if !p.acceptOp(".") {
			return out, nil
		}
	}
}

func (p *parser) insert() (ast.Statement, error) {
	t := p.next() // INSERT
	if p.isKw("OR") {
		return nil, p.notSupported(p.peek(), "INSERT OR REPLACE/IGNORE")
	}
	if err := p.expectKw("INTO"); err != nil {
		return nil, err
	}
	name, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	ins := &ast.Insert{Pos: t.pos, Table: name}
	if p.isOp("(") && !isQueryStart(p.peekAt(1)) {
		if ins.Columns, err = p.nameList(); err != nil {
			return nil, err
		}
	}
	if p.isKw("DEFAULT") {
		return nil, p.notSupported(p.peek(), "INSERT DEFAULT VALUES")
	}
	if ins.Query, err = p.query(); err != nil {
		return nil, err
	}
	if p.isKw("ON") || p.isKw("RETURNING") {
		return nil, p.notSupported(p.peek(), p.peek().upper()+" in INSERT")
	}
	return ins, nil
}

// targetTable parses a DML target: a table with an optional alias.
func (p *parser) targetTable() (*ast.TableRef, error) {
	t := p.peek()
	name, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	ref := &ast.TableRef{Pos: t.pos, Name: name}
	// A time-travel clause parses so that the binder can say why a write cannot have one.
	if ref.At, _, err = p.atClause(); err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw("AS"):
		ref.Alias, err = p.identifier()
	case p.isAliasStart() && !p.isKw("SET") && !p.isKw("USING"):
		ref.Alias, err = p.identifier()
	}
	return ref, err
}

func (p *parser) assignments() ([]ast.Assignment, error) {
	var out []ast.Assignment
	for {
		col, err := p.identifier()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp("="); err != nil {
			return nil, err
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, ast.Assignment{Column: col, Value: v})
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

func (p *parser) update() (ast.Statement, error) {
	t := p.next() // UPDATE
	target, err := p.targetTable()
	if err != nil {
		return nil, err
	}
	u := &ast.Update{Pos: t.pos, Table: target}
	if err := p.expectKw("SET"); err != nil {
		return nil, err
	}
	if u.Set, err = p.assignments(); err != nil {
		return nil, err
	}
	if p.acceptKw("FROM") {
		if u.From, err = p.fromClause(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("WHERE") {
		if u.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return u, p.rejectReturning()
}

func (p *parser) rejectReturning() error {
	if p.isKw("RETURNING") {
		return p.notSupported(p.peek(), "RETURNING")
	}
	return nil
}

func (p *parser) deleteStmt() (ast.Statement, error) {
	t := p.next() // DELETE
	if err := p.expectKw("FROM"); err != nil {
		return nil, err
	}
	target, err := p.targetTable()
	if err != nil {
		return nil, err
	}
	d := &ast.Delete{Pos: t.pos, Table: target}
	if p.isKw("USING") {
		return nil, p.notSupported(p.peek(), "DELETE ... USING")
	}
	if p.acceptKw("WHERE") {
		if d.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return d, p.rejectReturning()
}

// ifClause accepts IF [NOT] EXISTS; not says which form is expected.
func (p *parser) ifClause(not bool) (bool, error) {
	if !p.acceptKw("IF") {
		return false, nil
	}
	if not {
		if err := p.expectKw("NOT"); err != nil {
			return false, err
		}
	}
	return true, p.expectKw("EXISTS")
}

func (p *parser) create() (ast.Statement, error) {
	t := p.next() // CREATE
	orReplace := false
	if p.acceptKw("OR") {
		if err := p.expectKw("REPLACE"); err != nil {
			return nil, err
		}
		orReplace = true
	}
	unique := p.acceptKw("UNIQUE")
	switch {
	case p.acceptKw("INDEX"):
		if orReplace {
			return nil, p.notSupported(p.peek(), "CREATE OR REPLACE INDEX")
		}
		return p.createIndex(t, unique)
	case !unique && p.acceptKw("TABLE"):
		return p.createTable(t, orReplace)
	}
	kind := p.peek().upper()
	if kind == "TEMP" || kind == "TEMPORARY" {
		kind = "TEMPORARY TABLE"
	}
	return nil, p.notSupported(p.peek(), "CREATE "+kind)
}

func (p *parser) createTable(t token, orReplace bool) (ast.Statement, error) {
	ifNot, err := p.ifClause(true)
	if err != nil {
		return nil, err
	}
	name, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	ct := &ast.CreateTable{Pos: t.pos, Name: name, OrReplace: orReplace, IfNotExists: ifNot}
	if p.acceptKw("AS") {
		ct.As, err = p.query()
		return ct, err
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	for {
		if p.isKw("PRIMARY") || p.isKw("UNIQUE") || p.isKw("CONSTRAINT") || p.isKw("FOREIGN") || p.isKw("CHECK") {
			return nil, p.notSupported(p.peek(), "table constraints")
		}
		c, err := p.columnDef()
		if err != nil {
			return nil, err
		}
		ct.Columns = append(ct.Columns, c)
		if !p.acceptOp(",") {
			break
		}
	}
	return ct, p.expectOp(")")
}

// columnDef parses name type [NOT NULL | NULL | PRIMARY KEY | DEFAULT expr]...
func (p *parser) columnDef() (ast.ColumnDef, error) {
	name, err := p.identifier()
	if err != nil {
		return ast.ColumnDef{}, err
	}
	tn, err := p.typeName()
	if err != nil {
		return ast.ColumnDef{}, err
	}
	c := ast.ColumnDef{Name: name, Type: tn}
	for {
		switch {
		case p.acceptKw("NOT"):
			if err := p.expectKw("NULL"); err != nil {
				return c, err
			}
			c.NotNull = true
		case p.acceptKw("NULL"):
		case p.acceptKw("PRIMARY"):
			if err := p.expectKw("KEY"); err != nil {
				return c, err
			}
			c.PrimaryKey = true
		case p.acceptKw("DEFAULT"):
			if c.Default, err = p.unaryExpr(); err != nil {
				return c, err
			}
		case p.isKw("UNIQUE"), p.isKw("CHECK"), p.isKw("REFERENCES"), p.isKw("COLLATE"), p.isKw("GENERATED"):
			return c, p.notSupported(p.peek(), "column constraint "+p.peek().upper())
		default:
			return c, nil
		}
	}
}

func (p *parser) createIndex(t token, unique bool) (ast.Statement, error) {
	ifNot, err := p.ifClause(true)
	if err != nil {
		return nil, err
	}
	name, err := p.identifier()
	if err != nil {
		return nil, err
	}
	if err := p.expectKw("ON"); err != nil {
		return nil, err
	}
	table, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	ci := &ast.CreateIndex{Pos: t.pos, Name: name, Table: table, Unique: unique, IfNotExists: ifNot}
	if p.acceptKw("USING") {
		if ci.Using, err = p.identifier(); err != nil {
			return nil, err
		}
	}
	if ci.Columns, err = p.nameList(); err != nil {
		return nil, err
	}
	if ci.Using == "" && p.acceptKw("USING") { // LanceDB's order: ON t (col) USING type
		if ci.Using, err = p.identifier(); err != nil {
			return nil, err
		}
	}
	if p.isKw("WITH") {
		return nil, p.notSupported(p.peek(), "index options")
	}
	return ci, nil
}

func (p *parser) drop() (ast.Statement, error) {
	t := p.next() // DROP
	kind := p.peek().upper()
	if kind != "TABLE" && kind != "VIEW" && kind != "INDEX" {
		return nil, p.notSupported(p.peek(), "DROP "+kind)
	}
	p.next()
	ifExists, err := p.ifClause(false)
	if err != nil {
		return nil, err
	}
	if kind == "INDEX" {
		return p.dropIndex(t, ifExists)
	}
	name, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	if p.isKw("CASCADE") || p.isKw("RESTRICT") {
		return nil, p.notSupported(p.peek(), "DROP ... "+p.peek().upper())
	}
	return &ast.Drop{Pos: t.pos, Kind: kind, Name: name, IfExists: ifExists}, nil
}

func (p *parser) alter() (ast.Statement, error) {
	t := p.next() // ALTER
	if p.acceptKw("INDEX") {
		return p.alterIndex(t)
	}
	if !p.acceptKw("TABLE") {
		return nil, p.notSupported(p.peek(), "ALTER "+p.peek().upper())
	}
	name, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	a := &ast.AlterTable{Pos: t.pos, Table: name}
	switch {
	case p.acceptKw("ADD"):
		p.acceptKw("COLUMN")
		c, err := p.columnDef()
		if err != nil {
			return nil, err
		}
		a.Action, a.Column = "ADD COLUMN", &c
	case p.acceptKw("DROP"):
		p.acceptKw("COLUMN")
		a.Action = "DROP COLUMN"
		a.Name, err = p.identifier()
	case p.acceptKw("RENAME"):
		if p.acceptKw("TO") {
			a.Action = "RENAME TO"
			a.NewName, err = p.identifier()
			break
		}
		p.acceptKw("COLUMN")
		a.Action = "RENAME COLUMN"
		if a.Name, err = p.identifier(); err != nil {
			return nil, err
		}
		if err := p.expectKw("TO"); err != nil {
			return nil, err
		}
		a.NewName, err = p.identifier()
	default:
		return nil, p.notSupported(p.peek(), "ALTER TABLE "+p.peek().upper())
	}
	return a, err
}

func (p *parser) merge() (ast.Statement, error) {
	t := p.next() // MERGE
	if err := p.expectKw("INTO"); err != nil {
		return nil, err
	}
	target, err := p.targetTable()
	if err != nil {
		return nil, err
	}
	m := &ast.Merge{Pos: t.pos, Target: target}
	if err := p.expectKw("USING"); err != nil {
		return nil, err
	}
	if m.Source, err = p.tablePrimary(); err != nil {
		return nil, err
	}
	if err := p.expectKw("ON"); err != nil {
		return nil, err
	}
	if m.On, err = p.expr(); err != nil {
		return nil, err
	}
	for p.isKw("WHEN") {
		a, err := p.mergeAction()
		if err != nil {
			return nil, err
		}
		m.Actions = append(m.Actions, a)
	}
	if len(m.Actions) == 0 {
		return nil, p.syntaxError(p.peek())
	}
	return m, nil
}

func (p *parser) mergeAction() (ast.MergeAction, error) {
	p.next() // WHEN
	a := ast.MergeAction{Matched: !p.acceptKw("NOT")}
	if err := p.expectKw("MATCHED"); err != nil {
		return a, err
	}
	var err error
	if p.acceptKw("AND") {
		if a.Cond, err = p.expr(); err != nil {
			return a, err
		}
	}
	if err := p.expectKw("THEN"); err != nil {
		return a, err
	}
	switch {
	case a.Matched && p.acceptKw("UPDATE"):
		a.Kind = "UPDATE"
		if err := p.expectKw("SET"); err != nil {
			return a, err
		}
		a.Set, err = p.assignments()
	case a.Matched && p.acceptKw("DELETE"):
		a.Kind = "DELETE"
	case !a.Matched && p.acceptKw("INSERT"):
		a.Kind = "INSERT"
		if p.isOp("(") {
			if a.Columns, err = p.nameList(); err != nil {
				return a, err
			}
		}
		if err := p.expectKw("VALUES"); err != nil {
			return a, err
		}
		if err := p.expectOp("("); err != nil {
			return a, err
		}
		if a.Values, err = p.exprList(); err != nil {
			return a, err
		}
		err = p.expectOp(")")
	case p.acceptKw("DO"):
		a.Kind = "DO NOTHING"
		err = p.expectKw("NOTHING")
	default:
		err = p.syntaxError(p.peek())
	}
	return a, err
}
