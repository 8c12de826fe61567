"""pylance side of stable_rowid_test.go (stable row ids, enable_stable_row_ids=True).

usage: stable_rowids.py create|read|write <dataset uri>
  create: a new dataset (k int64 not null, v string; k = 0..19, 8 rows per file)
  read:   prints {version: [[_rowid, k, v], ...] sorted by _rowid} for every version
  write:  pylance keeps writing after flightd: append, delete, update, compaction
          (new rows get 0 in columns added after creation)
"""
import json
import sys

import lance
import pyarrow as pa

SCHEMA = pa.schema([pa.field("k", pa.int64(), nullable=False), pa.field("v", pa.string())])


def rows(ks, prefix="v"):
    return pa.table({"k": pa.array(ks, pa.int64()), "v": [f"{prefix}{k}" for k in ks]}, schema=SCHEMA)


def main():
    mode, uri = sys.argv[1], sys.argv[2]
    if mode == "create":
        lance.write_dataset(rows(list(range(20))), uri, max_rows_per_file=8, enable_stable_row_ids=True)
    elif mode == "read":
        out = {}
        for v in lance.dataset(uri).versions():
            t = lance.dataset(uri, version=v["version"]).to_table(with_row_id=True)
            r = sorted(zip(t["_rowid"].to_pylist(), t["k"].to_pylist(), t["v"].to_pylist()))
            out[str(v["version"])] = [list(x) for x in r]
        print(json.dumps(out))
    elif mode == "write":
        new = rows([500, 501, 502])
        for f in lance.dataset(uri).schema:  # columns added since creation: zeros
            if f.name not in new.column_names:
                new = new.append_column(f, pa.array([0] * new.num_rows, f.type))
        ds = lance.write_dataset(new, uri, mode="append")
        ds.delete("k = 501 or k = 4")
        ds = lance.dataset(uri)
        ds.update({"v": "'p' || CAST(k AS string)"}, where="k = 6 or k = 500")
        ds = lance.dataset(uri)
        ds.optimize.compact_files(target_rows_per_fragment=1000)
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
