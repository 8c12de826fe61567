// Package table reads the Lance table format: manifests (_versions/*.manifest), version
// naming and discovery, tags, feature flags and deletion files.
//
// A Dataset is a directory (object-store prefix) holding one Lance table:
//
//	_versions/{v}.manifest | {u64max-v, 20 digits}.manifest   one manifest per version
//	_deletions/{fragment}-{read_version}-{id}.arrow|.bin       deletion vectors
//	_refs/tags/{tag}.json                                      tags
//	data/*.lance                                               data files (package file)
//
// Latest-version discovery lists _versions/ and takes the largest version; pylance's
// latest_version_hint.json is never trusted (it is not read at all).
//
// Not supported yet: base paths (feature flag 16), branches (tags that name a branch),
// detached versions, writing/committing, and the _rowid/_rowaddr columns of stable row ids
// (datasets with stable row ids are readable; their row-id sequences are decoded on request
// by DecodeRowIDs).
package table
