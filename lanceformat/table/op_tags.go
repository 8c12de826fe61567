package table

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// ErrTagExists means CreateTag found a tag with that name.
var ErrTagExists = errors.New("tag already exists")

// tagFile is the JSON Lance writes to _refs/tags/{name}.json (camelCase keys).
type tagFile struct {
	Branch       *string           `json:"branch"`
	Version      uint64            `json:"version"`
	CreatedAt    string            `json:"createdAt"`
	UpdatedAt    string            `json:"updatedAt"`
	ManifestSize int64             `json:"manifestSize"`
	Metadata     map[string]string `json:"metadata"`
}

// CreateTag creates tag name pointing at version v of the main branch. It fails with
// ErrTagExists if the tag exists and ErrVersionNotFound if the version does not.
func (d *Dataset) CreateTag(ctx context.Context, name string, v uint64) error {
	if !validTagName(name) {
		return fmt.Errorf("%s: create tag %q: %w: invalid name", d.describe(), name, ErrInvalidWrite)
	}
	m, err := d.Checkout(ctx, v)
	if err != nil {
		return fmt.Errorf("%s: create tag %q: %w", d.describe(), name, err)
	}
	size, err := d.store.Size(ctx, m.Path)
	if err != nil {
		return fmt.Errorf("%s: create tag %q: %w", d.describe(), name, err)
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	data, err := json.MarshalIndent(tagFile{Version: v, CreatedAt: now, UpdatedAt: now, ManifestSize: size,
		Metadata: map[string]string{}}, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: create tag %q: %w", d.describe(), name, err)
	}
	err = d.store.PutIfAbsent(ctx, d.Path(tagsDir+name+".json"), data)
	if errors.Is(err, lanceio.ErrAlreadyExists) {
		return fmt.Errorf("%s: create tag %q: %w", d.describe(), name, ErrTagExists)
	}
	if err != nil {
		return fmt.Errorf("%s: create tag %q: %w", d.describe(), name, err)
	}
	return nil
}

// DeleteTag deletes a tag. It fails with ErrTagNotFound if there is no such tag.
func (d *Dataset) DeleteTag(ctx context.Context, name string) error {
	if !validTagName(name) {
		return fmt.Errorf("%s: delete tag %q: %w", d.describe(), name, ErrTagNotFound)
	}
	err := d.store.Delete(ctx, d.Path(tagsDir+name+".json"))
	if errors.Is(err, lanceio.ErrNotFound) {
		return fmt.Errorf("%s: delete tag %q: %w", d.describe(), name, ErrTagNotFound)
	}
	if err != nil {
		return fmt.Errorf("%s: delete tag %q: %w", d.describe(), name, err)
	}
	return nil
}
