package ast

// DropIndex is DROP INDEX [IF EXISTS] name [ON table]. Lance index names are per table;
// without ON the binder looks the name up in every table.
type DropIndex struct {
	Pos      Pos
	Name     string
	Table    []string // nil when there is no ON clause
	IfExists bool
}

// AlterIndex is ALTER INDEX name [ON table] action; the only action is "OPTIMIZE".
type AlterIndex struct {
	Pos    Pos
	Name   string
	Table  []string // nil when there is no ON clause
	Action string
}

func (*DropIndex) stmt()  {}
func (*AlterIndex) stmt() {}

// Position implements Statement.
func (s *DropIndex) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *AlterIndex) Position() Pos { return s.Pos }
