"""A SQL target: a single read-only query. sqlglot parses it (a syntax error is told with line and
column) and resolves its tables and columns against the schema (`unknown column users.nmae; did you
mean name?`); then, in SQLite, it runs in the sandbox (bot/judge/sandboxed/sql_runner.py) on an in-memory
database built from the schema and the data, under a statement timeout, and its rows are compared
with the expected ones (`expected 3 rows, got 2; missing: (2, 'bob')`). A query in a dialect SQLite
can't run is checked by parsing and resolving alone, and the log says so.

Parsing and resolving read the query, never run it, so they happen here; what executes it (and the
schema's and the data's statements) runs only in the sandbox."""

from __future__ import annotations

import difflib
import marshal
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from bot import safefs, syntax, testfiles
from bot.errors import UserError
from bot.judge import bounded
from bot.judge.targets import Checked
from bot.judge.verdict import memfd_of
from bot.sandbox.tiers import Limits, Sandbox, allowed_environ, kept_workdir
from bot.spec import Spec
from bot.text import count

if TYPE_CHECKING:
    from sqlglot import exp
    from sqlglot.optimizer.scope import Scope

RUNNER_SOURCE = (Path(__file__).parent / "sandboxed" / "sql_runner.py").read_text(encoding="utf-8")
# The statement timeout is the spec's `timeout`; the sandbox's own limit comes this much later, so
# that a slow query is told as one rather than as a run the sandbox had to kill.
GRACE_SECONDS = 5
MORE_ROWS = 20  # rows kept past the expected count: enough to show what a query returned too many
SHOWN_ROWS = 5  # of each kind of difference, in a message
RETURNED_ROWS = 10  # of what the query returned, in the details
IMPLICIT_COLUMNS = {"sqlite": {"rowid", "oid", "_rowid_"}}  # a table has them undeclared (let pass anywhere)
# What a query may be to be parsed and resolved in autofix's own process: a report's query is a
# few hundred parts; a reply of thousands of select items is refused before sqlglot's scopes walk it.
MAX_QUERY_CHARS = 100_000
MAX_NODES = 10_000  # the parsed query's parts: names, values, operators, clauses
# sqlglot's scopes walk from each column up to its query (so do long chains of `a + b + ...` or
# of ORs, which nest one level per operator): the depth bounds that walk.
MAX_DEPTH = 200
MAX_PROBLEMS = 20  # unknown names told; the rest are counted

Row = tuple[testfiles.Value, ...]
Problem = tuple[str, str, str]  # (name, message, detail)


