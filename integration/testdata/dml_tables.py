"""Writes the table the SQL write tests start from.

usage: dml_tables.py ROOT DATA_STORAGE_VERSION   (e.g. 2.0, 2.1, 2.2)

ROOT/items.lance: id int64 NOT NULL (0..29), name utf8 ("n<id>", NULL every 7th row),
price float64 (id * 1.5); 30 rows in three fragments of 10, version 1.
"""
import os
import sys

import lance
import pyarrow as pa


def main():
    root, fmt = sys.argv[1], sys.argv[2]
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("price", pa.float64()),
    ])
    ids = list(range(30))
    tbl = pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": [None if i % 7 == 0 else f"n{i}" for i in ids],
        "price": [i * 1.5 for i in ids],
    }, schema=schema)
    lance.write_dataset(tbl, os.path.join(root, "items.lance"), max_rows_per_file=10,
                        data_storage_version=fmt)


if __name__ == "__main__":
    main()
