package ast

// The statements below are parsed so that clients get precise errors and later work can
// execute them; the binder does not plan them yet.

// ColumnDef is one column of CREATE TABLE or ALTER TABLE ADD COLUMN.
type ColumnDef struct {
	Name       string
	Type       TypeName
	NotNull    bool
	PrimaryKey bool
	Default    Expr // nil when absent
}

// CreateTable is CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name (columns) or ... AS query.
type CreateTable struct {
	Pos         Pos
	Name        []string
	OrReplace   bool
	IfNotExists bool
	Columns     []ColumnDef
	As          Statement // CREATE TABLE ... AS query; nil otherwise
}

// Insert is INSERT INTO name [(columns)] query (VALUES is a query).
type Insert struct {
	Pos     Pos
	Table   []string
	Columns []string
	Query   Statement
}

// Assignment is col = expr in UPDATE ... SET and MERGE.
type Assignment struct {
	Column string
	Value  Expr
}

// Update is UPDATE name [alias] SET assignments [FROM from] [WHERE cond].
type Update struct {
	Pos   Pos
	Table *TableRef
	Set   []Assignment
	From  FromItem
	Where Expr
}

// Delete is DELETE FROM name [alias] [WHERE cond].
type Delete struct {
	Pos   Pos
	Table *TableRef
	Where Expr
}

// Drop is DROP TABLE|VIEW|INDEX [IF EXISTS] name.
type Drop struct {
	Pos      Pos
	Kind     string // "TABLE", "VIEW" or "INDEX"
	Name     []string
	IfExists bool
}

// AlterTable is ALTER TABLE name followed by one action.
type AlterTable struct {
	Pos     Pos
	Table   []string
	Action  string     // "ADD COLUMN", "DROP COLUMN", "RENAME COLUMN" or "RENAME TO"
	Column  *ColumnDef // ADD COLUMN
	Name    string     // the column dropped or renamed
	NewName string     // RENAME ... TO
}

// CreateIndex is CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table [USING method] (cols).
type CreateIndex struct {
	Pos         Pos
	Name        string
	Table       []string
	Unique      bool
	IfNotExists bool
	Using       string
	Columns     []string
}

// MergeAction is one WHEN clause of MERGE.
type MergeAction struct {
	Matched bool
	Cond    Expr   // AND cond; nil when absent
	Kind    string // "UPDATE", "DELETE", "INSERT" or "DO NOTHING"
	Set     []Assignment
	Columns []string // INSERT (columns)
	Values  []Expr   // INSERT VALUES (...)
}

// Merge is MERGE INTO target USING source ON cond WHEN ... THEN ....
type Merge struct {
	Pos     Pos
	Target  *TableRef
	Source  FromItem
	On      Expr
	Actions []MergeAction
}

func (*CreateTable) stmt() {}
func (*Insert) stmt()      {}
func (*Update) stmt()      {}
func (*Delete) stmt()      {}
func (*Drop) stmt()        {}
func (*AlterTable) stmt()  {}
func (*CreateIndex) stmt() {}
func (*Merge) stmt()       {}

// Position implements Statement.
func (s *CreateTable) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Insert) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Update) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Delete) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Drop) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *AlterTable) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *CreateIndex) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Merge) Position() Pos { return s.Pos }
