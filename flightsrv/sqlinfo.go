package flightsrv

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"

	"github.com/flightd/flightd/catalog"
)

// latest is the version reference for metadata calls: they describe the newest version.
var latest = catalog.VersionRef{}

// registerSqlInfo registers the SqlInfo values flightd reports.
func (s *Server) registerSqlInfo(version string) error {
	if version == "" {
		version = "dev"
	}
	infos := []struct {
		id  flightsql.SqlInfo
		val any
	}{
		{flightsql.SqlInfoFlightSqlServerName, "flightd"},
		{flightsql.SqlInfoFlightSqlServerVersion, version},
		{flightsql.SqlInfoFlightSqlServerArrowVersion, "18.8.0"},
		{flightsql.SqlInfoFlightSqlServerReadOnly, true},
		{flightsql.SqlInfoFlightSqlServerSql, true},
		{flightsql.SqlInfoFlightSqlServerSubstrait, false},
		// No transactions: clients then run in autocommit mode.
		{flightsql.SqlInfoFlightSqlServerTransaction, int32(0)},
		{flightsql.SqlInfoFlightSqlServerCancel, false},
		{flightsql.SqlInfoIdentifierQuoteChar, `"`},
	}
	for _, in := range infos {
		if err := s.RegisterSqlInfo(in.id, in.val); err != nil {
			return fmt.Errorf("register sql info %d: %w", in.id, err)
		}
	}
	return nil
}
