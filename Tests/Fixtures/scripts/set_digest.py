#!/usr/bin/env python3
"""The set digest of a seed store, written from docs/store-format.md ("The set digest") alone.

Usage: set_digest.py STORE.sqlite   prints the digest's printed form (lthash16-1024:...).
The tests compare it with the digest seedbuild signs in a release's manifest.
"""
import base64
import hashlib
import sqlite3
import struct
import sys

LANES = 1024
MASK = 0xFFFFFFFF


def rotl(value, count):
    return ((value << count) & MASK) | (value >> (32 - count))


def chacha20_block(key, counter, nonce):
    """RFC 8439, 2.3: one 64-byte block of keystream."""
    constants = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state = constants + list(struct.unpack("<8I", key)) + [counter] + list(struct.unpack("<3I", nonce))
    working = list(state)

    def quarter(a, b, c, d):
        working[a] = (working[a] + working[b]) & MASK; working[d] = rotl(working[d] ^ working[a], 16)
        working[c] = (working[c] + working[d]) & MASK; working[b] = rotl(working[b] ^ working[c], 12)
        working[a] = (working[a] + working[b]) & MASK; working[d] = rotl(working[d] ^ working[a], 8)
        working[c] = (working[c] + working[d]) & MASK; working[b] = rotl(working[b] ^ working[c], 7)

    for _ in range(10):
        quarter(0, 4, 8, 12); quarter(1, 5, 9, 13); quarter(2, 6, 10, 14); quarter(3, 7, 11, 15)
        quarter(0, 5, 10, 15); quarter(1, 6, 11, 12); quarter(2, 7, 8, 13); quarter(3, 4, 9, 14)
    return struct.pack("<16I", *[(working[i] + state[i]) & MASK for i in range(16)])


def element_hash(encoding):
    """The 1024 lanes: ChaCha20 keystream under SHA-256(encoding), zero nonce, blocks from counter 1."""
    key = hashlib.sha256(encoding).digest()
    stream = b"".join(chacha20_block(key, counter, bytes(12)) for counter in range(1, 33))
    return struct.unpack("<1024H", stream)


def field(text):
    data = text.encode("utf-8")
    return struct.pack(">I", len(data)) + data


def value(item):
    if item is None:
        return b"\x00"
    if isinstance(item, int):
        return b"\x01" + struct.pack(">q", item)
    if isinstance(item, float):
        return b"\x02" + struct.pack(">d", item)
    if isinstance(item, str):
        data = item.encode("utf-8")
        return b"\x03" + struct.pack(">I", len(data)) + data
    return b"\x04" + struct.pack(">I", len(item)) + bytes(item)


def digest(path):
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    lanes = [0] * LANES

    def add(encoding):
        for index, lane in enumerate(element_hash(encoding)):
            lanes[index] = (lanes[index] + lane) & 0xFFFF

    tables = [row[0] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")]
    for table in tables:
        columns = [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]
        quoted = ", ".join('"' + column.replace('"', '""') + '"' for column in columns)
        for row in db.execute(f'SELECT {quoted} FROM "{table}"'):
            encoding = field("row") + field(table) + struct.pack(">I", len(columns))
            for column, item in zip(columns, row):
                encoding += field(column) + value(item)
            add(encoding)
    for kind, name, table, sql in db.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"):
        add(field("schema") + field(kind) + field(name) + field(table) + field(sql))
    return "lthash16-1024:" + base64.b64encode(struct.pack("<1024H", *lanes)).decode("ascii")


if __name__ == "__main__":
    print(digest(sys.argv[1]))
