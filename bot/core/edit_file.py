"""The answer that edits an existing target: the model sees the code it changes (numbered; for a
large file its outline and windows around what the failures point at, never the whole file) and
answers with SEARCH/REPLACE blocks, applied all or nothing. Edits build on each other: the next
prompt shows the file as the previous replies left it.

After REFUSALS_BEFORE_UNIT replies in a row whose edit blocks could not be applied, the model is
asked instead for the complete new text of the one function or class the failures point at, which
is spliced in by its span (the language's view); `on_note` is told, once, for the log. It is asked
so for the rest of the task: a model that can't write edit blocks won't write them later.

Every language goes through its `Language` (bot/core/languages.py): Python's, JavaScript's and
TypeScript's views show the file and splice the unit. Python's alone, so far: a reply with no edit
block at all but definitions of the file's functions or classes (what a small model sends when
asked for edit blocks) is not refused: they take the place of the file's, and the next prompt says
so. It is not counted as a refusal either. And lines an edit adds that run the model's own tests on
import are left out of the candidate, as in whole-file answers (bot/judge/selftests.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import PurePosixPath

from bot.core.edits import FORMAT_HELP, MARKER, EditError, after_reply, parse, refused, substitute
from bot.core.extract import NoCode
from bot.core.languages import Language
from bot.core.prompts import anew, task_text, with_failures
from bot.core.protocol import Candidate, Kind, Messages, Unusable
from bot.core.report import code_diff
from bot.core.splice import NotSpliced
from bot.core.target import write_target
from bot.core.unit_prompt import SWITCHED, asking, request
from bot.lang.base import Unit, changed_lines, named_in, numbered
from bot.spec import Spec
from bot.text import fence

WHOLE_LINES = 300  # a target up to this long is shown whole; a longer one as outline and windows
REFUSALS_BEFORE_UNIT = 2
SYSTEM = (
    "You repair existing code so that its automated tests pass; you cannot change the tests. "
    "Change only what the task needs, in `{target}`.\n\n" + FORMAT_HELP
)


class EditFile:
    def __init__(
        self,
        spec: Spec,
        language: Language,
        original: str,
        failures: Callable[[], str] = lambda: "",
        on_note: Callable[[str], None] = lambda note: None,
        shown: Callable[[], str] = lambda: "",
        restated: Sequence[str] = (),
    ):
        self.spec, self.original, self.current = spec, original, original
        self.restated = restated  # how earlier answers failed, for a fresh sample's first prompt
        self.language = language
        self.failures = failures  # the current code's failing tests, known once the preflight ran
        self.shown = shown  # how they fail, as the first prompt tells it
        self.on_note = on_note  # what the log and the report say of how a reply was taken
        self.placed = ""  # what the next prompt tells of definitions put in place of edit blocks
        self.left_out = ""  # and of lines left out that ran the model's own tests
        self.touched: set[int] = set()  # lines of `current` the last applied edits wrote
        self.reply = ""
        self.refusals = 0  # replies in a row whose edit blocks could not be applied
        self.judged = False  # whether the last reply became a candidate: then its feedback is the tests'
        self.failing: str | None = None  # the tests' last feedback; None: the preflight's
        self.unit: Unit | None = None  # the function or class asked for whole, once switched

    def first(self) -> Messages:
        text = f"{task_text(self.spec, edit=True)}\n\n{self.view(self.failures())}"
        return anew(
            with_failures([self.system(), {"role": "user", "content": text}], self.shown()), self.restated, True
        )

    def apply(self, reply: str) -> Candidate:
        self.reply, self.judged, self.placed, self.left_out = reply, False, "", ""
        if self.unit is not None:
            return self.replace_unit(self.unit, reply)
        target = self.spec.target
        try:
            blocks = parse(reply, target)
        except EditError as exc:
            if not MARKER.search(reply):  # no edit block begun: perhaps whole definitions instead
                try:
                    return self.put_in(reply)
                except (NoCode, NotSpliced):
                    pass
            self.refusals += 1
            raise Unusable(Kind.REFUSED, refused(exc.problems)) from None
        text, problems = self.current, []
        for number, block in enumerate(blocks, 1):
            if str(PurePosixPath(block.path)) != str(PurePosixPath(target)):
                problems.append(f"block {number} ({block.path}): this task edits only `{target}`")
                continue
            text, problem = substitute(text, block)
            if problem:
                problems.append(f"block {number} ({block.path}): {problem}")
        if problems:
            self.refusals += 1
            raise Unusable(Kind.REFUSED, refused(problems))
        self.refusals = 0
        return self.candidate(reply, text)

    def put_in(self, reply: str) -> Candidate:
        placed = self.language.put_in(self.current, reply)
        self.placed, self.refusals = placed.told(), 0
        names = " and ".join(", ".join(f"`{name}`" for name in placed.placed).rsplit(", ", 1))
        self.on_note(f"the reply had no edit blocks: its definitions of {names} took the place of the file's")
        return self.candidate(reply, placed.text)

    def replace_unit(self, unit: Unit, reply: str) -> Candidate:
        try:
            text = self.language.view.spliced(self.current, unit.qualname, self.language.code_of(reply, unit.name))
        except (NoCode, ValueError) as exc:  # every view's splice refuses with a ValueError
            why = f"Your reply could not be used: {exc}. {asking(self.language, unit)}"
            raise Unusable(Kind.NO_CODE, why) from None
        return self.candidate(reply, text)

    def candidate(self, reply: str, text: str) -> Candidate:
        target = self.spec.target
        text, self.left_out, logged = self.language.left_out(text, self.original, target)
        if logged:
            self.on_note(logged)
        before, self.current, self.judged = self.current, text, True
        self.touched = changed_lines(before, text)
        return Candidate(reply, code_diff(before, text, target), {target: text})

    def next(self, feedback: str) -> Messages:
        if self.judged:
            self.failing = feedback
        if self.placed:
            feedback = f"{self.placed}\n\n{feedback}"
        if self.left_out:
            feedback = f"{feedback}\n\n{self.left_out}"
        failing = self.failures() if self.failing is None else self.failing
        unit, switched = self.unit_to_ask(failing), self.unit is None
        self.unit = unit
        if unit is not None:
            why = after_reply(self.reply, feedback)
            if switched:
                self.on_note(
                    f"asked for {unit.called} instead of edit blocks, "
                    f"after {REFUSALS_BEFORE_UNIT} replies in a row whose edit blocks could not be applied"
                )
                why = f"{feedback}\n\n{SWITCHED}"
            return request(self.spec, self.language, unit, self.current, failing, why)
        text = (
            f"{task_text(self.spec, edit=True)}\n\n{after_reply(self.reply, feedback)}\n\n{self.view(feedback)}\n\n"
            f"`{self.spec.target}` is as your previous replies left it (shown above): "
            "answer with edit blocks against that content."
        )
        return [self.system(), {"role": "user", "content": text}]

    def unit_to_ask(self, failing: str) -> Unit | None:
        """The unit the next reply is to write whole, or None for edit blocks."""
        if self.unit is None and self.refusals < REFUSALS_BEFORE_UNIT:
            return None
        pointed = self.language.view.pointed_unit(self.current, failing, self.spec.target, self.spec.task)
        if pointed is not None or self.unit is None:
            return pointed
        return next((u for u in self.language.view.units(self.current) if u.qualname == self.unit.qualname), None)

    def keep(self, candidate: Candidate) -> str:
        write_target(self.spec, candidate.files[self.spec.target])
        return code_diff(self.original, self.current, self.spec.target)

    def system(self) -> dict[str, str]:
        return {"role": "system", "content": SYSTEM.format(target=self.spec.target)}

    def view(self, failures: str) -> str:
        """The target as the model needs to see it now."""
        target, lines = self.spec.target, self.current.splitlines()
        if len(lines) <= WHOLE_LINES:
            return f"## `{target}` now\n\n{fence(numbered(lines))}"
        code = self.language.view
        found = code.definitions(self.current)
        wanted = code.pointed_at(failures, target) | self.touched
        names = named_in(f"{self.spec.task}\n{failures}", found)
        shown = code.windows(self.current, wanted, names) or "(no line of it is named by the failures or the task)"
        near = wanted | {first for name, first, _ in found if name.rpartition(".")[2] in names}
        return (
            f"## `{target}` now ({len(lines)} lines; only the parts that matter are shown)\n\n"
            f"Its outline (the line of every function and class):\n\n{fence(code.outline(self.current, near))}\n\n"
            f"The lines the failures point at, and the definitions the task and the failing tests name:\n\n"
            f"{fence(shown)}"
        )
