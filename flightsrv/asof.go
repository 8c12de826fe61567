package flightsrv

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	flightpb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/session"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner"
)

// Time travel for clients that cannot change their SQL. Two settings, each either a session
// option (SetSessionOptions; ADBC adbc.flight.sql.session.option.<name>, which needs the
// driver's adbc.flight.sql.rpc.with_cookie_middleware=true since sessions live in a cookie) or a request header
// (JDBC: any extra URL property, e.g. jdbc:arrow-flight-sql://h:p/?flightd-as-of=2026-01-01T00:00:00Z;
// ADBC: adbc.flight.sql.rpc.call_header.<name>; pyarrow: FlightCallOptions(headers=...); Go
// database/sql: an extra DSN parameter):
//
//	flightd.as_of          | header flightd-as-of          every table at its newest version
//	                                                         committed at or before the instant
//	flightd.version.<table> | header flightd-version-<table> one table at a version number or tag
//
// Both spellings are accepted in both places. Headers override session options setting by
// setting; a per-table version beats as_of; an AT clause in the SQL beats both. The versions
// are resolved when the statement is planned and pinned in its tickets, so every DoGet reads
// the same snapshot. Timestamps are RFC 3339 (2026-01-01T00:00:00Z), or
// "2026-01-01 00:00:00[.fff]" and "2026-01-01" in UTC.
const (
	OptionAsOf          = "flightd.as_of"
	OptionVersionPrefix = "flightd.version."
	HeaderAsOf          = "flightd-as-of"
	HeaderVersionPrefix = "flightd-version-"
)

// versionSetting classifies a session option or header name: the as-of setting, or a
// per-table version (table is then the table name). ok is false for other names.
func versionSetting(name string) (table string, asOf, ok bool) {
	switch strings.ToLower(name) {
	case OptionAsOf, HeaderAsOf:
		return "", true, true
	}
	for _, prefix := range []string{OptionVersionPrefix, HeaderVersionPrefix} {
		if len(name) > len(prefix) && strings.EqualFold(name[:len(prefix)], prefix) {
			return name[len(prefix):], false, true
		}
	}
	return "", false, false
}

// asOfLayouts are the accepted timestamp forms besides RFC 3339; they are read as UTC.
var asOfLayouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"}

// parseAsOf reads an as-of timestamp.
func parseAsOf(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	for _, layout := range asOfLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a timestamp: use RFC 3339, e.g. 2026-01-01T00:00:00Z", v)
}

// parseTableVersion reads a per-table version: a number ≥ 1 is a version, anything else a tag.
func parseTableVersion(v string) (catalog.VersionRef, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return catalog.VersionRef{}, errors.New("empty version")
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 1 {
			return catalog.VersionRef{}, fmt.Errorf("table versions start at 1, got %d", n)
		}
		return catalog.VersionRef{Version: uint64(n)}, nil
	}
	return catalog.VersionRef{Tag: v}, nil
}

// setVersion applies one setting (name classified by versionSetting) to d.
func setVersion(d *planner.DefaultVersions, name, value string) error {
	table, asOf, _ := versionSetting(name)
	if asOf {
		t, err := parseAsOf(value)
		if err != nil {
			return err
		}
		d.AsOf = t
		return nil
	}
	ref, err := parseTableVersion(value)
	if err != nil {
		return err
	}
	if d.Tables == nil {
		d.Tables = map[string]catalog.VersionRef{}
	}
	d.Tables[strings.ToLower(table)] = ref
	return nil
}

// sessionOptionString is the text of a time-travel session option value (strings, and
// integers for versions).
func sessionOptionString(v *flight.SessionOptionValue) (string, error) {
	switch x := v.GetOptionValue().(type) {
	case *flightpb.SessionOptionValue_StringValue:
		return x.StringValue, nil
	case *flightpb.SessionOptionValue_Int64Value:
		return strconv.FormatInt(x.Int64Value, 10), nil
	}
	return "", errors.New("want a string value")
}

// checkVersionOption validates a time-travel session option.
func checkVersionOption(name string, v *flight.SessionOptionValue) error {
	s, err := sessionOptionString(v)
	if err != nil {
		return err
	}
	return setVersion(&planner.DefaultVersions{}, name, s)
}

// versionDefaults gathers the time-travel settings of a call: its session's options, then
// its headers. A bad header is an INVALID_ARGUMENT error naming it.
func versionDefaults(ctx context.Context) (planner.DefaultVersions, error) {
	var d planner.DefaultVersions
	if sess, err := session.GetSessionFromContext(ctx); err == nil {
		for name, v := range sess.GetSessionOptions() {
			if _, _, ok := versionSetting(name); !ok {
				continue
			}
			s, err := sessionOptionString(v)
			if err == nil {
				err = setVersion(&d, name, s)
			}
			if err != nil {
				return d, dberr.New(dberr.InvalidInput, "session option %s: %v", name, err)
			}
		}
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for name, vals := range md {
		if _, _, ok := versionSetting(name); !ok || len(vals) == 0 {
			continue
		}
		if err := setVersion(&d, name, vals[len(vals)-1]); err != nil {
			return d, dberr.New(dberr.InvalidInput, "header %s: %v", name, err)
		}
	}
	return d, nil
}

// withVersionDefaults returns ctx carrying the call's time-travel settings for the planner.
func withVersionDefaults(ctx context.Context) (context.Context, error) {
	d, err := versionDefaults(ctx)
	if err != nil || d.IsZero() {
		return ctx, err
	}
	return planner.WithDefaultVersions(ctx, d), nil
}

// versionMiddleware puts every call's time-travel settings in its context. It runs inside
// the session middleware, whose session it reads.
func versionMiddleware() flight.ServerMiddleware {
	return flight.ServerMiddleware{
		Unary: func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			ctx, err := withVersionDefaults(ctx)
			if err != nil {
				return nil, err
			}
			return h(ctx, req)
		},
		Stream: func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			ctx, err := withVersionDefaults(ss.Context())
			if err != nil {
				return err
			}
			return h(srv, &ctxStream{ServerStream: ss, ctx: ctx})
		},
	}
}
