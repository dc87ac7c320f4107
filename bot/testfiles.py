"""The files a spec's tests name besides the target — a JSON Schema; a SQL schema, its data and the
expected rows — read and checked when the spec loads, so a mistake in one is a line naming the file
and the spec's key (exit 2) before any model call; the judge reads them through the same functions.

Their paths are relative to the work folder, like the target's, and must stay inside it: a SQL
schema's text goes into the prompts. jsonschema and sqlglot are imported only here, when a spec
needs them: the CLI starts without them."""

from __future__ import annotations

import csv
import difflib
import io
import json
import logging
import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import UserError

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

Value = int | float | str | None  # what SQLite hands back, but blobs
NUMBER = re.compile(r"[+-]?(?:\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def read(relpath: str, workdir: Path, where: str) -> str:
    """The text of a file the tests name. `where` is the spec's key for it, with the spec's
    file and line (`task.yml:7: tests.sql.schema`)."""
    path = workdir / relpath
    inside = path.resolve().is_relative_to(workdir.resolve())  # through no symlink that leads out either
    if Path(relpath).is_absolute() or ".." in Path(relpath).parts or not inside:
        raise UserError(f"{where}: {relpath} must be a file inside the work folder")
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{where}: cannot read {relpath}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"{where}: {relpath} is not UTF-8 text") from None


def schema_validator(relpath: str, workdir: Path, where: str) -> Validator:
    """A validator for the JSON Schema in `relpath`: of the draft its `$schema` names, else of
    Draft 2020-12, with `format` checked too (a schema that names one means it)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    text = read(relpath, workdir, where)
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{where}: {relpath}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(schema, dict):
        raise UserError(f"{where}: {relpath}: a JSON Schema is an object, not {type(schema).__name__}")
    draft = Draft202012Validator
    if "$schema" in schema:
        uri = schema["$schema"]
        # jsonschema falls back to its latest draft on a $schema it doesn't know, with only a warning.
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            try:
                draft = validator_for(schema) if isinstance(uri, str) else None
            except DeprecationWarning:
                draft = None
        if draft is None:
            raise UserError(f"{where}: {relpath}: $schema {uri!r} is no JSON Schema draft jsonschema knows")
    try:
        draft.check_schema(schema)
    except SchemaError as exc:
        raise UserError(f"{where}: {relpath}: not a valid JSON Schema: {exc.message} (at {exc.json_path})") from None
    return draft(schema, format_checker=draft.FORMAT_CHECKER)


def expected_rows(relpath: str, workdir: Path, where: str) -> list[tuple[Value, ...]]:
    """The rows of a CSV file whose first line names the columns (only the values are compared)."""
    reader = csv.reader(io.StringIO(read(relpath, workdir, where), newline=""), strict=True)
    rows: list[tuple[Value, ...]] = []
    header: list[str] | None = None
    try:
        for row in reader:
            if not row:
                continue
            if header is None:
                header = row
            elif len(row) != len(header):
                values = f"{len(row)} value{'s' * (len(row) != 1)}"
                raise UserError(f"{where}: {relpath}:{reader.line_num}: {values} where the header names {len(header)}")
            else:
                rows.append(tuple(csv_value(text) for text in row))
    except csv.Error as exc:
        raise UserError(f"{where}: {relpath}:{reader.line_num}: invalid CSV: {exc}") from None
    if header is None:
        raise UserError(f"{where}: {relpath} is empty; its first line names the columns")
    return rows


def csv_value(text: str) -> Value:
    """A CSV cell as SQLite would hand it back: empty is NULL, a number a number, the rest text."""
    if text == "":
        return None
    match = NUMBER.fullmatch(text)
    if match is None:
        return text
    return float(text) if match.group(1) or match.group(2) else int(text)


def check_dialect(dialect: str, where: str) -> None:
    from sqlglot.dialects.dialect import Dialects

    known = sorted(d.value for d in Dialects if d.value)
    if dialect not in known:
        close = difflib.get_close_matches(dialect, known, n=1)
        hint = f"did you mean {close[0]}?" if close else "sqlglot knows " + ", ".join(known)
        raise UserError(f"{where}: unknown dialect {dialect!r}; {hint}")


def quiet_sqlglot() -> None:
    """sqlglot logs a warning for each statement it can only read as an opaque command; autofix
    reports what that means itself."""
    logging.getLogger("sqlglot").setLevel(logging.ERROR)


def declared_tables(ddl: str, relpath: str, dialect: str, where: str) -> dict[str, list[str]]:
    """The tables and views the DDL creates, with their columns, as sqlglot reads them: for a
    dialect SQLite can't run, the schema the query's names are resolved against."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError, SqlglotError
    from sqlglot.optimizer.qualify import qualify

    quiet_sqlglot()
    try:
        statements = sqlglot.parse(ddl, read=dialect)
    except ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        at = f":{first['line']}:{first['col']}" if first.get("line") else ""
        raise UserError(f"{where}: {relpath}{at}: invalid SQL: {first.get('description', exc)}") from None
    except SqlglotError as exc:
        raise UserError(f"{where}: {relpath}: invalid SQL: {exc}") from None
    tables: dict[str, list[str]] = {}
    for statement in statements:
        if isinstance(statement, exp.Command) and re.match(r"(?is)create\b.*?\b(table|view)\b", statement.sql()):
            shown = " ".join(statement.sql().split())[:80]
            raise UserError(f"{where}: {relpath}: sqlglot can't read this statement as {dialect}: {shown}")
        if not (isinstance(statement, exp.Create) and statement.kind in ("TABLE", "VIEW")):
            continue
        target = statement.this
        if isinstance(target, exp.Schema):  # a column list: CREATE TABLE t (a INT, ...), CREATE VIEW v (a, b)
            columns = [column for column in target.expressions if isinstance(column, (exp.ColumnDef, exp.Identifier))]
            tables[target.this.name] = [column.name for column in columns]
        elif isinstance(statement.expression, exp.Query):  # CREATE TABLE t AS SELECT, CREATE VIEW v AS SELECT
            query = statement.expression
            try:
                known: dict[str, object] = {name: dict.fromkeys(columns, "TEXT") for name, columns in tables.items()}
                query = qualify(query.copy(), schema=known, dialect=dialect, validate_qualify_columns=False)
            except SqlglotError:
                pass  # its stars stay unexpanded: the columns it selects by name still count
            tables[target.name] = [name for name in query.named_selects if name != "*"]
    return tables
