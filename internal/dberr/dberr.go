// Package dberr classifies user-facing errors into DuckDB-style categories (Parser, Binder,
// Catalog, ...). The planner and the executor create them; flightsrv maps each kind to one
// gRPC status code, in one place.
package dberr

import (
	"errors"
	"fmt"
)

// Kind is an error category.
type Kind int

// The error kinds, after DuckDB's exception types.
const (
	Internal       Kind = iota // a bug: an impossible state
	Parser                     // SQL that does not parse
	Binder                     // names, types or functions that do not resolve
	Catalog                    // a table, version or tag that does not exist
	NotImplemented             // valid SQL or plans that flightd does not support yet
	Conversion                 // a cast that fails
	OutOfRange                 // overflow, division by zero where it errors, bad dates
	InvalidInput               // a malformed request (Substrait plan, parameter, ...)
	OutOfMemory                // a query's memory reservation was refused
	IO                         // storage failed
	Constraint                 // a write would violate a constraint or conflicts with another commit
)

var kindNames = [...]string{
	Internal: "Internal", Parser: "Parser", Binder: "Binder", Catalog: "Catalog",
	NotImplemented: "Not implemented", Conversion: "Conversion", OutOfRange: "Out of Range",
	InvalidInput: "Invalid Input", OutOfMemory: "Out of Memory", IO: "IO", Constraint: "Constraint",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Error is a classified error. Its message starts with the category, as DuckDB's do
// ("Binder Error: column "x" not found").
type Error struct {
	Kind Kind
	Msg  string
	// Pos is the 1-based line and column in the SQL text the error refers to; 0 when unknown.
	Line, Column int
	Err          error // an optional cause
}

func (e *Error) Error() string {
	s := e.Kind.String() + " Error: " + e.Msg
	if e.Line > 0 {
		s += fmt.Sprintf(" (line %d, column %d)", e.Line, e.Column)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an error of kind k with a formatted message.
func New(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an error of kind k with a message and a cause.
func Wrap(k Kind, err error, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...), Err: err}
}

// At returns e with a source position set.
func (e *Error) At(line, column int) *Error {
	e.Line, e.Column = line, column
	return e
}

// NotSupported is the error for a construct flightd does not support yet. The message names
// the construct: "not supported yet: <what>".
func NotSupported(what string) *Error {
	return New(NotImplemented, "not supported yet: %s", what)
}

// KindOf returns the kind of the first *Error in err's chain, and false if there is none.
func KindOf(err error) (Kind, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind, true
	}
	return Internal, false
}
