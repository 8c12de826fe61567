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
// latest_version_hint.json is never trusted (it is not read at all). On stores that can
// list just the first objects (lanceio.FirstLister) a dataset with V2 names needs only the
// first entries, which are the newest versions.
//
// Base paths (bases.go): files with a base_id live under the manifest's BasePath of that id
// (a registered base, or a shallow clone's source); their stores are opened with the
// Dataset's lanceio.Opener (WithOpener) or the store's own. Every commit and Cleanup work on
// such datasets as in Lance without target_bases: new files go to the dataset's own root,
// base ids and base_paths are kept, Cleanup cleans only the root.
//
// Writing (commit*.go, transaction.go, op_*.go): Dataset.Commit commits an Operation
// (NewAppend, NewOverwrite, NewDelete, NewUpdate, NewRewrite, NewDropColumns,
// NewRenameColumn, NewRestore, NewCreateIndex, and add-columns Merges) with Lance's protocol: transaction
// file, then the manifest (with the transaction inline too) created with PutIfAbsent; a
// lost race is re-checked against the
// winners' transactions and rebased or refused (ErrCommitConflict,
// ErrRetryableCommitConflict). Dataset also has one-call helpers (Create, Append,
// DeleteRows, Update, AddColumns, DropColumns, RenameColumn, Restore, CreateTag, DeleteTag,
// Cleanup).
//
// Datasets with stable row ids (CreateOptions.StableRowIDs, pylance's
// enable_stable_row_ids) are written as Lance 14 does (rowids_write.go): append, overwrite,
// delete, update (UpdateRows: updated rows keep their ids), compaction (ids carried), add,
// drop and rename columns.
//
// Not supported yet: branches (tags that name a branch) and detached versions. Restore and
// index creation on datasets with stable row ids, external row id sequences when a commit
// must decode them (update, compaction), writing new files to a base path
// (Lance's target_bases) or registering bases, legacy (0.1) data files, dropping nested
// fields, and remapping index fragment bitmaps on rewrite are not supported yet either.
package table
