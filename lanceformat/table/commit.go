package table

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// What this package records as the manifest's writer_version. It is deliberately not
// "lance", so that Lance applies no version-based repairs meant for its own old releases.
const (
	WriterLibrary = "flightd"
	WriterVersion = "0.1.0"
)

// DefaultCommitRetries is how many times Commit rebuilds and retries after losing the race
// for a version (Lance's CommitConfig.num_retries default).
const DefaultCommitRetries = 20

const hintFile = "latest_version_hint.json"

// CommitOptions tunes Commit. The zero value is valid.
type CommitOptions struct {
	// MaxRetries bounds the retries after a lost race (default DefaultCommitRetries).
	MaxRetries int
	// Naming is the manifest naming scheme of a new dataset (default NamingV2, as pylance
	// 14 writes). An existing dataset always keeps its own scheme.
	Naming NamingScheme
	// Properties are recorded as the transaction's transaction_properties.
	Properties map[string]string
}

// buildState is what an Operation builds the next manifest from.
type buildState struct {
	ds      *Dataset
	base    *Manifest // newest committed version; nil for a new dataset
	next    *lancepb.Manifest
	indices []*lancepb.IndexMetadata
	txn     *lancepb.Transaction
}

// baseVersion is the version the next manifest is built on (0 for a new dataset).
func (b *buildState) baseVersion() uint64 {
	if b.base == nil {
		return 0
	}
	return b.base.Version()
}

// Commit commits op, planned against readVersion (0 for a new dataset), as the next
// version, following Lance's protocol: conflict check against every version committed since
// readVersion, deletion/transaction files, then the manifest created with PutIfAbsent under
// the dataset's naming scheme, then latest_version_hint.json (written, never read). When
// another writer wins the race for a version, Commit re-checks and rebuilds on the new
// latest version, with backoff, up to opts.MaxRetries times. Conflicts are returned as
// *CommitConflictError (ErrCommitConflict or ErrRetryableCommitConflict).
func (d *Dataset) Commit(ctx context.Context, readVersion uint64, op Operation, opts *CommitOptions) (*Manifest, error) {
	if opts == nil {
		opts = &CommitOptions{}
	}
	retries := opts.MaxRetries
	if retries <= 0 {
		retries = DefaultCommitRetries
	}
	uuid, _ := newUUID()
	checked := readVersion
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			if err := sleepBackoff(ctx, attempt); err != nil {
				return nil, err
			}
		}
		base, scheme, err := d.latestForCommit(ctx, readVersion, opts.Naming)
		if err != nil {
			return nil, err
		}
		if err := d.checkSince(ctx, op, readVersion, checked, base); err != nil {
			return nil, err
		}
		checked = base.version()
		m, err := d.tryCommit(ctx, op, base.m, uuid, scheme, opts.Properties)
		if errors.Is(err, lanceio.ErrAlreadyExists) {
			continue
		}
		var cce *CommitConflictError
		if errors.As(err, &cce) {
			cce.ReadVersion = readVersion
		}
		if err != nil {
			return nil, err
		}
		d.writeHint(ctx, m.Version())
		return m, nil
	}
	return nil, &CommitConflictError{Op: op.Name(), ReadVersion: readVersion, Retryable: true,
		Reason: fmt.Sprintf("lost the race for the next version %d times", retries+1)}
}

// latest is the newest committed manifest (m nil when there is none) and the listing of
// _versions/ it was found in.
type latest struct {
	m        *Manifest
	versions []VersionInfo
}

func (l latest) version() uint64 {
	if l.m == nil {
		return 0
	}
	return l.m.Version()
}

