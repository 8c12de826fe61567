"""Generates the data of the kNN benchmark.

usage: gen_knn.py ROWS DIR

DIR/emb.lance (pylance, default data storage version): id int64, vec
fixed_size_list<float32>[128] of standard-normal values (seed 7), 250k rows per file; and
DIR/knn.duckdb with the same rows as table emb (id BIGINT, vec FLOAT[128]). DIR/query.txt
holds the query vector: 128 comma-separated floats.
"""
import os
import sys

import duckdb
import lance
import numpy as np
import pyarrow as pa

DIM = 128


def main():
    rows, out = int(sys.argv[1]), sys.argv[2]
    rng = np.random.default_rng(7)
    vec = rng.standard_normal((rows, DIM)).astype(np.float32)
    table = pa.table({
        "id": np.arange(rows, dtype=np.int64),
        "vec": pa.FixedSizeListArray.from_arrays(pa.array(vec.reshape(-1)), DIM),
    })
    lance.write_dataset(table, os.path.join(out, "emb.lance"), max_rows_per_file=250_000)
    con = duckdb.connect(os.path.join(out, "knn.duckdb"))
    con.register("src", table)
    con.execute("CREATE TABLE emb AS SELECT id, vec::FLOAT[128] AS vec FROM src")
    con.close()
    q = rng.standard_normal(DIM).astype(np.float32)
    with open(os.path.join(out, "query.txt"), "w") as f:
        f.write(",".join(repr(float(x)) for x in q))


if __name__ == "__main__":
    main()
