#!/usr/bin/env python3
"""Converts Hermitage's test scripts (https://github.com/ept/hermitage: postgres.md, mysql.md) into txfuzz plain schedules.

Usage: python3 convert.py HERMITAGE_CHECKOUT   (writes postgres/*.txt and mysql/*.txt beside this script)

Hermitage is (c) Martin Kleppmann 2014, licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/);
each converted file says so in its first line. The conversion changes only the layout: every ```sql block after
the setup is one schedule; its line `stmt; stmt; -- T1. note` becomes one `T1: stmt;` line per statement, in
order, with Hermitage's note kept as a trailing comment; a statement Hermitage runs in "either" session becomes a
session of its own (a read after both commits). The sentence before the block (its claim) is kept as a comment,
and a `-- hermitage: prevents|allows ANOMALY at LEVEL` line states it for the tests. The `-- dbms:` line names the
engine txfuzz runs it on (mysql.md on MariaDB), and `-- isolation:` the claim's level, which the schedule's own
SET TRANSACTION statements set too: it is the level of the "either" read (a new session's autocommit read after
every transaction ended, which sets none). No statement is changed.
"""
import os
import re
import subprocess
import sys

SOURCES = {"postgres.md": ("postgres", "postgres"), "mysql.md": ("mysql", "mariadb")}
CLAIM = re.compile(r'^(?:Postgres|MySQL) "([a-z ]+)" (prevents|does not prevent) .*?\(([A-Za-z0-9-]+)\)')


def blocks(text):
    """(prose line before the block, the block's lines) for every ```sql block."""
    out, prose, lines, inside = [], "", [], False
    for line in text.split("\n"):
        if line.strip() == "```sql":
            inside, lines = True, []
        elif inside and line.strip() == "```":
            inside = False
            out.append((prose, lines))
        elif inside:
            lines.append(line)
        elif line.strip():
            prose = line.strip()
    return out


def convert(lines):
    steps, sessions = [], set()
    for line in lines:
        code, _, note = line.partition("--")
        who = re.match(r"\s*(T\d+|either)\b[.,]?\s*(.*)$", note, re.IGNORECASE)
        session, rest = who.group(1), who.group(2).strip()
        statements = [s.strip() for s in code.split(";") if s.strip()]
        steps.append((session, statements, rest))
        if session.lower() != "either":
            sessions.add(session)
    either = "T%d" % (max(int(s[1:]) for s in sessions) + 1)
    out = []
    for session, statements, rest in steps:
        if session.lower() == "either":
            session, rest = either, ("either session in Hermitage" + (": " + rest if rest else ""))
        for k, s in enumerate(statements):
            note = " -- " + rest if rest and k == len(statements) - 1 else ""
            out.append("%s: %s;%s" % (session, s, note))
    return out


def main(checkout):
    here = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "?"
    for name, (folder, dbms) in SOURCES.items():
        text = subprocess.run(["git", "-C", checkout, "show", "HEAD:" + name], capture_output=True, text=True, check=True).stdout
        found = blocks(text)
        setup = [l.strip() for l in found[0][1] if l.strip()]
        os.makedirs(os.path.join(here, folder), exist_ok=True)
        n = 0
        for prose, lines in found[1:]:
            claim = CLAIM.match(prose)
            if not claim or not any("-- T" in l for l in lines):
                continue  # not a test: "To see the current isolation level"
            n += 1
            level, verb, anomaly = claim.group(1), claim.group(2), claim.group(3)
            says = "prevents" if verb == "prevents" else "allows"
            file = "%02d-%s-%s-%s.txt" % (n, level.replace(" ", "-"), says, anomaly.lower())
            body = ["-- From Hermitage (https://github.com/ept/hermitage, %s at %s), (c) Martin Kleppmann 2014, CC BY 4.0"
                    " (https://creativecommons.org/licenses/by/4.0/); converted to a txfuzz plain schedule by convert.py"
                    " (layout only: one T<n>: line per statement)" % (name, commit),
                    "-- " + prose,
                    "-- hermitage: %s %s at %s" % (says, anomaly, level.upper()),
                    "-- dbms: " + dbms,
                    "-- isolation: " + level.upper()]
            body += setup + convert(lines)
            with open(os.path.join(here, folder, file), "w") as f:
                f.write("\n".join(body) + "\n")
        print("%s: %d schedules into %s/" % (name, n, folder))


if __name__ == "__main__":
    main(sys.argv[1])
