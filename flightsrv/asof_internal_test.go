package flightsrv

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	flightpb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner"
)

func TestVersionDefaultsFromHeaders(t *testing.T) {
	jan1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		headers []string
		want    planner.DefaultVersions
		err     string
	}{
		{"none", nil, planner.DefaultVersions{}, ""},
		{"unrelated headers", []string{"x-flightd-as-of", "nonsense", "database", "x"}, planner.DefaultVersions{}, ""},
		{"as of RFC 3339", []string{"flightd-as-of", "2026-01-01T00:00:00Z"}, planner.DefaultVersions{AsOf: jan1}, ""},
		{"as of with offset", []string{"flightd-as-of", "2026-01-01T02:00:00+02:00"}, planner.DefaultVersions{AsOf: jan1}, ""},
		{"as of SQL style", []string{"flightd.as_of", "2026-01-01 00:00:00.5"}, planner.DefaultVersions{AsOf: jan1.Add(500 * time.Millisecond)}, ""},
		{"as of date", []string{"flightd-as-of", "2026-01-01"}, planner.DefaultVersions{AsOf: jan1}, ""},
		{"table version", []string{"flightd-version-my_t", "3"}, planner.DefaultVersions{Tables: map[string]catalog.VersionRef{"my_t": {Version: 3}}}, ""},
		{"table tag", []string{"flightd.version.t", "prod"}, planner.DefaultVersions{Tables: map[string]catalog.VersionRef{"t": {Tag: "prod"}}}, ""},
		{"last value wins", []string{"flightd-as-of", "2020-01-01", "flightd-as-of", "2026-01-01"}, planner.DefaultVersions{AsOf: jan1}, ""},
		{"bad timestamp", []string{"flightd-as-of", "yesterday"}, planner.DefaultVersions{}, "header flightd-as-of"},
		{"version zero", []string{"flightd-version-t", "0"}, planner.DefaultVersions{}, "start at 1"},
		{"empty version", []string{"flightd-version-t", " "}, planner.DefaultVersions{}, "empty version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs(tc.headers...))
			got, err := versionDefaults(ctx)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.Equal(t, codes.InvalidArgument, statusOf(err).Code())
				return
			}
			require.NoError(t, err)
			require.True(t, tc.want.AsOf.Equal(got.AsOf), "as of %v, want %v", got.AsOf, tc.want.AsOf)
			require.Equal(t, tc.want.Tables, got.Tables)
		})
	}
}

func TestCheckSessionOption(t *testing.T) {
	val := func(v any) *flight.SessionOptionValue {
		o, err := flight.NewSessionOptionValue(v)
		require.NoError(t, err)
		return &o
	}
	cases := []struct {
		name string
		v    *flight.SessionOptionValue
		ok   bool
		kind flightpb.SetSessionOptionsResult_ErrorValue
	}{
		{"catalog", val(CatalogName), true, 0},
		{"catalog", val("other"), false, flight.SetSessionOptionsResultErrorInvalidValue},
		{"flightd.as_of", val("2026-01-01T00:00:00Z"), true, 0},
		{"flightd.as_of", val("not a time"), false, flight.SetSessionOptionsResultErrorInvalidValue},
		{"flightd.as_of", val(int64(5)), false, flight.SetSessionOptionsResultErrorInvalidValue},
		{"flightd.version.t", val(int64(2)), true, 0},
		{"flightd.version.t", val("prod"), true, 0},
		{"flightd.version.t", val(int64(-1)), false, flight.SetSessionOptionsResultErrorInvalidValue},
		{"flightd.version.t", val(true), false, flight.SetSessionOptionsResultErrorInvalidValue},
		{"flightd.version.", val("1"), false, flight.SetSessionOptionsResultErrorInvalidName},
		{"color", val("blue"), false, flight.SetSessionOptionsResultErrorInvalidName},
	}
	for _, tc := range cases {
		kind := checkSessionOption(tc.name, tc.v)
		if tc.ok {
			require.Negative(t, int(kind), "%s=%v", tc.name, tc.v)
		} else {
			require.Equal(t, tc.kind, kind, "%s=%v", tc.name, tc.v)
		}
	}
}
