"""Writes tables with embedding columns for the vector-distance tests.

usage: vector_tables.py ROOT ORACLE_ROOT   (emb.lance goes to both, half.lance to ROOT only)

emb.lance: id int64; v32 fixed_size_list<float32>[128] (every 13th row NULL); v16f
fixed_size_list<float32>[16] holding float16 values; v8 fixed_size_list<int8>[16]; v64 fixed_size_list<float64>[8].
3000 rows in three fragments (the default data storage version, 2.2).
half.lance: id int64; v16 fixed_size_list<float16>[16], the values of emb.v16f. DuckDB 2.0
cannot read Arrow half floats, so the oracle computes over emb.v16f what flightd computes
over half.v16.
Prints the query vector (128 floats) on stdout.
"""
import os
import sys

import lance
import numpy as np
import pyarrow as pa


def fsl(values, dim, nulls=None):
    flat = pa.array(values.reshape(-1))
    arr = pa.FixedSizeListArray.from_arrays(flat, dim)
    if nulls is None:
        return arr
    return pa.FixedSizeListArray.from_arrays(flat, dim, mask=pa.array(nulls))


def main():
    root, oracle_root = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(42)
    n = 3000
    ids = np.arange(n, dtype=np.int64)
    nulls = ids % 13 == 5
    halves = rng.standard_normal((n, 16)).astype(np.float16)
    table = pa.table({
        "id": ids,
        "v32": fsl(rng.standard_normal((n, 128)).astype(np.float32), 128, nulls),
        "v16f": fsl(halves.astype(np.float32), 16),
        "v8": fsl(rng.integers(-128, 128, (n, 16)).astype(np.int8), 16),
        "v64": fsl(rng.standard_normal((n, 8)), 8),
    })
    for r in (root, oracle_root):
        lance.write_dataset(table, os.path.join(r, "emb.lance"), max_rows_per_file=1000)
    half = pa.table({"id": ids, "v16": fsl(halves, 16)})
    lance.write_dataset(half, os.path.join(root, "half.lance"), max_rows_per_file=1000)
    q = rng.standard_normal(128).astype(np.float32)
    sys.stdout.write(",".join(repr(float(x)) for x in q) + "\n")


if __name__ == "__main__":
    main()
