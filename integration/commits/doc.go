// Package commits holds the multi-process commit tests of issue 4: several OS processes
// (this package's test binary re-executed as writers) and pylance appending to one table at
// the same time, on the local file system and on a real S3-compatible server (versitygw,
// package internal/blobstore/s3server), and crash safety under kill -9 in the middle of
// commits. The package has tests only.
package commits
