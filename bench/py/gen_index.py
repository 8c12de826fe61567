"""Data for the index benchmarks (bench/index_bench_test.go).

usage: gen_index.py ROWS OUTDIR   -> OUTDIR/ix.lance

ix.lance (Lance 2.2, pylance's defaults: 1M rows per fragment):
  version 1: ROWS rows of
    id      int64   0 .. ROWS-1 in order (a primary key)
    cat     utf8    'c0000' .. 'c1999': 2,000 values (about 0.05% of the rows each) spread
                    over every fragment
    v       float64 a pseudo-random value
    payload utf8    'payload-%012d' % id
  version 2: + BTREE id_idx on id
  version 3: + BITMAP cat_idx on cat
Version 1 is the same data without indexes (flightd's "no index" side reads it with AT).
"""
import sys

import lance
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

CHUNK = 1 << 20


def chunks(rows):
    for start in range(0, rows, CHUNK):
        n = min(CHUNK, rows - start)
        ids = np.arange(start, start + n, dtype=np.int64)
        mixed = (ids * 2654435761) % 1000003  # a fixed permutation-like hash
        cat = pc.binary_join_element_wise(
            pa.scalar("c"), pc.utf8_lpad(pc.cast(pa.array(mixed % 2000), pa.string()), 4, "0"), "")
        payload = pc.binary_join_element_wise(
            pa.scalar("payload-"), pc.utf8_lpad(pc.cast(pa.array(ids), pa.string()), 12, "0"), "")
        yield pa.record_batch({"id": pa.array(ids), "cat": cat,
                               "v": pa.array(mixed.astype(np.float64) / 7.0), "payload": payload})


def main():
    rows, out = int(sys.argv[1]), sys.argv[2]
    schema = pa.schema([("id", pa.int64()), ("cat", pa.string()), ("v", pa.float64()),
                        ("payload", pa.string())])
    reader = pa.RecordBatchReader.from_batches(schema, chunks(rows))
    ds = lance.write_dataset(reader, out + "/ix.lance")
    ds.create_scalar_index("id", "BTREE", name="id_idx")
    ds.create_scalar_index("cat", "BITMAP", name="cat_idx")


if __name__ == "__main__":
    main()
