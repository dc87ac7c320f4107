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
from bot.judge import bounded
from bot.judge.targets import Checked
from bot.spec import Spec, yaml_error

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

# YAML's aliases let a short document stand for a huge one (a "billion laughs"): past this many
# values it is refused before the schema's validator walks it.
MAX_VALUES = 100_000
# PyYAML reads in Python, about 1 s of CPU per 70,000 characters: past this size a YAML reply is
# refused by its size, so the reading's CPU deadline (bot/judge/bounded.py) never has to decide one.
MAX_YAML_CHARS = 200_000
# The validator recurses once per level (and a YAML alias can make a document hold itself): a
# document deeper than this is refused before it walks it. Configuration files nest a few levels.
MAX_DEPTH = 100
MAX_VIOLATIONS = 100  # told one by one; past them, the count is enough to act on
SHOWN_VALUE = 40  # characters of a scalar YAML couldn't construct, in its message


class Unreadable(bounded.Unreadable):
    def __init__(self, where: str, message: str):
        super().__init__(message)
        self.where, self.message = where, message


class DocumentCheck:
    def __init__(self, spec: Spec, deadline: float = bounded.DEADLINE_SECONDS):
        self.spec, self.deadline = spec, deadline
        self.schema_where = f"{spec.path}: tests.json_schema"
        schema = spec.tests.json_schema
        self.schema = testfiles.schema_validator(schema, spec.workdir, self.schema_where) if schema else None

    def preflight(self) -> list[str]:
        return []

    def check(self, text: str, work: Path) -> Checked:
        target = self.spec.target
        try:
            bounded.checked(
                text, "the document", MAX_YAML_CHARS if self.spec.target_kind == "yaml" else bounded.MAX_CHARS
            )
            document = bounded.read(lambda: parse(text, self.spec.target_kind, target), self.deadline)
        except Unreadable as exc:
            return Checked([(exc.where, exc.message, "")], parsed=False)
        except bounded.Unreadable as exc:
            return Checked([(target, f"invalid {self.spec.target_kind.upper()}: {exc.reason}", "")], parsed=False)
        if self.schema is None:
            return Checked()
        try:
            return bounded.read(lambda: self.validated(document), self.deadline)
        except bounded.Unreadable as exc:
            return Checked([(target, f"validating it against its schema: {exc.reason}", "")])

    def validated(self, document: object) -> Checked:
        from referencing.exceptions import Unresolvable

        assert self.schema is not None  # check() validates only with a schema
        try:
            violations = list(self.schema.iter_errors(document))
        except Unresolvable as exc:
            raise UserError(f"{self.schema_where}: {self.spec.tests.json_schema}: cannot resolve {exc}") from None
        problems = [(violation.json_path, described(violation), "") for violation in violations[:MAX_VIOLATIONS]]
        if len(violations) > MAX_VIOLATIONS:
            problems.append((self.spec.target, f"more than {MAX_VIOLATIONS} violations: the first are told", ""))
        return Checked(problems)


def parse(text: str, kind: str, target: str) -> object:
    if kind == "json":
        try:
            document = json.loads(text, parse_constant=not_json)
        except json.JSONDecodeError as exc:
            raise Unreadable(f"{target}:{exc.lineno}:{exc.colno}", f"invalid JSON: {exc.msg}") from None
        except ValueError as exc:  # a NaN, or an integer past Python's digits for a str
            raise Unreadable(target, f"invalid JSON: {str(exc).partition(';')[0]}") from None
        except RecursionError:
            raise Unreadable(target, "invalid JSON: nested too deeply") from None
    else:
        try:
            document = yaml.load(text, Loader=Loader)
        except yaml.MarkedYAMLError as exc:
            where, _, message = yaml_error(exc, text, Path(target)).partition(": ")
            raise Unreadable(where, message) from None
        except yaml.YAMLError as exc:
            first_line = str(exc).partition("\n")[0]
            raise Unreadable(target, f"invalid YAML: {first_line}") from None
        except RecursionError:
            raise Unreadable(target, "invalid YAML: nested too deeply") from None
    values, depth = shape(document, MAX_VALUES, MAX_DEPTH)
    if values > MAX_VALUES:
        raise Unreadable(target, f"the document holds more than {MAX_VALUES:,} values once its aliases are expanded")
    if depth > MAX_DEPTH:
        raise Unreadable(target, f"the document nests more than {MAX_DEPTH} levels deep")
    return document


class Loader(yaml.SafeLoader):
    """YAML's safe loader, whose scalars that can't be built (`2024-13-45`, an int of 5,000
    digits: a ValueError from the timestamp's or the int's constructor) are told as YAML errors
    at their line."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
        try:
            return super().construct_object(node, deep)
        except (yaml.YAMLError, RecursionError):
            raise
        except Exception as exc:  # noqa: BLE001 - a constructor's failure on hostile text, told at its line
            kind = node.tag.rpartition(":")[2]
            value = node.value if isinstance(node.value, str) else ""
            shown = repr(value[:SHOWN_VALUE]) + (f"... ({len(value):,} characters)" if len(value) > SHOWN_VALUE else "")
            reason = str(exc).partition(";")[0] or type(exc).__name__
            raise yaml.constructor.ConstructorError(
                None, None, f"{shown} is not a valid {kind}: {reason}", node.start_mark
            ) from None


def not_json(constant: str) -> object:
    """Python's json reads NaN and Infinity; JSON has no such numbers, and strict readers refuse them."""
    raise ValueError(f"{constant} is no JSON number")


def shape(document: object, max_values: int, max_depth: int) -> tuple[int, int]:
    """How many values `document` holds, keys included, and how deep it nests; the walk stopped
    past either limit."""
    count, deepest, pending = 0, 0, [(document, 1)]
    while pending and count <= max_values and deepest <= max_depth:
        value, depth = pending.pop()
        count, deepest = count + 1, max(deepest, depth)
        if isinstance(value, dict):
            pending += [(child, depth + 1) for child in (*value.keys(), *value.values())]
        elif isinstance(value, list):
            pending += [(child, depth + 1) for child in value]
    return count, deepest


def described(violation: ValidationError) -> str:
    """The violation's message; for one of anyOf/oneOf, what the closest alternative says too:
    one whose type the value has, if any."""
    if not violation.context:
        return violation.message
    from jsonschema.exceptions import best_match

    closest = best_match([error for error in violation.context if error.validator != "type"] or violation.context)
    return f"{violation.message}; the closest: {closest.json_path}: {closest.message}"