class QueryCheck:
    def __init__(self, spec: Spec, sandbox: Sandbox, limits: Limits, deadline: float = bounded.DEADLINE_SECONDS):
        sql = spec.tests.sql
        assert sql is not None  # validate.target_check makes one only for a spec with tests.sql
        self.spec, self.sql, self.sandbox, self.deadline = spec, sql, sandbox, deadline
        self.limits = replace(limits, wall_seconds=limits.wall_seconds + GRACE_SECONDS)
        self.where = f"{spec.path}: tests.sql"
        self.ddl = testfiles.read(sql.ddl, spec.workdir, f"{self.where}.schema")
        self.data = testfiles.read(sql.data, spec.workdir, f"{self.where}.data") if sql.data else ""
        if sql.expect_file is not None:
            self.expected = testfiles.expected_rows(sql.expect_file, spec.workdir, f"{self.where}.expect_file")
        else:
            self.expected = [tuple(row) for row in sql.expect or []]
        self.runs = sql.dialect == "sqlite"
        self._tables: dict[str, set[str]] | None = None

    def preflight(self) -> list[str]:
        self.tables()
        if self.runs:
            return []
        return [
            f"tests.sql.dialect is {self.sql.dialect}, which SQLite can't run: a query is checked by parsing it and "
            "resolving its names against the schema, not by its rows"
        ]

    def tables(self) -> dict[str, set[str]]:
        """Each table's and view's columns, names casefolded (SQLite's rule; a lenient one for
        other dialects): SQLite's own, from the database built in the sandbox, else sqlglot's
        reading of the DDL."""
        if self._tables is None:
            if self.runs:
                scratch = Path(tempfile.mkdtemp(prefix="autofix-"))
                try:
                    declared = self.run(None, scratch)["tables"]
                finally:
                    safefs.remove_tree(scratch)
            else:
                declared = testfiles.declared_tables(self.ddl, self.sql.ddl, self.sql.dialect, f"{self.where}.schema")
            self._tables = {
                name.casefold(): {column.casefold() for column in names} for name, names in declared.items()
            }
        return self._tables

    def check(self, text: str, work: Path) -> Checked:
        try:
            bounded.checked(text, "the query", MAX_QUERY_CHARS)
            statement, problems = bounded.read(lambda: self.statement(text), self.deadline)
            if statement is None:
                return Checked(problems, parsed=False)
            problems = bounded.read(lambda: self.unresolved(statement, text), self.deadline)
        except bounded.Unreadable as exc:
            return Checked([(self.spec.target, f"invalid SQL: {exc.reason}", "")], parsed=False)
        if problems or not self.runs:
            return Checked(problems)
        result = self.run(text, work)
        if "killed" in result:
            return Checked([("(query)", result["killed"], "")])
        if "error" in result:
            return Checked([("(query)", f"SQLite: {result['error']}", "")])
        if "timeout" in result:
            return Checked([("(query)", f"ran longer than {result['timeout']:g} s, the statement timeout", "")])
        return Checked(compared(self.expected, result, self.sql.ordered))

    def statement(self, text: str) -> tuple[exp.Expr | None, list[Problem]]:
        """The one read-only query `text` holds, else what is wrong with it."""
        import sqlglot
        from sqlglot import exp
        from sqlglot.errors import ParseError, SqlglotError

        testfiles.quiet_sqlglot()
        target = self.spec.target
        try:
            parsed = [statement for statement in sqlglot.parse(text, read=self.sql.dialect) if statement is not None]
        except ParseError as exc:
            first = exc.errors[0] if exc.errors else {}
            at = f"{target}:{first['line']}:{first['col']}" if first.get("line") else target
            return None, [(at, f"invalid SQL: {first.get('description', exc)}", "")]
        except SqlglotError as exc:
            return None, [(target, f"invalid SQL: {exc}", "")]
        except RecursionError:
            return None, [(target, "invalid SQL: nested too deeply", "")]
        if len(parsed) != 1:
            return None, [(target, f"{len(parsed)} statements: the file must hold a single read-only query", "")]
        statement = parsed[0]
        nodes, depth = shape(statement, MAX_NODES, MAX_DEPTH)
        if nodes > MAX_NODES:
            return None, [
                (target, f"the query has more than {MAX_NODES:,} parts; at most {MAX_NODES:,} are resolved", "")
            ]
        if depth > MAX_DEPTH:
            return None, [(target, f"the query nests more than {MAX_DEPTH} levels deep (an operator is a level)", "")]
        writes = statement if not isinstance(statement, exp.Query) else statement.find(exp.DML, exp.DDL, exp.Command)
        if writes is not None:
            verb = (writes.sql(dialect=self.sql.dialect).split(maxsplit=1) or ["?"])[0].upper()
            return None, [
                (target, f"only a single read-only query is accepted (SELECT, WITH ... SELECT), not {verb}", "")
            ]
        return statement, []

    def unresolved(self, statement: exp.Expr, text: str) -> list[Problem]:
        """Each table and column the query names that the schema lacks, with the closest name it has."""
        from sqlglot.errors import SqlglotError

        resolver = Resolver(self.tables(), IMPLICIT_COLUMNS.get(self.sql.dialect, set()))
        try:
            found = list(resolver.problems(statement))
        except SqlglotError:
            return []  # a shape sqlglot's scopes can't follow: SQLite will say what's wrong, if anything
        told = [(f"{self.spec.target}:{position(text, node)}", message, "") for node, message in found[:MAX_PROBLEMS]]
        if len(found) > MAX_PROBLEMS:
            told.append((self.spec.target, f"more than {MAX_PROBLEMS} unknown names: the first are told", ""))
        return told

    def run(self, query: str | None, work: Path) -> dict:
        """The runner's result for `query` (None: the database's tables), run in the sandbox in
        `work`. A schema or data file SQLite refuses is the spec's mistake: UserError."""
        request = marshal.dumps((self.ddl, self.data, query, self.spec.timeout, len(self.expected) + MORE_ROWS))
        fd = memfd_of("autofix-sql", request)
        try:
            argv = [sys.executable, "-S", "-s", "-P", "-c", RUNNER_SOURCE, str(fd)]
            # In a judge's copy the query writes nothing of it (the tables' probe runs in a folder of its own).
            writable = () if kept_workdir(work) else None
            outcome = self.sandbox.run(argv, work, allowed_environ(), self.limits, pass_fds=(fd,), writable=writable)
            answer = os.pread(fd, os.fstat(fd).st_size, 0)
        finally:
            os.close(fd)
        result = None
        if outcome.returncode == 0:
            try:
                result = syntax.literal_eval(answer.decode("utf-8", "surrogatepass"))
            except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
                result = None
        if not isinstance(result, dict):
            why = outcome.killed or f"the runner ended with exit code {outcome.returncode} and no result"
            if query is None:
                raise UserError(f"{self.where}: building the database from its schema and data failed: {why}")
            return {"killed": why}
        stage = result.get("stage")
        if stage in ("schema", "data"):
            relpath = self.sql.ddl if stage == "schema" else self.sql.data
            raise UserError(f"{self.where}.{stage}: {relpath}: SQLite refused it: {result.get('error')}")
        return result


