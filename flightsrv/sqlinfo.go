package flightsrv

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"

	"github.com/flightd/flightd/catalog"
)

// latest is the version reference for metadata calls: they describe the newest version.
var latest = catalog.VersionRef{}

// sqlInfo is one SqlInfo value. The Go type decides the union member clients read, and the
// JDBC driver casts each id to a fixed Java type, so the types below follow what it expects:
// string, bool, []string, map[int32][]int32, int32 (bitmasks and enums) and int64 (limits,
// and 562, which JDBC reads as a Long).
type sqlInfo struct {
	id  uint32
	val any
}

// sqlInfos returns every SqlInfo value flightd reports. They describe what flightd really
// supports today: bulk ingestion, Substrait plans, no transactions.
func sqlInfos(version string) []sqlInfo {
	const (
		none int32 = 0
	)
	infos := []sqlInfo{
		{0, "flightd"}, {1, version}, {2, "18.8.0"},
		{3, false}, // not read only: ingest writes
		{4, true},  // SQL
		{5, true},  // Substrait (CommandStatementSubstraitPlan)
		{6, substraitMinVersion}, {7, substraitMaxVersion},
		{8, none},  // transactions: none
		{9, true},  // CancelFlightInfo (cancel.go)
		{10, true}, // bulk ingestion
		{11, false},
		{100, int32(0)}, {101, int32(0)},
		{500, false}, {501, false}, {502, false},
		{503, int64(3)}, // identifier case: case insensitive
		{504, `"`},
		{505, int64(1)}, // quoted identifier case: case sensitive
		{506, true},
		{507, int64(1)}, // nulls sorted at end (DuckDB's default)
		{508, []string{"AT", "VERSION", "TIMESTAMP", "QUALIFY", "EXCLUDE", "REPLACE"}},
		{509, []string{"abs", "ceil", "floor", "round", "sqrt", "power", "ln", "log10", "exp", "mod"}},
		{510, []string{"length", "lower", "upper", "substring", "trim", "concat", "replace", "like"}},
		{511, []string{"coalesce", "nullif"}},
		{512, []string{"current_date", "current_timestamp", "date_part", "date_trunc", "extract"}},
		{513, `\`}, {514, ""},
		{515, true}, {516, true},
		{517, map[int32][]int32{}},
		{518, true}, {519, true}, {520, true}, {521, true},
		{522, int32(1)}, // group by: unrelated
		{523, false}, {524, true},
		{525, int32(1)}, // grammar: minimum
		{526, int32(1)}, // ANSI-92: entry level
		{527, false},
		{528, int32(0)}, // outer joins: unsupported (so far)
		{529, "schema"}, {530, "procedure"}, {531, "catalog"},
		{532, true},
		{533, int32(0)}, {534, int32(0)}, {535, int32(0)},
		{536, false}, {537, false},
		{538, int32(0)}, {539, false}, {540, int32(0)},
		{556, false},
		{562, int64(0)}, // default isolation: none
		{563, false},
		{564, int32(0)},
		{565, false}, {566, false},
		{567, int32(1)}, // result sets: forward only
		{568, int32(0)}, {569, int32(0)}, {570, int32(0)}, {571, int32(0)},
		{572, false}, {573, false}, {574, false}, {575, false}, {576, false},
	}
	for id := uint32(541); id <= 561; id++ {
		if id != 556 {
			infos = append(infos, sqlInfo{id, int64(0)}) // 0: no known limit
		}
	}
	return infos
}

// registerSqlInfo registers every SqlInfo value with the base server.
func (s *Server) registerSqlInfo(version string) error {
	if version == "" {
		version = "dev"
	}
	s.sqlInfoIDs = map[uint32]bool{}
	for _, in := range sqlInfos(version) {
		if err := s.RegisterSqlInfo(flightsql.SqlInfo(in.id), in.val); err != nil {
			return fmt.Errorf("register sql info %d: %w", in.id, err)
		}
		s.sqlInfoIDs[in.id] = true
	}
	return nil
}

// DoGetSqlInfo answers the known ids among those asked for and skips the others: the base
// server's NotFound for an unknown id makes ADBC's GetInfo fail.
func (s *Server) DoGetSqlInfo(ctx context.Context, cmd flightsql.GetSqlInfo) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	asked := cmd.GetInfo()
	if len(asked) == 0 {
		return s.BaseServer.DoGetSqlInfo(ctx, cmd)
	}
	known := make([]uint32, 0, len(asked))
	for _, id := range asked {
		if s.sqlInfoIDs[id] {
			known = append(known, id)
		}
	}
	if len(known) == 0 {
		return s.oneBatch(ctx, schema_ref.SqlInfo, func(*array.RecordBuilder) error { return nil })
	}
	return s.BaseServer.DoGetSqlInfo(ctx, sqlInfoIDs(known))
}

// sqlInfoIDs is a GetSqlInfo request for a given list of ids.
type sqlInfoIDs []uint32

func (ids sqlInfoIDs) GetInfo() []uint32 { return ids }
