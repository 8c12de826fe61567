"""Writes a table with two versions for the time-travel tests, with pinned pylance.

usage: asof_tables.py ROOT

ROOT/h.lance: version 1 holds x = 1, 2, 3 (tagged "first"); version 2 appends 4, 5.
Prints the wall-clock time between the two commits, in nanoseconds since the Unix epoch.
"""
import sys
import time

import lance
import pyarrow as pa


def main():
    uri = f"{sys.argv[1]}/h.lance"
    ds = lance.write_dataset(pa.table({"x": pa.array([1, 2, 3], pa.int64())}), uri)
    ds.tags.create("first", 1)
    time.sleep(0.05)
    between = time.time_ns()
    time.sleep(0.05)
    lance.write_dataset(pa.table({"x": pa.array([4, 5], pa.int64())}), uri, mode="append")
    print(between)


if __name__ == "__main__":
    main()
