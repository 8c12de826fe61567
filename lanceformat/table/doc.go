// Package table reads and writes the Lance table format: manifests (_versions/*.manifest),
// version naming and discovery, tags, feature flags, deletion files, transactions and
// commits.
//
// A Dataset is a directory (object-store prefix) holding one Lance table:
//
//	_versions/{v}.manifest | {u64max-v, 20 digits}.manifest   one manifest per version
//	_deletions/{fragment}-{read_version}-{id}.arrow|.bin       deletion vectors
//	_refs/tags/{tag}.json                                      tags
//	_transactions/{read_version}-{uuid}.txn                    one transaction per commit
//	data/*.lance                                               data files (package file)
//
// Latest-version discovery lists _versions/ and takes the largest version; pylance's
// latest_version_hint.json is never trusted (it is not read at all).
//
// Writing (commit*.go, transaction.go, op_*.go): Dataset.Commit commits an Operation
// (NewAppend, NewOverwrite, NewDelete, NewUpdate, NewRewrite, NewDropColumns,
// NewRenameColumn, NewRestore, and add-columns Merges) with Lance's protocol: transaction
// file, then the manifest created with PutIfAbsent; a lost race is re-checked against the
// winners' transactions and rebased or refused (ErrCommitConflict,
// ErrRetryableCommitConflict). Dataset also has one-call helpers (Create, Append,
// DeleteRows, Update, AddColumns, DropColumns, RenameColumn, Restore, CreateTag, DeleteTag,
// Cleanup).
//
// Not supported yet: base paths (feature flag 16), branches (tags that name a branch),
// detached versions, and the _rowid/_rowaddr columns of stable row ids (datasets with
// stable row ids are readable; their row-id sequences are decoded on request by
// DecodeRowIDs). Writing datasets with stable row ids or base paths, legacy (0.1) data
// files, dropping nested fields, and remapping index fragment bitmaps on rewrite are not
// supported yet either.
package table
