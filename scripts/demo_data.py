#!/usr/bin/env python3
"""Write a small demo Lance table for `make run` / manual poking at flightd.

    .venv/bin/python scripts/demo_data.py ROOT [--rows N] [--overwrite]

Creates ROOT/demo.lance (served by `flightd serve --root ROOT` as table `demo`)
with the pinned pylance.  The data is deterministic: same rows on every run.

Try:  SELECT city, count(*), sum(amount) FROM demo GROUP BY city ORDER BY city
"""

from __future__ import annotations

import argparse
import datetime
import pathlib
import random
import sys

import lance
import pyarrow as pa

# Lance data storage version for the demo table.  Raise it ("2.1", "2.2") once
# flightd's file reader supports the newer encodings.
DATA_STORAGE_VERSION = "2.0"
TABLE_NAME = "demo"
DEFAULT_ROWS = 300
SEED = 7

CITIES = ["Amsterdam", "Berlin", "Lisbon", "Madrid", "Oslo", "Paris", "Prague", "Vienna"]
PRODUCTS = ["anvil", "bolt", "cable", "drill", "epoxy", "fuse", "gasket", "hinge", "inverter", "jack"]


def demo_table(rows: int, seed: int = SEED) -> pa.Table:
    """Deterministic demo rows: ints, strings, floats and dates, with a few NULLs."""
    rng = random.Random(seed)
    start = datetime.date(2025, 1, 1)
    ids, cities, products, qty, amount, ordered, shipped = [], [], [], [], [], [], []
    for i in range(rows):
        ids.append(i + 1)
        cities.append(rng.choice(CITIES))
        products.append(None if i % 41 == 40 else rng.choice(PRODUCTS))
        qty.append(rng.randint(1, 20))
        amount.append(None if i % 29 == 28 else round(rng.uniform(1.0, 500.0), 2))
        day = start + datetime.timedelta(days=rng.randrange(365))
        ordered.append(day)
        shipped.append(None if i % 7 == 0 else day + datetime.timedelta(days=rng.randint(1, 10)))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "city": pa.array(cities, pa.string()),
        "product": pa.array(products, pa.string()),
        "qty": pa.array(qty, pa.int32()),
        "amount": pa.array(amount, pa.float64()),
        "ordered": pa.array(ordered, pa.date32()),
        "shipped": pa.array(shipped, pa.date32()),
    })


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=pathlib.Path, help="server root folder (created if missing)")
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"row count (default {DEFAULT_ROWS})")
    parser.add_argument("--overwrite", action="store_true", help=f"replace an existing {TABLE_NAME}.lance")
    args = parser.parse_args(argv)
    if args.rows < 0:
        parser.error("--rows must be >= 0")

    args.root.mkdir(parents=True, exist_ok=True)
    path = args.root / f"{TABLE_NAME}.lance"
    if path.exists() and not args.overwrite:
        print(f"demo_data: {path} already exists (use --overwrite)", file=sys.stderr)
        return 1
    table = demo_table(args.rows)
    lance.write_dataset(table, str(path), mode="overwrite" if args.overwrite else "create",
                        data_storage_version=DATA_STORAGE_VERSION)
    print(f"demo_data: wrote {table.num_rows} rows to {path} (data_storage_version {DATA_STORAGE_VERSION})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
