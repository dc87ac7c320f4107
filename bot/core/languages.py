"""The languages edit mode edits (bot/core/edit_file.py), each behind one shape: its code view
(bot/lang's for JavaScript and TypeScript; Python's over bot/core/source.py and splice.py), how a
unit's code is read out of a reply, and what only Python has yet: a reply's definitions put in
unasked in place of the edit blocks it lacks, and its lines that run its own tests left out
(bot/judge/selftests.py reads Python)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.core import source, splice
from bot.core.extract import extract_block, extract_code
from bot.judge import selftests
from bot.lang import registry
from bot.lang.base import Definition, EditView, Unit
from bot.spec import Spec


class PythonView:
    """Python's `EditView`: the `ast` ways of showing a file and splicing a unit."""

    name = "python"

    def definitions(self, code: str) -> list[Definition]:
        return source.definitions(code)  # by their own names: Python's windows look them up so

    def outline(self, code: str, near: set[int]) -> str:
        return source.outline(code, near)

    def windows(self, code: str, lines_wanted: set[int], names: Iterable[str]) -> str:
        return source.windows(code, lines_wanted, names)

    def pointed_at(self, text: str, path: str, root: str = "") -> set[int]:
        return source.pointed_at(text, path, root)

    def units(self, code: str) -> list[Unit]:
        return splice.units(code)

    def pointed_unit(self, code: str, failures: str, path: str, task: str) -> Unit | None:
        return splice.pointed_at(code, failures, path, task)

    def spliced(self, code: str, unit: str, new: str) -> str:
        return splice.spliced(code, splice.unit_named(code, unit), new)


@dataclass(frozen=True)
class Language:
    """A language edit mode edits. By default (JavaScript, TypeScript): a unit's code is the reply's
    last block fenced in the language, and nothing else of Python's."""

    view: EditView
    fence: str  # the tag of the block a unit is asked in, and read from
    form: str  # what a unit's complete text is, as the model is told

    def code_of(self, reply: str, name: str) -> str:
        """The code of a reply that writes the unit `name` whole; NoCode when it has none."""
        return extract_block(reply, self.fence)

    def put_in(self, code: str, reply: str) -> splice.Placed:
        """`code` with the definitions of a reply that has no edit block in place of the file's."""
        raise splice.NotSpliced("only Python's definitions take the place of missing edit blocks")

    def left_out(self, code: str, original: str, target: str) -> tuple[str, str, str]:
        """`code` without its lines that run the model's own tests, what the model and the log are
        told of them (bot/judge/selftests.py's `left_out`)."""
        return code, "", ""


class Python(Language):
    def code_of(self, reply: str, name: str) -> str:
        return extract_code(reply, name)

    def put_in(self, code: str, reply: str) -> splice.Placed:
        return splice.put_in(code, reply)

    def left_out(self, code: str, original: str, target: str) -> tuple[str, str, str]:
        return selftests.left_out(code, original, target)


PYTHON = Python(PythonView(), "python", "its decorators, its `def` or `class` line and its whole body")
SCRIPT_FORM = (
    "the whole definition in the form the file gives it: "
    "a declaration, an assignment, or a member of its class or object"
)
FORMS = {"go": "the whole function, the method with its receiver, or the type declaration"}


def language_of(spec: Spec) -> Language | None:
    """The language of the spec's target, when edit mode edits it; None for a document or a query,
    which are written whole."""
    kind = spec.target_kind
    if kind == "python":
        return PYTHON
    view = registry.for_kind(kind, spec.target)
    return None if view is None else Language(view, kind, FORMS.get(kind, SCRIPT_FORM))