// latestForCommit loads the newest manifest and the naming scheme to commit under.
func (d *Dataset) latestForCommit(ctx context.Context, readVersion uint64, naming NamingScheme) (latest, NamingScheme, error) {
	vs, err := d.newestVersions(ctx)
	if err != nil {
		return latest{}, 0, err
	}
	if naming == 0 {
		naming = NamingV2
	}
	if len(vs) == 0 {
		if readVersion != 0 {
			return latest{}, 0, fmt.Errorf("%s: commit on version %d: %w", d.describe(), readVersion, ErrVersionNotFound)
		}
		return latest{}, naming, nil
	}
	last := vs[len(vs)-1]
	if readVersion > last.Version {
		return latest{}, 0, fmt.Errorf("%s: commit on version %d, latest is %d: %w",
			d.describe(), readVersion, last.Version, ErrVersionNotFound)
	}
	_, scheme, _ := ParseManifestName(last.Path)
	m, err := d.load(ctx, last.Path, last.Version, last.Size)
	if err != nil {
		return latest{}, 0, err
	}
	return latest{m: m, versions: vs}, scheme, nil
}

// checkSince runs op's conflict check against the transactions of the versions after
// checked up to base, in version order. The transactions are fetched concurrently first
// (commitFetchers at a time): a writer that lost a race against several others must read
// all their transactions, and on an object store each read is a round trip.
func (d *Dataset) checkSince(ctx context.Context, op Operation, readVersion, checked uint64, base latest) error {
	if base.version() <= checked {
		return nil
	}
	theirs := d.fetchTransactions(ctx, op, readVersion, checked+1, base)
	for i, t := range theirs {
		v := checked + 1 + uint64(i)
		err := t.err
		if err == nil {
			err = op.check(t.txn, v)
		}
		var cce *CommitConflictError
		if errors.As(err, &cce) {
			cce.ReadVersion = readVersion
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tryCommit builds the next manifest on base, writes the transaction file and creates the
// manifest. It returns an error wrapping lanceio.ErrAlreadyExists when the race was lost.
func (d *Dataset) tryCommit(ctx context.Context, op Operation, base *Manifest,
	uuid string, scheme NamingScheme, props map[string]string) (*Manifest, error) {
	if err := checkWriterFeatures(base, op.Name()); err != nil {
		return nil, err
	}
	b := &buildState{ds: d, base: base}
	b.start(uuid, props)
	if err := op.build(ctx, b); err != nil {
		return nil, err
	}
	inline := b.next.GetWriterFeatureFlags()&FlagDisableTransactionFile != 0
	if err := b.finish(); err != nil {
		return nil, err
	}
	if !inline {
		name := fmt.Sprintf("%d-%s.txn", b.baseVersion(), uuid)
		data, err := EncodeTransaction(b.txn)
		if err != nil {
			return nil, err
		}
		if err := d.store.Put(ctx, d.Path(transactionsDir+name), data); err != nil {
			return nil, fmt.Errorf("%s: write transaction %s: %w", d.describe(), name, err)
		}
		b.next.TransactionFile = name
	}
	// The transaction also goes inline, as Lance writes it: conflict checks of later
	// writers then read one object per version instead of two.
	data, err := encodeManifestFile(b.next, b.indices, b.txn)
	if err != nil {
		return nil, err
	}
	p := d.Path(versionsDir + ManifestName(scheme, b.next.GetVersion()))
	if err := d.store.PutIfAbsent(ctx, p, data); err != nil {
		return nil, fmt.Errorf("%s: create manifest %s: %w", d.describe(), p, err)
	}
	return DecodeManifest(p, data)
}

// writeHint writes _versions/latest_version_hint.json after a commit, as pylance does. The
// hint is never trusted (a slower committer may overwrite it with an older version), so a
// failure to write it is ignored.
func (d *Dataset) writeHint(ctx context.Context, v uint64) {
	_ = d.store.Put(ctx, d.Path(versionsDir+hintFile), fmt.Appendf(nil, `{"version":%d}`, v))
}

// sleepBackoff waits before retry attempt n (1, 2, ...): a random time up to an exponential
// bound (10 ms doubling, capped at 1 s), so racing writers spread out.
func sleepBackoff(ctx context.Context, n int) error {
	bound := 10 * time.Millisecond << min(n-1, 7)
	bound = min(bound, time.Second)
	t := time.NewTimer(bound/4 + rand.N(bound))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
