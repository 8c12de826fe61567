"""The DuckDB side of flightd's sqllogictest harness.

One process serves one test file at a time: a fresh in-memory DuckDB database, driven by
JSON lines on stdin, one answer per request on stdout; "reset" starts the next file.

  {"op": "exec", "sql": ...}   run a statement. A statement that changes a table answers
                               with the change, so the harness can give flightd the same data:
                               {"changes": [{"table", "kind", "version", "ipc"}]}
                               kind is create, append (ipc holds only the new rows),
                               overwrite (ipc holds the whole table) or drop.
  {"op": "query", "sql": ...}  run a query: {"ipc": <base64 Arrow IPC stream>}
  {"op": "reset"}              drop everything: a fresh database for the next file
                               (optionally with "lance_root": a new --lance-root)
  any failure                  {"error": "<DuckDB's message>"}

Versions follow Lance: creating a table makes version 1 and every later change adds one
(CREATE OR REPLACE of an existing table is an overwrite and keeps the history; DROP TABLE
deletes it, so a table created again starts at version 1).
Each version is kept as a DuckDB table __v_<table>_<n>, and "<table> AT (VERSION => n)" in
a query is rewritten to read it, which is how DuckDB (which has no time travel over plain
tables) answers time-travel queries.

With --lance-root DIR every change is also written to DIR/<table>.lance with pylance
(create, append, overwrite), so a flightd serving DIR sees the same versions.
"""
import argparse
import base64
import json
import os
import re
import shutil
import sys

import duckdb
import pyarrow as pa

TARGET = re.compile(
    r"""^\s*(?:
        (?P<create>CREATE\s+(?P<replace>OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?)
      | (?P<insert>INSERT\s+(?:OR\s+\w+\s+)?INTO\s+)
      | (?P<update>UPDATE\s+|DELETE\s+FROM\s+|ALTER\s+TABLE\s+|TRUNCATE\s+(?:TABLE\s+)?)
      | (?P<drop>DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?)
    )"?(?P<name>[A-Za-z_][A-Za-z0-9_]*)"?""",
    re.IGNORECASE | re.VERBOSE,
)
MUTATING = re.compile(r"^\s*(CREATE|INSERT|UPDATE|DELETE|DROP|ALTER|TRUNCATE|COPY|ATTACH)\b", re.IGNORECASE)

TIME_TRAVEL = re.compile(
    r"\b(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s+"
    r"(?:AT\s*\(\s*VERSION\s*=>\s*(?P<v1>\d+)\s*\)|FOR\s+VERSION\s+AS\s+OF\s+(?P<v2>\d+)|VERSION\s+AS\s+OF\s+(?P<v3>\d+))",
    re.IGNORECASE,
)
NOT_ALIAS = {
    "WHERE", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "ON", "USING", "GROUP",
    "ORDER", "LIMIT", "OFFSET", "UNION", "INTERSECT", "EXCEPT", "HAVING", "WINDOW", "QUALIFY",
    "SEMI", "ANTI", "POSITIONAL", "ASOF", "LATERAL",
}


class Oracle:
    def __init__(self, lance_root):
        self.con = duckdb.connect()
        self.con.execute("SET threads TO 1")
        self.lance_root = lance_root
        self.versions = {}  # table -> latest version
        self.data = {}  # table -> latest pyarrow table

    def table(self, name):
        return self.con.sql(f'SELECT * FROM "{name}"').to_arrow_table()

    def exec(self, sql):
        m = TARGET.match(sql)
        if m is None:
            if MUTATING.match(sql):
                raise ValueError("not supported by the sqllogic harness: " + sql.split("\n")[0])
            self.con.execute(sql)
            return []
        name = m.group("name")
        existed = name in self.versions
        self.con.execute(sql)
        if m.group("drop"):
            return self.drop(name)
        new = self.table(name)
        if m.group("create"):
            if not existed:
                return [self.commit(name, "create", new)]
            if not m.group("replace"):
                return []  # CREATE TABLE IF NOT EXISTS over an existing table
            return [self.commit(name, "overwrite", new)]  # history kept, as a Lance overwrite
        old = self.data[name]
        if m.group("insert") and new.num_rows >= old.num_rows and new.slice(0, old.num_rows).equals(old):
            return [self.commit(name, "append", new, new.slice(old.num_rows))]
        return [self.commit(name, "overwrite", new)]

    def drop(self, name):
        for v in range(1, self.versions.pop(name, 0) + 1):
            self.con.execute(f'DROP TABLE IF EXISTS "__v_{name}_{v}"')
        self.data.pop(name, None)
        if self.lance_root:
            shutil.rmtree(os.path.join(self.lance_root, name + ".lance"), ignore_errors=True)
        return [{"table": name, "kind": "drop", "version": 0}]

    def commit(self, name, kind, full, rows=None):
        rows = full if rows is None else rows
        version = self.versions.get(name, 0) + 1
        self.versions[name] = version
        self.data[name] = full
        self.con.execute(f'CREATE TABLE "__v_{name}_{version}" AS SELECT * FROM "{name}"')
        change = {"table": name, "kind": kind, "version": version}
        if self.lance_root:
            import lance

            mode = {"create": "create", "append": "append", "overwrite": "overwrite"}[kind]
            lance.write_dataset(rows, os.path.join(self.lance_root, name + ".lance"), mode=mode)
        else:
            change["ipc"] = to_ipc(rows)
        return change

    def rewrite_time_travel(self, sql):
        def repl(m):
            name = m.group("name")
            v = m.group("v1") or m.group("v2") or m.group("v3")
            if name not in self.versions or not 1 <= int(v) <= self.versions[name]:
                raise ValueError(f"table {name} has no version {v}")
            rest = sql[m.end():].lstrip()
            word = re.match(r"[A-Za-z_][A-Za-z0-9_]*", rest)
            has_alias = word is not None and word.group(0).upper() not in NOT_ALIAS
            return f'"__v_{name}_{v}"' + ("" if has_alias else f' AS "{name}"')

        return TIME_TRAVEL.sub(repl, sql)

    def query(self, sql):
        result = self.con.sql(self.rewrite_time_travel(sql))
        if result is None:
            raise ValueError("not a query: " + sql.split("\n")[0])
        return to_ipc(result.to_arrow_table())


def to_ipc(table):
    if isinstance(table, pa.RecordBatchReader):
        table = table.read_all()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return base64.b64encode(sink.getvalue().to_pybytes()).decode("ascii")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lance-root", default="")
    args = ap.parse_args()
    oracle = Oracle(args.lance_root)
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "exec":
                resp = {"changes": oracle.exec(req["sql"])}
            elif req["op"] == "reset":
                oracle = Oracle(req.get("lance_root", args.lance_root))
                resp = {}
            elif req["op"] == "query":
                resp = {"ipc": oracle.query(req["sql"])}
            else:
                resp = {"error": "unknown op " + req["op"]}
        except Exception as e:  # every DuckDB error is an answer, not a crash
            resp = {"error": str(e)}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
