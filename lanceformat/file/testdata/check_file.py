"""Check Lance files written by the Go writer with pylance's file-level reader.

Usage: check_file.py CASES.json

CASES.json is a list of {"name", "lance", "expected"} objects: "lance" is a Lance data file,
"expected" an Arrow IPC file holding the rows the file must contain. For each case one JSON
line {"name", "ok", "error"} is printed: ok is true when lance.file.LanceFileReader reads
the file back with the expected schema (names and types) and the expected values.
"""

import json
import sys
import traceback

import pyarrow as pa
from lance.file import LanceFileReader


def check(case):
    expected = pa.ipc.open_file(case["expected"]).read_all()
    got = LanceFileReader(case["lance"]).read_all(batch_size=777).to_table()
    if got.num_rows != expected.num_rows:
        return "rows: got %d, want %d" % (got.num_rows, expected.num_rows)
    if got.schema.names != expected.schema.names:
        return "names: got %s, want %s" % (got.schema.names, expected.schema.names)
    for name in expected.schema.names:
        gt, wt = got.schema.field(name).type, expected.schema.field(name).type
        if gt != wt:
            return "column %s: type %s, want %s" % (name, gt, wt)
        gv, wv = got.column(name).to_pylist(), expected.column(name).to_pylist()
        if gv != wv:
            for i, (a, b) in enumerate(zip(gv, wv)):
                if a != b:
                    return "column %s row %d: got %r, want %r" % (name, i, a, b)
            return "column %s: values differ" % name
    # Random access through the page/chunk indexes: a few takes.
    n = expected.num_rows
    if n > 0:
        idx = sorted({0, n // 3, n // 2, n - 1})
        took = LanceFileReader(case["lance"]).take_rows(idx).to_table()
        want = expected.take(pa.array(idx, pa.int64()))
        for name in expected.schema.names:
            if took.column(name).to_pylist() != want.column(name).to_pylist():
                return "column %s: take_rows(%s) differs" % (name, idx)
    if n >= 4:
        start, length = n // 4, n // 2
        rr = LanceFileReader(case["lance"]).read_range(start, length).to_table()
        want = expected.slice(start, length)
        for name in expected.schema.names:
            if rr.column(name).to_pylist() != want.column(name).to_pylist():
                return "column %s: read_range(%d, %d) differs" % (name, start, length)
    return None


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    for case in cases:
        try:
            err = check(case)
        except BaseException as e:  # noqa: BLE001 - pyo3 panics are BaseExceptions; keep going
            err = "%s: %s" % (type(e).__name__, e)
            if len(err) > 2000:
                err = err[:2000]
            traceback.print_exc(file=sys.stderr)
        print(json.dumps({"name": case["name"], "ok": err is None, "error": err or ""}), flush=True)


if __name__ == "__main__":
    main()
