"""Streams a Lance data file through pinned pylance, for the decode benchmark.

usage: read_file.py PATH BATCH_ROWS

Reads every row and column of PATH with LanceFileReader(PATH).read_all(batch_size=BATCH_ROWS)
and iterates its record batches, dropping each (so a 10M-row file is never held whole),
after one small warm-up read that is not timed. Prints one JSON line:
{"seconds": <time of the timed read>, "rows": <rows read>, "bytes": <Arrow bytes>}.
"""
import json
import sys
import time

from lance.file import LanceFileReader


def main():
    path, batch = sys.argv[1], int(sys.argv[2])
    LanceFileReader(path).read_range(0, 1).to_table()  # warm up pylance's runtime
    rows = nbytes = 0
    t0 = time.perf_counter()
    for b in LanceFileReader(path).read_all(batch_size=batch).to_batches():
        rows += b.num_rows
        nbytes += b.nbytes
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "rows": rows, "bytes": nbytes}))


if __name__ == "__main__":
    main()
