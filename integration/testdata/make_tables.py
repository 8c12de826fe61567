"""Writes the walking-skeleton tables with pinned pylance into ROOT.

usage: make_tables.py ROOT

t.lance: 1000 rows, a int64 (shuffled 0..999, every 37th NULL), b utf8, c float64, written
with data storage version 2.0 in two fragments (two appends), so scans cross fragments.
"""
import sys

import lance
import pyarrow as pa

STORAGE_VERSION = "2.0"


def skeleton_table(lo, hi):
    import random

    rnd = random.Random(lo)
    a = list(range(lo, hi))
    rnd.shuffle(a)
    return pa.table(
        {
            "a": pa.array([None if v % 37 == 0 else v for v in a], pa.int64()),
            "b": pa.array([f"s{v % 50:03d}" for v in a], pa.string()),
            "c": pa.array([v * 0.5 if v % 11 else None for v in a], pa.float64()),
        }
    )


def main():
    root = sys.argv[1]
    uri = f"{root}/t.lance"
    lance.write_dataset(skeleton_table(0, 600), uri, data_storage_version=STORAGE_VERSION)
    lance.write_dataset(skeleton_table(600, 1000), uri, mode="append")


if __name__ == "__main__":
    main()
