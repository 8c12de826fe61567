// Package lanceformat is the root of the Lance table- and file-format code. It knows nothing
// about SQL, catalogs or object-store products; everything above it sees Lance datasets only
// through catalog/lancecat.
//
//	lanceio            storage interface (ObjectStore) and decorators (CountingStore)
//	encoding           2.0 and 2.1/2.2 page encodings
//	schema             Lance field tree <-> Arrow schema
//	file               Lance v2 data files (2.0, 2.1, 2.2)
//	file/legacy        legacy v1 (pre-2.0) data files, read only
//	table              manifests, versions, tags, feature flags, deletion files, row ids,
//	                   commits (transactions, create-if-absent manifests, rebase and retry)
//	                   and the operations built on them
//	index              scalar indexes in _indices/
//	internal/lancepb   generated protobufs (sources in proto/lance)
//
// Table format supported for reading: manifest trailer 0.1/0.2; V1 and V2 manifest names;
// reader feature flags 1 (deletion files), 2 (stable row ids), 4, 8 and 32. Datasets with
// any other reader flag are refused with table.ErrUnsupportedFeature.
//
// Writing: data files 2.0/2.1/2.2 and commits of every table operation, on datasets without
// stable row ids; on datasets with base paths (flag 16) new files go to the dataset's root.
//
// Not supported yet: writing to a chosen base (Lance's target_bases) or registering bases,
// branches, detached versions, data overlays (flag 64), writing datasets with stable row ids.
//
// This package itself holds only the go:generate directive for the protobufs (gen.go).
package lanceformat
