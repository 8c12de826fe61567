"""The Python side of flightd's side-by-side benchmarks: a long-lived worker.

usage: peer.py   (then one JSON request per line on stdin, one JSON reply per line on stdout)

Each request names an operation; the worker runs it once and replies with the wall time of
the operation alone (no interpreter start-up, no imports) and a few facts about the result
(rows, bytes) so the Go side can check both engines did the same work. Errors are replied as
{"error": "..."} so the benchmark can report them instead of hiding them.

Operations:
  lance_file_read_all {path}                 pylance LanceFileReader(path).read_all()
  lance_file_take     {path, rows}           pylance LanceFileReader(path).take_rows(rows)
  lance_to_table      {uri, columns}         lance.dataset(uri).to_table(columns=...)
  flightsql           {addr, sql, timeout}   Flight SQL query with pyarrow.flight, every
                                             endpoint fetched, in parallel threads; timeout
                                             in seconds (optional) bounds each call
  flight_doget        {addr, ticket}         one pyarrow.flight DoGet of a raw ticket (hex)
  duckdb              {db, sql, threads}     DuckDB query on a database file (read only)
  duckdb_parquet      {dir, sql, threads}    DuckDB query over views on DIR/<table>.parquet
"""
import concurrent.futures
import json
import os
import sys
import time

import pyarrow.flight as fl

SQL_ANY = "type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"


def varint(n):
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | 0x80 if n else low)
        if not n:
            return bytes(out)


def length_delimited(num, payload):
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def statement_query(sql):
    """Any{type_url, value: CommandStatementQuery{query: sql}}, packed by hand."""
    body = length_delimited(1, sql.encode())
    return length_delimited(1, SQL_ANY.encode()) + length_delimited(2, body)


_clients = {}


def client(addr):
    if addr not in _clients:
        _clients[addr] = fl.FlightClient(f"grpc://{addr}")
    return _clients[addr]


def read_ticket(addr, ticket, options=None):
    return client(addr).do_get(ticket, options).read_all()


def op_flightsql(req):
    cl = client(req["addr"])
    opts = fl.FlightCallOptions(timeout=req.get("timeout"))
    t0 = time.perf_counter()
    info = cl.get_flight_info(fl.FlightDescriptor.for_command(statement_query(req["sql"])), opts)
    eps = info.endpoints
    if len(eps) == 1:
        tables = [read_ticket(req["addr"], eps[0].ticket, opts)]
    else:
        with concurrent.futures.ThreadPoolExecutor(len(eps)) as pool:
            tables = list(pool.map(lambda ep: read_ticket(req["addr"], ep.ticket, opts), eps))
    dt = time.perf_counter() - t0
    return dt, tables


def op_flight_doget(req):
    t0 = time.perf_counter()
    tab = read_ticket(req["addr"], fl.Ticket(bytes.fromhex(req["ticket"])))
    return time.perf_counter() - t0, [tab]


def op_lance_file_read_all(req):
    from lance.file import LanceFileReader

    t0 = time.perf_counter()
    tab = LanceFileReader(req["path"]).read_all().to_table()
    return time.perf_counter() - t0, [tab]


def op_lance_file_take(req):
    from lance.file import LanceFileReader

    t0 = time.perf_counter()
    tab = LanceFileReader(req["path"]).take_rows(req["rows"]).to_table()
    return time.perf_counter() - t0, [tab]


def op_lance_to_table(req):
    import lance

    t0 = time.perf_counter()
    tab = lance.dataset(req["uri"]).to_table(columns=req.get("columns"))
    return time.perf_counter() - t0, [tab]


_duck = {}


def duck(key, setup, threads):
    import duckdb

    if key not in _duck:
        con = setup(duckdb)
        con.execute(f"SET threads = {int(threads)}")
        _duck[key] = con
    return _duck[key]


def op_duckdb(req):
    con = duck(("db", req["db"]), lambda d: d.connect(req["db"], read_only=True), req.get("threads", 2))
    t0 = time.perf_counter()
    tab = con.sql(req["sql"]).to_arrow_table()
    return time.perf_counter() - t0, [tab]


def parquet_views(duckdb, d):
    con = duckdb.connect()
    for name in sorted(os.listdir(d)):
        if name.endswith(".parquet"):
            path = os.path.join(d, name).replace("'", "''")
            con.execute(f"CREATE VIEW {name[:-8]} AS SELECT * FROM read_parquet('{path}')")
    return con


def op_duckdb_parquet(req):
    con = duck(("pq", req["dir"]), lambda d: parquet_views(d, req["dir"]), req.get("threads", 2))
    t0 = time.perf_counter()
    tab = con.sql(req["sql"]).to_arrow_table()
    return time.perf_counter() - t0, [tab]


OPS = {
    "lance_file_read_all": op_lance_file_read_all,
    "lance_file_take": op_lance_file_take,
    "lance_to_table": op_lance_to_table,
    "flightsql": op_flightsql,
    "flight_doget": op_flight_doget,
    "duckdb": op_duckdb,
    "duckdb_parquet": op_duckdb_parquet,
}


def handle(req):
    fn = OPS.get(req.get("op"))
    if fn is None:
        return {"error": f"unknown op {req.get('op')!r}"}
    try:
        dt, tables = fn(req)
    except Exception as e:  # reported to the Go side, which fails or records it
        return {"error": f"{type(e).__name__}: {e}", "kind": type(e).__name__}
    rows = sum(t.num_rows for t in tables)
    nbytes = sum(t.nbytes for t in tables)
    reply = {"seconds": dt, "rows": rows, "bytes": nbytes}
    if tables and tables[0].num_columns:
        reply["columns"] = tables[0].num_columns
    return reply


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = handle(json.loads(line))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
