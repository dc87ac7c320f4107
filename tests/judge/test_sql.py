"""A SQL target's judge: one read-only statement, its names resolved against the schema SQLite
built in the sandbox, run there under a statement timeout, its rows compared with the expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import spec as specs
from bot.judge.sql import QueryCheck, compared
from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import Limits, open_sandbox

SCHEMA = """\
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, total REAL NOT NULL);
CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 5;
"""
DATA = "INSERT INTO users VALUES (1, 'alice'), (2, 'bob');\nINSERT INTO orders VALUES (1, 1, 10), (2, 2, 4);\n"


def shop(folder: Path, timeout: float = 10, **sql: object) -> specs.Spec:
    (folder / "schema.sql").write_text(SCHEMA)
    (folder / "data.sql").write_text(DATA)
    lines = [f"    {key}: {value}" for key, value in {"expect": "[[1]]", **sql}.items()]
    (folder / "task.yml").write_text(
        "task: t\ntarget: q.sql\ntests:\n  sql:\n    schema: schema.sql\n    data: data.sql\n"
        + "\n".join(lines)
        + f"\ntimeout: {timeout}\n"
    )
    return specs.load(folder / "task.yml")


@pytest.fixture(scope="module")
def check(tmp_path_factory) -> QueryCheck:
    """One judge for the resolution cases: its tables come from one sandboxed run."""
    spec = shop(tmp_path_factory.mktemp("shop"))
    return QueryCheck(spec, open_sandbox("bwrap", readable=python_paths()), Limits(wall_seconds=10))


def problems(check: QueryCheck, query: str) -> list[str]:
    statement, refused = check.statement(query)
    if statement is None:
        return [f"{name}: {message}" for name, message, _ in refused]
    return [f"{name}: {message}" for name, message, _ in check.unresolved(statement, query)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT u.nmae FROM users u", "q.sql:1:10: unknown column users.nmae; did you mean name?"),
        ("SELECT id,\n  nmae FROM users", "q.sql:2:3: unknown column users.nmae; did you mean name?"),
        ("SELECT * FROM usres", "q.sql:1:15: unknown table usres; did you mean users?"),
        (
            "SELECT name FROM users JOIN orders ON users.id = orders.user_id WHERE totl > 1",
            "q.sql:1:71: unknown column totl in users, orders; did you mean orders.total?",
        ),
        ("SELECT x.id FROM users", "q.sql:1:10: unknown table or alias x in x.id"),
        ("WITH t AS (SELECT id AS n FROM users) SELECT t.m FROM t", "q.sql:1:48: unknown column t.m; t has n"),
        (
            'SELECT id FROM users WHERE name = "bob"',
            "q.sql:1:35: unknown column users.bob; users has id, name; a string takes single quotes",
        ),
        (
            "SELECT (SELECT max(totl) FROM orders o WHERE o.user_id = u.id) FROM users u",
            "q.sql:1:20: unknown column totl in orders, users; did you mean orders.total?",
        ),
        ("SELECT id FROM big_orders WHERE totl > 1", "q.sql:1:33: unknown column big_orders.totl; did you mean total?"),
        ("DELETE FROM users", "q.sql: only a single read-only query is accepted (SELECT, WITH ... SELECT), not DELETE"),
        (
            "ATTACH DATABASE 'x.db' AS x",
            "q.sql: only a single read-only query is accepted (SELECT, WITH ... SELECT), not ATTACH",
        ),
        ("SELECT 1; SELECT 2", "q.sql: 2 statements: the file must hold a single read-only query"),
        ("-- nothing", "q.sql: 0 statements: the file must hold a single read-only query"),
        (
            "SELECT name FROM users WHERE",
            "q.sql:1:28: invalid SQL: Required keyword: 'this' missing for <class 'sqlglot.expressions.query.Where'>",
        ),
    ],
)
def test_each_name_the_schema_lacks_is_told_with_the_closest_it_has(check, query, expected):
    assert problems(check, query) == [expected]


@pytest.mark.parametrize(
    "query",
    [
        "SELECT name AS n, count(*) AS c FROM users GROUP BY n HAVING c > 0 ORDER BY n",
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT n FROM c",
        "SELECT Name FROM USERS WHERE rowid > 0",
        "SELECT value FROM json_each('[1, 2]')",
        "SELECT u.name, (SELECT sum(o.total) FROM orders o WHERE o.user_id = u.id) FROM users u",
        "SELECT d.x FROM (SELECT id AS x FROM users) AS d",
        "SELECT name FROM users UNION SELECT CAST(total AS TEXT) FROM big_orders",
        "SELECT u.name, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id",
    ],
)
def test_what_sqlite_would_resolve_is_never_reported(check, query):
    assert problems(check, query) == []


def test_the_runner_refuses_writes_and_attached_files_even_past_the_parser(check, tmp_path):
    """The statement check comes first; the runner's authorizer holds without it."""
    assert check.run("DELETE FROM users", tmp_path) == {"stage": "query", "error": "not authorized"}
    assert check.run("ATTACH DATABASE 'x.db' AS x", tmp_path) == {"stage": "query", "error": "not authorized"}
    assert list(tmp_path.iterdir()) == []


