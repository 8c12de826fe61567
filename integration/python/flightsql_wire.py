"""Hand-rolled Flight SQL protobuf packing for raw ``pyarrow.flight`` clients.

pyarrow ships no Flight SQL protobufs, so the few messages the tests send are
encoded by hand (see /work/shared/spec/flightsql-clients.md section 5.4).  Only
length-delimited and varint fields are needed.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.flight as fl

SQL_TYPE_PREFIX = "type.googleapis.com/arrow.flight.protocol.sql."


def varint(n: int) -> bytes:
    """Encode a non-negative int as a protobuf base-128 varint."""
    if n < 0:
        raise ValueError(f"varint of negative number {n}")
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | 0x80 if n else low)
        if not n:
            return bytes(out)


def field_bytes(num: int, payload: bytes) -> bytes:
    """Encode field ``num`` with wire type 2 (length-delimited)."""
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def field_varint(num: int, value: int) -> bytes:
    """Encode field ``num`` with wire type 0 (varint)."""
    return varint(num << 3) + varint(value)


def pack_any(message_name: str, body: bytes) -> bytes:
    """Wrap an encoded Flight SQL message in ``google.protobuf.Any``."""
    type_url = (SQL_TYPE_PREFIX + message_name).encode()
    return field_bytes(1, type_url) + field_bytes(2, body)


def command_statement_query(sql: str) -> bytes:
    """``Any(CommandStatementQuery{query: sql})``: field 1 is the query string."""
    return pack_any("CommandStatementQuery", field_bytes(1, sql.encode()))


def read_varint(buf: bytes, i: int) -> tuple[int, int]:
    """Decode a varint at ``buf[i:]``; returns (value, next index)."""
    shift = result = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        c = buf[i]
        i += 1
        result |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return result, i


def parse_message(buf: bytes) -> dict[int, list]:
    """Minimal protobuf reader: {field number: [values]} (varint and bytes only)."""
    i, out = 0, {}
    while i < len(buf):
        key, i = read_varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(buf, i)
        elif wire == 2:
            length, i = read_varint(buf, i)
            value, i = bytes(buf[i:i + length]), i + length
        else:
            raise ValueError(f"unsupported wire type {wire} for field {num}")
        out.setdefault(num, []).append(value)
    return out


def reachable_client(default: fl.FlightClient, endpoint: fl.FlightEndpoint) -> fl.FlightClient:
    """Pick the client for an endpoint: its first real location, else the default one."""
    locations = [str(loc.uri.decode() if isinstance(loc.uri, bytes) else loc.uri)
                 for loc in endpoint.locations]
    locations = [u for u in locations if not u.startswith("arrow-flight-reuse-connection")]
    if not locations:
        return default
    return fl.FlightClient(locations[0])


def run_statement(client: fl.FlightClient, sql: str,
                  options: fl.FlightCallOptions | None = None) -> tuple[fl.FlightInfo, list[pa.Table]]:
    """GetFlightInfo(CommandStatementQuery) then DoGet every endpoint.

    Returns the FlightInfo and one table per endpoint, in endpoint order.
    """
    descriptor = fl.FlightDescriptor.for_command(command_statement_query(sql))
    info = client.get_flight_info(descriptor, options)
    parts = []
    for endpoint in info.endpoints:
        reader = reachable_client(client, endpoint).do_get(endpoint.ticket, options)
        parts.append(reader.read_all())
    return info, parts
