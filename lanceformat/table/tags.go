package table

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

const tagsDir = "_refs/tags/"

// Tag is a named pointer to a version.
type Tag struct {
	Name         string
	Version      uint64
	Branch       string // "" for the main branch
	ManifestSize int64  // 0 if not recorded
}

// validTagName rejects names that would escape _refs/tags/.
func validTagName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\\") && name != "." && name != ".." &&
		!strings.HasPrefix(name, ".")
}

// DecodeTag decodes a tag file. Lance writes camelCase keys (version, branch, manifestSize);
// snake_case (manifest_size) is accepted too. Errors wrap ErrCorruptFile.
func DecodeTag(p string, data []byte) (Tag, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Tag{}, fmt.Errorf("tag %s: %w: %w", p, ErrCorruptFile, err)
	}
	t := Tag{Name: strings.TrimSuffix(path.Base(p), ".json")}
	v, ok := raw["version"]
	if !ok {
		return Tag{}, fmt.Errorf("tag %s: %w: no version", p, ErrCorruptFile)
	}
	if err := json.Unmarshal(v, &t.Version); err != nil || t.Version == 0 {
		return Tag{}, fmt.Errorf("tag %s: %w: bad version %s", p, ErrCorruptFile, v)
	}
	if b, ok := raw["branch"]; ok && string(b) != "null" {
		if err := json.Unmarshal(b, &t.Branch); err != nil {
			return Tag{}, fmt.Errorf("tag %s: %w: bad branch %s", p, ErrCorruptFile, b)
		}
	}
	for _, k := range []string{"manifestSize", "manifest_size"} {
		if s, ok := raw[k]; ok && string(s) != "null" {
			if err := json.Unmarshal(s, &t.ManifestSize); err != nil {
				return Tag{}, fmt.Errorf("tag %s: %w: bad %s %s", p, ErrCorruptFile, k, s)
			}
		}
	}
	return t, nil
}

// Tag reads one tag. It fails with ErrTagNotFound if there is no such tag.
func (d *Dataset) Tag(ctx context.Context, name string) (Tag, error) {
	if !validTagName(name) {
		return Tag{}, fmt.Errorf("%s: tag %q: %w", d.describe(), name, ErrTagNotFound)
	}
	p := d.Path(tagsDir + name + ".json")
	size, err := d.store.Size(ctx, p)
	if errors.Is(err, lanceio.ErrNotFound) {
		return Tag{}, fmt.Errorf("%s: tag %q: %w", d.describe(), name, ErrTagNotFound)
	}
	if err != nil {
		return Tag{}, fmt.Errorf("%s: read tag %q: %w", d.describe(), name, err)
	}
	data, err := d.store.ReadRange(ctx, p, 0, size)
	if err != nil {
		return Tag{}, fmt.Errorf("%s: read tag %q: %w", d.describe(), name, err)
	}
	return DecodeTag(p, data)
}

// Tags lists all tags, sorted by name.
func (d *Dataset) Tags(ctx context.Context) ([]Tag, error) {
	objs, err := d.store.List(ctx, d.Path(tagsDir))
	if err != nil {
		return nil, fmt.Errorf("%s: list tags: %w", d.describe(), err)
	}
	var out []Tag
	for _, o := range objs {
		name, ok := strings.CutSuffix(path.Base(o.Path), ".json")
		if !ok || path.Dir(o.Path) != path.Clean(d.Path(tagsDir)) || !validTagName(name) {
			continue
		}
		data, err := d.store.ReadRange(ctx, o.Path, 0, o.Size)
		if err != nil {
			return nil, fmt.Errorf("%s: read tag %q: %w", d.describe(), name, err)
		}
		t, err := DecodeTag(o.Path, data)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CheckoutTag loads the version a tag points at. Tags on branches are not supported yet.
func (d *Dataset) CheckoutTag(ctx context.Context, name string) (*Manifest, error) {
	t, err := d.Tag(ctx, name)
	if err != nil {
		return nil, err
	}
	if t.Branch != "" && t.Branch != "main" {
		return nil, fmt.Errorf("%s: tag %q is on branch %q: not supported yet: branches",
			d.describe(), name, t.Branch)
	}
	m, err := d.Checkout(ctx, t.Version)
	if err != nil {
		return nil, fmt.Errorf("tag %q: %w", name, err)
	}
	return m, nil
}
