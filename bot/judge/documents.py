"""A JSON or YAML target: the document must parse, its syntax error told with line and column, and,
with `tests.json_schema`, be valid against the schema, every violation told at its location
(`$.servers[0].port: 'abc' is not of type 'integer'`). Parsing and validating read the document,
never run it, so they happen here rather than in the sandbox; `tests.code` runs in the sandbox on
the parsed document as `data` (bot/judge/checks_runner.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from bot import testfiles
from bot.errors import UserError
from bot.judge.targets import Checked
from bot.spec import Spec, yaml_error

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

# YAML's aliases let a short document stand for a huge one (a "billion laughs"): past this many
# values it is refused before the schema's validator walks it.
MAX_VALUES = 100_000


class Unreadable(Exception):
    def __init__(self, where: str, message: str):
        super().__init__(message)
        self.where, self.message = where, message


class DocumentCheck:
    def __init__(self, spec: Spec):
        self.spec = spec
        self.schema_where = f"{spec.path}: tests.json_schema"
        schema = spec.tests.json_schema
        self.schema = testfiles.schema_validator(schema, spec.workdir, self.schema_where) if schema else None

    def preflight(self) -> list[str]:
        return []

    def check(self, text: str, work: Path) -> Checked:
        try:
            document = parse(text, self.spec.target_kind, self.spec.target)
        except Unreadable as exc:
            return Checked([(exc.where, exc.message, "")], parsed=False)
        if self.schema is None:
            return Checked()
        from referencing.exceptions import Unresolvable

        try:
            violations = list(self.schema.iter_errors(document))
        except Unresolvable as exc:
            raise UserError(f"{self.schema_where}: {self.spec.tests.json_schema}: cannot resolve {exc}") from None
        return Checked([(violation.json_path, described(violation), "") for violation in violations])


def parse(text: str, kind: str, target: str) -> object:
    if kind == "json":
        try:
            return json.loads(text, parse_constant=not_json)
        except json.JSONDecodeError as exc:
            raise Unreadable(f"{target}:{exc.lineno}:{exc.colno}", f"invalid JSON: {exc.msg}") from None
        except ValueError as exc:
            raise Unreadable(target, f"invalid JSON: {exc}") from None
        except RecursionError:
            raise Unreadable(target, "invalid JSON: nested too deeply") from None
    try:
        document = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        where, _, message = yaml_error(exc, text, Path(target)).partition(": ")
        raise Unreadable(where, message) from None
    except yaml.YAMLError as exc:
        first_line = str(exc).partition("\n")[0]
        raise Unreadable(target, f"invalid YAML: {first_line}") from None
    except RecursionError:
        raise Unreadable(target, "invalid YAML: nested too deeply") from None
    if counted(document, MAX_VALUES) > MAX_VALUES:
        raise Unreadable(target, f"the document holds more than {MAX_VALUES:,} values once its aliases are expanded")
    return document


def not_json(constant: str) -> object:
    """Python's json reads NaN and Infinity; JSON has no such numbers, and strict readers refuse them."""
    raise ValueError(f"{constant} is no JSON number")


def counted(document: object, limit: int) -> int:
    """How many values `document` holds, keys included, counting stopped past `limit`."""
    count, pending = 0, [document]
    while pending and count <= limit:
        value = pending.pop()
        count += 1
        if isinstance(value, dict):
            pending += [*value.keys(), *value.values()]
        elif isinstance(value, list):
            pending += value
    return count


def described(violation: ValidationError) -> str:
    """The violation's message; for one of anyOf/oneOf, what the closest alternative says too:
    one whose type the value has, if any."""
    if not violation.context:
        return violation.message
    from jsonschema.exceptions import best_match

    closest = best_match([error for error in violation.context if error.validator != "type"] or violation.context)
    return f"{violation.message}; the closest: {closest.json_path}: {closest.message}"
