"""Query cases and DuckDB-differential comparison shared by the client tests.

Every case is run by flightd (through a real client) and by DuckDB over the very
rows pylance reads from the same dataset; results are compared as Python values
after normalising engine-specific types (DuckDB's sum() is int128/decimal, ...).
"""

from __future__ import annotations

import dataclasses
import decimal
import math
import re

import pyarrow as pa
import pytest


@dataclasses.dataclass(frozen=True)
class QueryCase:
    """One SQL statement; ``{t}`` in ``sql`` is replaced by the table name.

    ordered: the statement's ORDER BY is total, so row order must match exactly;
             otherwise rows are compared as multisets.
    check_names: compare result column names (only when they are unambiguous:
                 plain columns or explicit aliases).
    """

    id: str
    sql: str
    ordered: bool = False
    check_names: bool = True

    def render(self, table: str) -> str:
        """The statement for ``table``."""
        return self.sql.format(t=table)


# Statements the walking skeleton is expected to handle (brief for task D).
CASES = [
    QueryCase("scan_all", "SELECT * FROM {t}"),
    QueryCase("filter_order_limit", "SELECT a, b FROM {t} WHERE a > 5 ORDER BY a LIMIT 10", ordered=True),
    QueryCase("count_star", "SELECT count(*) FROM {t}", check_names=False),
    QueryCase("count_star_filter", "SELECT count(*) FROM {t} WHERE a > 500", check_names=False),
    QueryCase("between_order_desc", "SELECT b, a FROM {t} WHERE a BETWEEN 10 AND 20 ORDER BY a DESC",
              ordered=True),
    QueryCase("aggregates", "SELECT sum(a), min(c), max(b) FROM {t}", check_names=False),
    QueryCase("aggregates_aliased", "SELECT sum(a) AS s, min(c) AS lo, max(b) AS hi, count(c) AS n FROM {t}"),
    QueryCase("group_by_int", "SELECT g, count(*) AS n, sum(a) AS s FROM {t} GROUP BY g ORDER BY g",
              ordered=True),
    QueryCase("group_by_string_nulls", "SELECT b, count(*) AS n FROM {t} GROUP BY b ORDER BY b", ordered=True),
    QueryCase("filter_and_unordered", "SELECT a, c FROM {t} WHERE a < 100 AND c > 0"),
    QueryCase("string_equality", "SELECT a FROM {t} WHERE b = 'name_03'"),
    QueryCase("self_join", "SELECT t1.a, t2.b FROM {t} AS t1 JOIN {t} AS t2 ON t1.a = t2.a + 1 "
              "WHERE t1.a < 50 ORDER BY t1.a", ordered=True),
    QueryCase("window_row_number", "SELECT a, row_number() OVER (PARTITION BY g ORDER BY a) AS rn "
              "FROM {t} WHERE a IS NOT NULL ORDER BY a", ordered=True),
    QueryCase("in_subquery", "SELECT count(*) AS n FROM {t} WHERE a IN (SELECT a * 2 FROM {t} WHERE a < 100)"),
    QueryCase("recursive_cte", "WITH RECURSIVE r(n) AS (SELECT min(a) FROM {t} UNION ALL "
              "SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r ORDER BY n", ordered=True),
    QueryCase("correlated_limit", "SELECT o.a, (SELECT u.b FROM {t} AS u WHERE u.a > o.a "
              "ORDER BY u.a, u.b LIMIT 1) AS nxt FROM {t} AS o"),
]

# Statements the skeleton must reject with a message containing "not supported".
# Move a statement out of this list when the feature lands.
UNSUPPORTED = [
    pytest.param("DROP TABLE t", id="drop_table"),
    pytest.param("SELECT * FROM t ASOF JOIN t AS u ON t.a >= u.a", id="asof_join"),
]

NOT_SUPPORTED_RE = re.compile(r"not supported", re.IGNORECASE)

# Plain source columns and the Arrow types a client may see for them.
SOURCE_TYPES = {
    "a": (pa.int64(),),
    "g": (pa.int64(),),
    "c": (pa.float64(),),
    "b": (pa.string(), pa.large_string()),
}


def normalise(value):
    """Map engine-specific Python values to comparable ones."""
    if isinstance(value, decimal.Decimal):
        if value == value.to_integral_value():
            return int(value)
        return float(value)
    return value


def values_equal(got, want) -> bool:
    """Equality with a tolerance for floats (aggregation order differs)."""
    got, want = normalise(got), normalise(want)
    if isinstance(got, float) or isinstance(want, float):
        if not (isinstance(got, float) and isinstance(want, float)):
            return False  # e.g. count(*) came back as a double
        if math.isnan(got) and math.isnan(want):
            return True
        return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)
    return got == want and type(got) is type(want)


def _sort_key(row):
    return tuple((v is None, normalise(v) if v is not None else 0) for v in row)


def table_rows(table: pa.Table) -> list[tuple]:
    """Rows of an Arrow table as tuples (keeps duplicate column names)."""
    columns = [col.to_pylist() for col in table.columns]
    return list(zip(*columns)) if columns else []


def duckdb_result(con, sql: str) -> tuple[list[str], list[tuple]]:
    """Run ``sql`` on DuckDB: (column names, rows)."""
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return names, cur.fetchall()


def _diff_message(case: QueryCase, sql: str, got_names, got_rows, want_names, want_rows) -> str:
    def head(rows):
        return "\n".join(f"    {r!r}" for r in rows[:20]) + ("\n    ..." if len(rows) > 20 else "")
    return (f"case {case.id}: {sql}\n"
            f"  flightd columns {got_names}, {len(got_rows)} rows:\n{head(got_rows)}\n"
            f"  duckdb  columns {want_names}, {len(want_rows)} rows:\n{head(want_rows)}")


def assert_same_result(case: QueryCase, sql: str, got: pa.Table, duck) -> None:
    """Compare flightd's Arrow result with DuckDB's for the same statement."""
    want_names, want_rows = duckdb_result(duck, sql)
    got_names, got_rows = got.column_names, table_rows(got)
    msg = _diff_message(case, sql, got_names, got_rows, want_names, want_rows)
    assert len(got_names) == len(want_names), "column count differs\n" + msg
    if case.check_names:
        assert got_names == want_names, "column names differ\n" + msg
        for field in got.schema:
            allowed = SOURCE_TYPES.get(field.name)
            if allowed is not None:
                assert field.type in allowed, f"column {field.name}: type {field.type}, want one of {allowed}\n{msg}"
    assert len(got_rows) == len(want_rows), "row count differs\n" + msg
    if not case.ordered:
        got_rows, want_rows = sorted(got_rows, key=_sort_key), sorted(want_rows, key=_sort_key)
    for i, (g, w) in enumerate(zip(got_rows, want_rows)):
        same = all(values_equal(x, y) for x, y in zip(g, w))
        assert same, f"row {i} differs: flightd {g!r} vs duckdb {w!r}\n{msg}"


def xfail_if_not_supported(exc: BaseException, what: str) -> None:
    """Turn a server error saying "not supported" into xfail (with the message); else return."""
    if NOT_SUPPORTED_RE.search(str(exc)):
        pytest.xfail(f"{what}: server says {str(exc).splitlines()[0][:300]}")


def xfail_newer_version_if_not_supported(version: str, exc: BaseException) -> None:
    """Like xfail_if_not_supported, but only for tables newer than data storage 2.0.

    2.0 is what the skeleton must read, so a 2.0 table never xfails.
    """
    if version != "2.0":
        xfail_if_not_supported(exc, f"data_storage_version {version}")
