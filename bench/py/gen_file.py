"""Writes the Lance file decode benchmark's data file with pinned pylance.

usage: gen_file.py ROWS PATH

One Lance data file, format 2.1 (LanceFileWriter), columns: id int64 (0..ROWS-1), x float64,
s utf8 (short varied strings), v fixed_size_list<float32>[128]. Written in batches of 64Ki
rows so memory stays flat; deterministic (seeded).
"""
import sys

import numpy as np
import pyarrow as pa
from lance.file import LanceFileWriter

DIM = 128
BATCH = 1 << 16

SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("x", pa.float64()),
        ("s", pa.string()),
        ("v", pa.list_(pa.float32(), DIM)),
    ]
)


def batch(rng, lo, hi):
    n = hi - lo
    ids = np.arange(lo, hi, dtype=np.int64)
    words = np.array(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"])
    s = [f"{words[i % 6]}-{i * 2654435761 % 100000}" for i in range(lo, hi)]
    v = rng.standard_normal(n * DIM, dtype=np.float32)
    return pa.record_batch(
        [
            pa.array(ids),
            pa.array(rng.standard_normal(n)),
            pa.array(s, pa.string()),
            pa.FixedSizeListArray.from_arrays(pa.array(v), DIM),
        ],
        schema=SCHEMA,
    )


def main():
    rows, path = int(sys.argv[1]), sys.argv[2]
    rng = np.random.default_rng(42)
    with LanceFileWriter(path, SCHEMA, version="2.1") as w:
        for lo in range(0, rows, BATCH):
            w.write_batch(batch(rng, lo, min(rows, lo + BATCH)))


if __name__ == "__main__":
    main()