class Resolver:
    """Resolves a query's tables and columns scope by scope (sqlglot's scopes: the query, each
    subquery, CTE and derived table), a scope seeing the sources of the scopes around it."""

    def __init__(self, tables: dict[str, set[str]], implicit: set[str]):
        self.tables, self.implicit = tables, implicit
        # Per scope, computed once (a query of n select items has n columns in one scope: asking
        # again for each made resolving quadratic): what it sees, and its select items' aliases.
        self._visible: dict[int, tuple[Scope, dict[str, tuple[str, set[str] | None]]]] = {}
        self._aliases: dict[int, tuple[Scope, dict[str, list[set[int]]]]] = {}

    def problems(self, statement: exp.Expr) -> Iterator[tuple[exp.Expr, str]]:
        from sqlglot import exp
        from sqlglot.optimizer.scope import traverse_scope

        seen: set[int] = set()  # a correlated column shows in its own scope and in the one around it
        for scope in traverse_scope(statement):  # innermost first
            for _, source in scope.selected_sources.values():
                if named_table(source) and source.name.casefold() not in self.tables and id(source) not in seen:
                    seen.add(id(source))
                    yield source, "unknown table " + source.name + did_you_mean(source.name, self.tables)
            for column in scope.columns:
                if id(column) in seen or isinstance(column.this, exp.Star):
                    continue
                seen.add(id(column))
                problem = self.qualified(scope, column) if column.table else self.unqualified(scope, column)
                if problem and isinstance(column.this, exp.Identifier) and column.this.quoted:
                    problem += "; a string takes single quotes"
                if problem:
                    yield column, problem

    def qualified(self, scope: Scope, column: exp.Column) -> str | None:
        visible = self.visible(scope)
        source = visible.get(column.table.casefold())
        if source is None:
            return f"unknown table or alias {column.table} in {column.sql()}" + did_you_mean(column.table, visible)
        label, columns = source
        if columns is None or column.name.casefold() in columns | self.implicit:
            return None
        return unknown_column(label, column.name, columns)

    def unqualified(self, scope: Scope, column: exp.Column) -> str | None:

        name = column.name.casefold()
        sources = list(self.visible(scope).values())
        if name in self.implicit or any(columns is None or name in columns for _, columns in sources):
            return None
        # A name the select gives an expression (`count(*) AS n ... HAVING n > 1`), used outside it.
        if any(id(column) not in inside for inside in self.aliases(scope).get(name, ())):
            return None
        if len(sources) == 1:
            label, columns = sources[0]
            return unknown_column(label, column.name, columns or set())
        owner = {known: label for label, columns in reversed(sources) for known in columns or ()}  # innermost wins
        match = difflib.get_close_matches(name, sorted(owner), n=1)
        hint = f"; did you mean {owner[match[0]]}.{match[0]}?" if match else ""
        return f"unknown column {column.name} in {', '.join(label for label, _ in sources)}" + hint

    def visible(self, scope: Scope) -> dict[str, tuple[str, set[str] | None]]:
        """alias -> (its label, its columns or None when they can't be known), the innermost
        scope's first."""
        if id(scope) not in self._visible:
            found: dict[str, tuple[str, set[str] | None]] = {}
            for alias, (_, source) in scope.selected_sources.items():
                label = source.name if named_table(source) else alias
                found.setdefault(alias.casefold(), (label, self.columns_of(source)))
            for alias, seen in (self.visible(scope.parent) if scope.parent is not None else {}).items():
                found.setdefault(alias, seen)
            self._visible[id(scope)] = (scope, found)  # the scope kept, so that its id stays its own
        return self._visible[id(scope)][1]

    def aliases(self, scope: Scope) -> dict[str, list[set[int]]]:
        """alias -> for each select item the scope names so, the ids of the columns inside it."""
        from sqlglot import exp

        if id(scope) not in self._aliases:
            found: dict[str, list[set[int]]] = {}
            selects = scope.expression.selects if isinstance(scope.expression, exp.Query) else []
            for select in selects:
                if isinstance(select, exp.Alias):
                    inside = {id(inner) for inner in select.find_all(exp.Column)}
                    found.setdefault(select.alias.casefold(), []).append(inside)
            self._aliases[id(scope)] = (scope, found)
        return self._aliases[id(scope)][1]

    def columns_of(self, source: exp.Expr | Scope) -> set[str] | None:
        """A source's columns; None when they can't be known (a function's rows, a star, a table
        the schema lacks)."""
        from sqlglot import exp
        from sqlglot.optimizer.scope import Scope

        if named_table(source):
            return self.tables.get(source.name.casefold())
        if not isinstance(source, Scope):
            return None
        node = source.expression
        while isinstance(node.parent, exp.SetOperation):  # a UNION's columns are named by its first query
            node = node.parent
        alias = node.parent.args.get("alias") if isinstance(node.parent, (exp.CTE, exp.Subquery)) else None
        if isinstance(alias, exp.TableAlias) and alias.columns:  # WITH c(n) AS ..., (...) AS d(x)
            return {column.name.casefold() for column in alias.columns}
        names = node.named_selects if isinstance(node, exp.Query) else []
        return None if "*" in names or not names else {name.casefold() for name in names}


