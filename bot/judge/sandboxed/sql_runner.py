"""Runs a candidate query inside the sandbox: an in-memory SQLite database built from the spec's
schema and data, then the query, read-only and under a statement timeout.

`python -S -s -P -c <this file> FD`: FD is a memfd holding the request, marshalled (the schema, the
data, the query or None, the timeout in seconds, how many rows to keep), which the runner replaces
with the result: a Python literal autofix reads with ast.literal_eval. The result travels in the
memfd and not on stdout because the rows may be more than the output excerpt the sandbox keeps.
Without a query (the preflight) the result is the database's tables and their columns.

Stdlib only and self-contained: it runs with -S, nothing of autofix's on its path.
"""

import marshal
import os
import sqlite3
import sys
import time

# What the query may do: read tables and call functions. Not write, ATTACH a file, or PRAGMA.
READ_ONLY = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
STEPS = 1000  # virtual machine instructions between two looks at the clock


def run(schema, data, query, seconds, keep):
    database = sqlite3.connect(":memory:", isolation_level=None)
    for stage, script in (("schema", schema), ("data", data)):
        try:
            database.executescript(script)
        except sqlite3.Error as exc:
            return {"stage": stage, "error": str(exc)}
    if query is None:
        return {"tables": tables(database)}
    database.set_authorizer(lambda action, *names: sqlite3.SQLITE_OK if action in READ_ONLY else sqlite3.SQLITE_DENY)
    deadline = time.monotonic() + seconds
    database.set_progress_handler(lambda: time.monotonic() > deadline, STEPS)
    rows, count = [], 0
    try:
        cursor = database.execute(query)
        columns = [description[0] for description in cursor.description or ()]
        for row in cursor:
            if count < keep:
                rows.append(tuple(plain(value) for value in row))
            count += 1
    except (sqlite3.Error, sqlite3.Warning) as exc:
        if time.monotonic() > deadline:
            return {"stage": "query", "timeout": seconds}
        return {"stage": "query", "error": str(exc)}
    return {"columns": columns, "rows": rows, "count": count}


def tables(database):
    names = [
        name
        for (name,) in database.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite!_%' ESCAPE '!'"
        )
    ]
    return {
        name: [column for (column,) in database.execute("SELECT name FROM pragma_table_xinfo(?)", (name,))]
        for name in names
    }


def plain(value):
    """A value ast.literal_eval reads back: an infinite float only as text."""
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return repr(value)
    return value


def main(fd):
    fd = int(fd)
    request = marshal.loads(os.pread(fd, os.fstat(fd).st_size, 0))
    result = repr(run(*request)).encode("utf-8", "surrogatepass")
    os.ftruncate(fd, 0)
    os.pwrite(fd, result, 0)


if __name__ == "__main__":
    main(sys.argv[1])
