#!/usr/bin/env python3
"""Writes the Hermitage-derived corpus cases (hermitage/*.case.json).

Hermitage (https://github.com/ept/hermitage) gives, per engine, small two- or three-session
scripts over `test(id, value)` with rows (1, 10), (2, 20). Each script here is the same schedule
written as an instrumented txfuzz case (docs/formats.md, "Row tracking"): the table gains `rid`
and `wl`, every write appends its tag, and every read returns (rid, wl) first, so that the
`isolation` oracle can judge it as well as `wss` and `explicit`. `value` is renamed `v` (a
reserved word in H2, and kept the same on every engine).

Run from this directory:  python3 make_hermitage.py   (rewrites hermitage/*.case.json)
The expectations live in index.json, not here.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = {"hsqldb": "mvcc", "sqlite": "deferred"}
LEVELS = {"RU": "READ_UNCOMMITTED", "RC": "READ_COMMITTED", "RR": "REPEATABLE_READ", "SER": "SERIALIZABLE"}


def concat(dbms, tag):
    return f"wl = CONCAT(wl, ',{tag}')" if dbms == "mariadb" else f"wl = wl || ',{tag}'"


def stmt(kind, sql, tracking=None):
    s = {"kind": kind, "sql": sql, "needsTransaction": False}
    if tracking:
        s["tracking"] = tracking
    return s


def build(dbms, level, script, name):
    """script: list of (txn, op, args...) in submitted order; ops:
    r WHERE        plain read of test through a row-local predicate
    u SET WHERE    update (+ its post-read)
    i ID V         insert one row (+ its post-read)
    d WHERE        delete: tag-update, post-read, delete of the tagged rows
    c / a          commit / rollback
    Every transaction's BEGIN is submitted first, in id order."""
    txns = {}
    order = []
    ids = sorted({step[0] for step in script})
    for t in ids:
        txns[t] = [stmt("BEGIN", "BEGIN")]
        order.append(t)
    for step in script:
        t, op, args = step[0], step[1], step[2:]
        body = txns[t]
        if op == "r":
            where = args[0]
            body.append(stmt("SELECT", f"SELECT rid, wl, id, v FROM test WHERE {where} ORDER BY id",
                             {"role": "READ", "tables": ["test"], "predicate": where}))
            order.append(t)
        elif op == "u":
            s, where = args
            tag = f"{t}.{len(body)}"
            body.append(stmt("UPDATE", f"UPDATE test SET {s}, {concat(dbms, tag)} WHERE {where}",
                             {"role": "WRITE", "tables": ["test"], "tag": tag}))
            body.append(post_read(tag))
            order += [t, t]
        elif op == "i":
            k, v = args
            tag = f"{t}.{len(body)}"
            rid = f"{tag}.0"
            body.append(stmt("INSERT", f"INSERT INTO test (id, v, rid, wl) VALUES ({k}, {v}, '{rid}', ',{tag}')",
                             {"role": "WRITE", "tables": ["test"], "tag": tag, "rids": [rid]}))
            body.append(post_read(tag))
            order += [t, t]
        elif op == "d":
            where = args[0]
            tag = f"{t}.{len(body) + 2}"
            body.append(stmt("UPDATE", f"UPDATE test SET {concat(dbms, tag)} WHERE {where}",
                             {"role": "TAG", "tables": ["test"], "tag": tag}))
            body.append(post_read(tag))
            body.append(stmt("DELETE", f"DELETE FROM test WHERE wl LIKE '%,{tag}'",
                             {"role": "WRITE", "tables": ["test"], "tag": tag, "deletes": True}))
            order += [t, t, t]
        elif op in ("c", "a"):
            body.append(stmt("COMMIT", "COMMIT") if op == "c" else stmt("ROLLBACK", "ROLLBACK"))
            order.append(t)
        else:
            raise ValueError(op)
    case = {
        "formatVersion": 1, "dbms": dbms, "seed": 0, "iteration": 0, "isolation": LEVELS[level],
        "mode": MODES.get(dbms, "default"), "execution": "PLAIN", "tables": ["test"],
        "setup": ["CREATE TABLE test (id INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                  "INSERT INTO test (id, v, rid, wl) VALUES (1, 10, '1', ',0')",
                  "INSERT INTO test (id, v, rid, wl) VALUES (2, 20, '2', ',0')"],
        "transactions": [{"id": t, "statements": txns[t]} for t in ids],
        "order": order,
    }
    path = os.path.join(HERE, "hermitage", name + ".case.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(case, f, indent=2)
        f.write("\n")


def post_read(tag):
    return stmt("SELECT", f"SELECT rid, wl FROM test WHERE wl LIKE '%,{tag}'",
                {"role": "POST_READ", "tables": ["test"], "tag": tag})


# The schedules, as in Hermitage's postgres.md / mysql.md (a BLOCKS step is just submitted; the
# executor holds the rest of that transaction back until it resumes).
G0 = [(1, "u", "v = 11", "id = 1"), (2, "u", "v = 12", "id = 1"), (1, "u", "v = 21", "id = 2"), (1, "c"),
      (2, "u", "v = 22", "id = 2"), (2, "c")]
G1A = [(1, "u", "v = 101", "id = 1"), (2, "r", "true"), (1, "a"), (2, "r", "true"), (2, "c")]
G1B = [(1, "u", "v = 101", "id = 1"), (2, "r", "true"), (1, "u", "v = 11", "id = 1"), (1, "c"), (2, "r", "true"), (2, "c")]
G1C = [(1, "u", "v = 11", "id = 1"), (2, "u", "v = 22", "id = 2"), (1, "r", "id = 2"), (2, "r", "id = 1"), (1, "c"), (2, "c")]
OTV = [(1, "u", "v = 11", "id = 1"), (1, "u", "v = 19", "id = 2"), (2, "u", "v = 12", "id = 1"), (1, "c"),
       (3, "r", "id = 1"), (2, "u", "v = 18", "id = 2"), (3, "r", "id = 2"), (2, "c"), (3, "r", "id = 2"), (3, "r", "id = 1"), (3, "c")]
PMP_WRITE = [(1, "u", "v = v + 10", "true"), (2, "d", "v = 20"), (1, "c"), (2, "r", "v = 20"), (2, "c")]
# mysql.md: T2 reads first, which fixes InnoDB's read view (an UPDATE/DELETE does not)
PMP_WRITE_MY = [(1, "u", "v = v + 10", "true"), (2, "r", "v = 20"), (2, "d", "v = 20"), (1, "c"), (2, "r", "true"), (2, "c")]
P4 = [(1, "r", "id = 1"), (2, "r", "id = 1"), (1, "u", "v = 11", "id = 1"), (2, "u", "v = 11", "id = 1"), (1, "c"), (2, "c")]
READ_SKEW = [(1, "r", "id = 1"), (2, "r", "id = 1"), (2, "r", "id = 2"), (2, "u", "v = 12", "id = 1"), (2, "u", "v = 18", "id = 2"),
             (2, "c"), (1, "r", "id = 2"), (1, "c")]
WRITE_SKEW = [(1, "r", "id IN (1, 2)"), (2, "r", "id IN (1, 2)"), (1, "u", "v = 11", "id = 1"), (2, "u", "v = 21", "id = 2"),
              (1, "c"), (2, "c")]
G2_NO_WITNESS = [(1, "r", "v % 3 = 0"), (2, "r", "v % 3 = 0"), (1, "i", 3, 30), (2, "i", 4, 42), (1, "c"), (2, "c")]
# Hermitage's last step: "select * from test where value % 3 = 0; -- Either. Returns 3 => 30, 4 => 42"
G2 = G2_NO_WITNESS + [(3, "r", "v % 3 = 0"), (3, "c")]
FEKETE = [(1, "r", "true"), (2, "u", "v = v + 5", "id = 2"), (2, "c"), (3, "r", "true"), (3, "c"), (1, "u", "v = 0", "id = 1"), (1, "c")]

CASES = [
    ("postgres", "RC", G0, "pg-rc-g0"),
    ("postgres", "RC", G1A, "pg-rc-g1a"),
    ("postgres", "RC", G1B, "pg-rc-g1b"),
    ("postgres", "RC", G1C, "pg-rc-g1c"),
    ("postgres", "RC", OTV, "pg-rc-otv"),
    ("postgres", "RC", PMP_WRITE, "pg-rc-pmp-write"),
    ("postgres", "RC", P4, "pg-rc-p4"),
    ("postgres", "RR", P4, "pg-rr-p4"),
    ("postgres", "RR", READ_SKEW, "pg-rr-read-skew"),
    ("postgres", "RR", WRITE_SKEW, "pg-rr-write-skew"),
    ("postgres", "RR", G2, "pg-rr-g2"),
    ("postgres", "SER", WRITE_SKEW, "pg-ser-write-skew"),
    ("postgres", "SER", FEKETE, "pg-ser-g2-fekete"),
    ("mariadb", "RU", G1A, "maria-ru-g1a"),
    ("mariadb", "RC", G1A, "maria-rc-g1a"),
    ("mariadb", "RC", G1C, "maria-rc-g1c"),
    ("mariadb", "RC", OTV, "maria-rc-otv"),
    ("mariadb", "RR", P4, "maria-rr-p4"),
    ("mariadb", "RR", PMP_WRITE_MY, "maria-rr-pmp-write"),
    ("mariadb", "RR", WRITE_SKEW, "maria-rr-write-skew"),
    ("mariadb", "SER", P4, "maria-ser-p4"),
    ("mariadb", "SER", WRITE_SKEW, "maria-ser-write-skew"),
    # the same write-skew schedule on the embedded engines, against their own manuals
    ("h2", "SER", WRITE_SKEW, "h2-ser-write-skew"),
    ("h2", "SER", G2, "h2-ser-g2"),
    ("h2", "SER", G2_NO_WITNESS, "h2-ser-g2-no-witness"),
    ("hsqldb", "SER", WRITE_SKEW, "hsqldb-mvcc-ser-write-skew"),
    ("sqlite", "SER", WRITE_SKEW, "sqlite-ser-write-skew"),
    ("derby", "SER", WRITE_SKEW, "derby-ser-write-skew"),
]

if __name__ == "__main__":
    for dbms, level, script, name in CASES:
        build(dbms, level, script, name)
    print(f"wrote {len(CASES)} cases")