def test_a_query_that_runs_too_long_is_stopped_by_the_statement_timeout(tmp_path):
    spec = shop(tmp_path, timeout=1)
    validator = Validator(spec, open_sandbox("bwrap", readable=python_paths()))
    forever = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c"
    verdict = validator.check(forever)
    assert verdict.feedback == "Failing checks:\n- (query): ran longer than 1 s, the statement timeout"
    assert verdict.seconds < 5  # the statement timeout, not the sandbox's own limit 5 s later


def test_sqlites_own_error_is_told(tmp_path):
    validator = Validator(shop(tmp_path), open_sandbox("bwrap", readable=python_paths()))
    verdict = validator.check("SELECT nosuchfunction(name) FROM users")
    assert verdict.feedback == "Failing checks:\n- (query): SQLite: no such function: nosuchfunction"


def result(*rows: tuple, columns: tuple[str, ...] = ("id", "name")) -> dict:
    return {"columns": list(columns), "rows": list(rows), "count": len(rows)}


def test_rows_are_compared_as_a_multiset_unless_ordered():
    expected = [(1, "alice"), (2, "bob")]
    assert compared(expected, result((2, "bob"), (1, "alice")), ordered=False) == []
    [(name, message, detail)] = compared(expected, result((2, "bob"), (1, "alice")), ordered=True)
    assert (name, message) == (
        "(rows)",
        "the right rows in the wrong order: row 1 is (2, 'bob'), expected (1, 'alice')",
    )
    assert detail == "The query returned 2 rows (columns id, name)\n(2, 'bob')\n(1, 'alice')"


def test_missing_and_unexpected_rows_are_listed():
    expected = [(1, "alice"), (2, "bob"), (3, "carol")]
    [(_, message, _)] = compared(expected, result((1, "alice"), (4, "dave")), ordered=False)
    assert message == "expected 3 rows, got 2; missing: (2, 'bob'), (3, 'carol'); unexpected: (4, 'dave')"
    [(_, message, _)] = compared(expected, result((1, "alice"), (3, "carol")), ordered=False)
    assert message == "expected 3 rows, got 2; missing: (2, 'bob')"


def test_rows_past_those_kept_are_counted_but_never_called_missing():
    kept = {"columns": ["n"], "rows": [(5,), (6,)], "count": 1000}
    [(_, message, _)] = compared([(1,)], kept, ordered=False)
    assert message == "expected 1 row, got 1000; unexpected: (5,), (6,)"


def test_a_wrong_number_of_columns_is_told_with_their_names():
    [(name, message, _)] = compared([(1, "alice")], result((1, "alice", 3), columns=("id", "name", "n")), False)
    assert (name, message) == ("(columns)", "expected 2 columns, got 3: id, name, n")


def test_values_compare_as_sqlite_returns_them():
    """A whole float as an int (SUM may give either), floats to 9 decimals, YAML's booleans as 0/1."""
    expected = [(1, 15.5, True, None)]
    assert compared(expected, result((1.0, 15.500000000001, 1, None), columns=("a", "b", "c", "d")), False) == []
    assert compared(expected, result((1, 15.6, 1, None), columns=("a", "b", "c", "d")), False) != []


def aliased_items(count: int) -> str:
    return "SELECT " + ", ".join(f"c{n} AS a{n}" for n in range(count)) + " FROM users"


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        pytest.param(
            aliased_items(3000),
            "q.sql: the query has more than 10,000 parts; at most 10,000 are resolved",
            id="thousands of select items",
        ),
        pytest.param(
            "SELECT " + " + ".join(f"x{n}" for n in range(300)) + " FROM users",
            "q.sql: the query nests more than 200 levels deep (an operator is a level)",
            id="a chain each of whose columns sqlglot's scopes walk up",
        ),
        pytest.param(
            "SELECT id FROM " + "(SELECT id FROM " * 3000 + "users" + ")" * 3000,
            "q.sql: invalid SQL: nested too deeply",
            id="past the parser's stack",
        ),
        pytest.param(
            "SELECT 1 " + " " * 100_000,
            "q.sql: invalid SQL: the query is 100,009 characters long; at most 100,000 are read",
            id="past the size",
        ),
        pytest.param(
            "SELECT 1\nFROM users\0",
            "q.sql: invalid SQL: the query holds a NUL character (line 2), which no source text holds",
            id="a NUL",
        ),
    ],
)
def test_a_query_past_what_is_resolved_in_autofixs_process_is_a_failed_attempt(check, tmp_path, query, reason):
    checked = check.check(query, tmp_path)
    assert [f"{name}: {message}" for name, message, _ in checked.problems] == [reason]
    assert checked.parsed is False


def test_resolving_takes_time_linear_in_the_query(check, tmp_path):
    """2,400 select items under the bounds: with a walk of every select item per column it took
    57 s of CPU, past the 10 s deadline; resolved scope by scope it takes a fraction of one."""
    told = [f"{name}: {message}" for name, message, _ in check.check(aliased_items(2400), tmp_path).problems]
    assert told[:2] == [
        "q.sql:1:8: unknown column users.c0; users has id, name",
        "q.sql:1:18: unknown column users.c1; users has id, name",
    ]
    assert told[20:] == ["q.sql: more than 20 unknown names: the first are told"]
    assert len(told) == 21
