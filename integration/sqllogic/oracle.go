package sqllogic

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/slt"
)

// ErrOracle classifies errors DuckDB reported for a statement or query.
var ErrOracle = errors.New("duckdb")

// Change kinds reported by the oracle.
const (
	ChangeCreate    = "create"    // a new table; Batches hold all rows
	ChangeAppend    = "append"    // rows appended; Batches hold only the new rows
	ChangeOverwrite = "overwrite" // the table was rewritten; Batches hold all rows
	ChangeDrop      = "drop"      // the table is gone
)

// Change is one table change made by a setup statement.
type Change struct {
	Table   string
	Kind    string
	Version uint64
	Schema  *arrow.Schema
	// Batches are owned by the receiver of the Change, which must Release them.
	Batches []arrow.RecordBatch
}

// Release releases the change's batches.
func (c *Change) Release() {
	for _, b := range c.Batches {
		b.Release()
	}
	c.Batches = nil
}

// Oracle is one DuckDB session in a duckdb_oracle.py process. It implements slt.Engine.
// One file uses it at a time; Reset starts the next file with a fresh database.
type Oracle struct {
	mem  memory.Allocator
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	errs *bytes.Buffer
	mu   sync.Mutex
}

var _ slt.Engine = (*Oracle)(nil)

// StartOracle starts the oracle script with the given Python interpreter. With lanceRoot
// set, the oracle also writes every table change there as a Lance dataset. Arrow buffers
// of results are allocated from mem.
func StartOracle(python, script, lanceRoot string, mem memory.Allocator) (*Oracle, error) {
	args := []string{script}
	if lanceRoot != "" {
		args = append(args, "--lance-root", lanceRoot)
	}
	cmd := exec.Command(python, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start oracle: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start oracle: %w", err)
	}
	errs := &bytes.Buffer{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start oracle %s: %w", script, err)
	}
	return &Oracle{mem: mem, cmd: cmd, in: in, out: bufio.NewReader(out), errs: errs}, nil
}

// Reset gives the oracle a fresh database (for the next file) and the allocator that
// file's results are decoded with. A non-empty lanceRoot makes the oracle write every table
// change there as a Lance dataset (and report changes without rows).
func (o *Oracle) Reset(ctx context.Context, mem memory.Allocator, lanceRoot string) error {
	if _, err := o.request(ctx, map[string]string{"op": "reset", "lance_root": lanceRoot}); err != nil {
		return err
	}
	o.mem = mem
	return nil
}

// Close ends the oracle process.
func (o *Oracle) Close() error {
	cerr := o.in.Close()
	if err := o.cmd.Wait(); err != nil {
		return fmt.Errorf("oracle exited: %w: %s", err, o.errs.String())
	}
	if cerr != nil {
		return fmt.Errorf("close oracle stdin: %w", cerr)
	}
	return nil
}

type oracleResponse struct {
	Error   string `json:"error"`
	IPC     string `json:"ipc"`
	Changes []struct {
		Table   string `json:"table"`
		Kind    string `json:"kind"`
		Version uint64 `json:"version"`
		IPC     string `json:"ipc"`
	} `json:"changes"`
}

func (o *Oracle) call(ctx context.Context, op, sql string) (*oracleResponse, error) {
	return o.request(ctx, map[string]string{"op": op, "sql": sql})
}

func (o *Oracle) request(ctx context.Context, req map[string]string) (*oracleResponse, error) {
	op := req["op"]
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	line, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("oracle %s: %w", op, err)
	}
	if _, err := o.in.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("oracle %s: write: %w (stderr: %s)", op, err, o.errs.String())
	}
	line, err = o.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("oracle %s: read: %w (stderr: %s)", op, err, o.errs.String())
	}
	var resp oracleResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, fmt.Errorf("oracle %s: decode answer: %w", op, err)
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("%w: %s", ErrOracle, resp.Error)
	}
	return &resp, nil
}

// Apply runs a statement in DuckDB and returns the table changes it made. The caller owns
// the changes and must Release each.
func (o *Oracle) Apply(ctx context.Context, sql string) ([]Change, error) {
	resp, err := o.call(ctx, "exec", sql)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, c := range resp.Changes {
		ch := Change{Table: c.Table, Kind: c.Kind, Version: c.Version}
		if c.IPC != "" {
			ch.Schema, ch.Batches, err = decodeIPC(c.IPC, o.mem)
			if err != nil {
				releaseChanges(changes)
				return nil, fmt.Errorf("oracle change of %s: %w", c.Table, err)
			}
		}
		changes = append(changes, ch)
	}
	return changes, nil
}

func releaseChanges(cs []Change) {
	for i := range cs {
		cs[i].Release()
	}
}

// Exec implements slt.Engine.
func (o *Oracle) Exec(ctx context.Context, sql string) error {
	changes, err := o.Apply(ctx, sql)
	releaseChanges(changes)
	return err
}

// Query implements slt.Engine.
func (o *Oracle) Query(ctx context.Context, sql string) (string, [][]string, error) {
	resp, err := o.call(ctx, "query", sql)
	if err != nil {
		return "", nil, err
	}
	sc, batches, err := decodeIPC(resp.IPC, o.mem)
	if err != nil {
		return "", nil, fmt.Errorf("oracle result: %w", err)
	}
	defer releaseBatches(batches)
	return slt.Types(sc), slt.RenderBatches(batches), nil
}

func releaseBatches(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// decodeIPC reads a base64 Arrow IPC stream; the caller releases the batches.
func decodeIPC(b64 string, mem memory.Allocator) (*arrow.Schema, []arrow.RecordBatch, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, nil, fmt.Errorf("decode base64: %w", err)
	}
	rdr, err := ipc.NewReader(bytes.NewReader(raw), ipc.WithAllocator(mem))
	if err != nil {
		return nil, nil, fmt.Errorf("read ipc stream: %w", err)
	}
	defer rdr.Release()
	var batches []arrow.RecordBatch
	for rdr.Next() {
		b := rdr.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	if err := rdr.Err(); err != nil {
		releaseBatches(batches)
		return nil, nil, fmt.Errorf("read ipc stream: %w", err)
	}
	return rdr.Schema(), batches, nil
}

var setupStatement = regexp.MustCompile(`(?i)^\s*(CREATE|INSERT|UPDATE|DELETE|DROP|ALTER|TRUNCATE)\b`)

// IsSetup reports whether a statement creates or changes data: such statements run in
// DuckDB and reach flightd as table versions.
func IsSetup(sql string) bool { return setupStatement.MatchString(strings.TrimSpace(sql)) }
