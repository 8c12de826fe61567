package parse

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/ast"
)

func TestParseIndexDDL(t *testing.T) {
	tests := []struct {
		sql  string
		want ast.Statement
	}{
		{"CREATE INDEX i ON t (a)", &ast.CreateIndex{Name: "i", Table: []string{"t"}, Columns: []string{"a"}}},
		{"CREATE INDEX IF NOT EXISTS i ON main.t (a) USING BITMAP", &ast.CreateIndex{Name: "i", Table: []string{"main", "t"},
			Columns: []string{"a"}, IfNotExists: true, Using: "BITMAP"}},
		{"create index i on t using label_list (l)", &ast.CreateIndex{Name: "i", Table: []string{"t"}, Columns: []string{"l"}, Using: "label_list"}},
		{"DROP INDEX i", &ast.DropIndex{Name: "i"}},
		{"DROP INDEX IF EXISTS i ON main.t", &ast.DropIndex{Name: "i", Table: []string{"main", "t"}, IfExists: true}},
		{"ALTER INDEX i OPTIMIZE", &ast.AlterIndex{Name: "i", Action: "OPTIMIZE"}},
		{"alter index i on t optimize;", &ast.AlterIndex{Name: "i", Table: []string{"t"}, Action: "OPTIMIZE"}},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			got, err := Parse(tc.sql)
			require.NoError(t, err)
			switch g := got.(type) {
			case *ast.CreateIndex:
				g.Pos = ast.Pos{}
			case *ast.DropIndex:
				require.Equal(t, ast.Pos{Line: 1, Column: 1}, g.Pos)
				g.Pos = ast.Pos{}
			case *ast.AlterIndex:
				require.Equal(t, ast.Pos{Line: 1, Column: 1}, g.Pos)
				g.Pos = ast.Pos{}
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseIndexDDLErrors(t *testing.T) {
	tests := []struct{ sql, msg string }{
		{"ALTER INDEX i REBUILD", "ALTER INDEX REBUILD"},
		{"ALTER INDEX i ON t", "ALTER INDEX"},
		{"DROP INDEX i CASCADE", "DROP INDEX ... CASCADE"},
		{"CREATE OR REPLACE INDEX i ON t (a)", "CREATE OR REPLACE INDEX"},
		{"CREATE INDEX i ON t (a) USING BTREE USING BITMAP", "multiple statements"},
		{"DROP INDEX", "syntax error"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := Parse(tc.sql)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}
