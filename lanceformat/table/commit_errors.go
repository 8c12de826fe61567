package table

import (
	"errors"
	"fmt"
)

// Commit error sentinels. A conflict is either retryable (redo the whole operation on the
// new latest version: re-plan, re-read) or not (the operation can never apply as planned).
var (
	// ErrCommitConflict means a concurrent commit made the operation impossible (for
	// example, an append that raced an overwrite or a restore).
	ErrCommitConflict = errors.New("commit conflict")
	// ErrRetryableCommitConflict means a concurrent commit invalidated what the operation
	// was planned against (for example, a compaction rewrote a fragment it deletes from);
	// re-planning against the latest version may succeed.
	ErrRetryableCommitConflict = errors.New("retryable commit conflict")
	// ErrDatasetExists means a create-only write found the dataset already there.
	ErrDatasetExists = errors.New("dataset already exists")
	// ErrInvalidWrite means the write request itself is invalid (schema mismatch, unknown
	// column, row offset out of range, ...).
	ErrInvalidWrite = errors.New("invalid write")
)

// CommitConflictError describes a conflict between our transaction and a committed one.
// It matches ErrRetryableCommitConflict or ErrCommitConflict with errors.Is, depending on
// Retryable.
type CommitConflictError struct {
	Op           string // our operation ("append", "delete", ...)
	ReadVersion  uint64 // the version our operation was planned against
	TheirOp      string // the committed operation, "" when the race itself was lost too often
	TheirVersion uint64 // the version that committed it
	Retryable    bool
	Reason       string
}

// Error implements error.
func (e *CommitConflictError) Error() string {
	kind := ErrCommitConflict
	if e.Retryable {
		kind = ErrRetryableCommitConflict
	}
	if e.TheirOp == "" {
		return fmt.Sprintf("%s (read version %d): %v: %s", e.Op, e.ReadVersion, kind, e.Reason)
	}
	return fmt.Sprintf("%s (read version %d) vs %s (version %d): %v: %s",
		e.Op, e.ReadVersion, e.TheirOp, e.TheirVersion, kind, e.Reason)
}

// Is makes errors.Is match the right sentinel.
func (e *CommitConflictError) Is(target error) bool {
	if e.Retryable {
		return target == ErrRetryableCommitConflict
	}
	return target == ErrCommitConflict
}
