"""Appends rows to a Lance dataset with pylance, one commit per row.

Usage: pyappend.py URI FIRST_ID COUNT [STORAGE_OPTIONS_JSON]

Row i has id FIRST_ID+i and name "py-<id>". A failed commit is retried (a commit that
raised did not land); each landed commit prints "COMMIT <id> <version>".
"""
import json
import sys
import time

import lance
import pyarrow as pa


def main():
    uri, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    opts = json.loads(sys.argv[4]) if len(sys.argv) > 4 else None
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
    for i in range(count):
        rid = first + i
        tbl = pa.table({"id": [rid], "name": [f"py-{rid}"]}, schema=schema)
        for attempt in range(50):
            try:
                ds = lance.write_dataset(tbl, uri, mode="append", storage_options=opts)
                break
            except Exception as e:  # a lost race beyond lance's own retries
                if attempt == 49:
                    raise
                print(f"RETRY {rid} {e}", file=sys.stderr)
                time.sleep(0.05)
        print(f"COMMIT {rid} {ds.version}", flush=True)


if __name__ == "__main__":
    main()