def shape(statement: exp.Expr, max_nodes: int, max_depth: int) -> tuple[int, int]:
    """How many nodes the parsed query has and how deep it nests; the walk stopped past either."""
    count, deepest, pending = 0, 0, [(statement, 1)]
    while pending and count <= max_nodes and deepest <= max_depth:
        node, depth = pending.pop()
        count, deepest = count + 1, max(deepest, depth)
        pending += [(child, depth + 1) for child in node.iter_expressions()]
    return count, deepest


def named_table(source: object) -> TypeGuard[exp.Table]:
    """A table by its name, not a function's rows (json_each(...), pragma_table_info(...))."""
    from sqlglot import exp

    return isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    match = difflib.get_close_matches(name.casefold(), sorted(known), n=1)
    return f"; did you mean {match[0]}?" if match else ""


def unknown_column(label: str, name: str, columns: set[str]) -> str:
    """`unknown column users.nmae; did you mean name?`, or the columns there are."""
    hint = did_you_mean(name, columns)
    if not hint and columns:
        shown = sorted(columns)
        hint = f"; {label} has {', '.join(shown[:12])}{', ...' if len(shown) > 12 else ''}"
    return f"unknown column {label}.{name}{hint}"


def position(text: str, node: exp.Expr) -> str:
    """`line:column` where the node's name starts in `text` (sqlglot keeps the offset on the name)."""
    from sqlglot import exp

    name = node.this if isinstance(node.this, exp.Identifier) else node
    start = name.meta.get("start") if isinstance(name, exp.Expr) else None
    if start is None:
        return "1"
    line = text.count("\n", 0, start) + 1
    column = start - text.rfind("\n", 0, start)
    return f"{line}:{column}"


def compared(expected: list[Row], result: dict, ordered: bool) -> list[Problem]:
    """What differs between the rows the query returned and the expected ones: nothing when they
    match (as a multiset, or as a list when `ordered`)."""
    columns, total = list(result["columns"]), int(result["count"])
    returned = [comparable(row) for row in result["rows"]]
    wanted = [comparable(row) for row in expected]
    shown = (
        f"The query returned {count(total, 'row')} (columns {', '.join(columns)})"
        + "".join(f"\n{row!r}" for row in returned[:RETURNED_ROWS])
        + ("\n..." if total > RETURNED_ROWS else "")
    )
    if wanted and len(columns) != len(wanted[0]):
        return [("(columns)", f"expected {len(wanted[0])} columns, got {len(columns)}: {', '.join(columns)}", shown)]
    if total == len(wanted) and Counter(returned) == Counter(wanted):
        if not ordered or returned == wanted:
            return []
        index = next(i for i, (got, want) in enumerate(zip(returned, wanted, strict=True)) if got != want)
        order = f"row {index + 1} is {returned[index]!r}, expected {wanted[index]!r}"
        return [("(rows)", f"the right rows in the wrong order: {order}", shown)]
    message = f"expected {count(len(wanted), 'row')}, got {total}"
    missing = list((Counter(wanted) - Counter(returned)).elements())
    if missing and total == len(returned):  # every row was kept: the missing ones are missing
        message += f"; missing: {listed(missing)}"
    unexpected = list((Counter(returned) - Counter(wanted)).elements())
    if unexpected:
        message += f"; unexpected: {listed(unexpected)}"
    return [("(rows)", message, shown)]


def comparable(row: Row | list) -> Row:
    """A row's values as compared: a float that is a whole number as that int (SUM and AVG may
    return either), other floats to 9 decimals, booleans (YAML's) as SQLite's 0 and 1."""
    values: list[testfiles.Value] = []
    for value in row:
        if isinstance(value, bool):
            values.append(int(value))
        elif isinstance(value, float):
            values.append(int(value) if value.is_integer() else round(value, 9))
        else:
            values.append(value)
    return tuple(values)


def listed(rows: list[Row]) -> str:
    text = ", ".join(repr(row) for row in rows[:SHOWN_ROWS])
    return text + (f" and {len(rows) - SHOWN_ROWS} more" if len(rows) > SHOWN_ROWS else "")
