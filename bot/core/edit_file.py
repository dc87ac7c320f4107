"""The answer that edits an existing target: the model sees the code it changes (numbered; for a
large file its outline and windows around what the failures point at, never the whole file) and
answers with SEARCH/REPLACE blocks, applied all or nothing. Edits build on each other: the next
prompt shows the file as the previous replies left it."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import PurePosixPath

from bot.core import source
from bot.core.edits import FORMAT_HELP, EditError, after_reply, parse, refused, substitute
from bot.core.prompts import task_text
from bot.core.protocol import Candidate, Kind, Messages, Unusable
from bot.core.report import code_diff
from bot.core.target import write_target
from bot.spec import Spec
from bot.text import fence

WHOLE_LINES = 300  # a target up to this long is shown whole; a longer one as outline and windows
SYSTEM = (
    "You repair existing code so that its automated tests pass; you cannot change the tests. "
    "Change only what the task needs, in `{target}`.\n\n" + FORMAT_HELP
)


class EditFile:
    def __init__(self, spec: Spec, original: str, failures: Callable[[], str] = lambda: ""):
        self.spec, self.original, self.current = spec, original, original
        self.failures = failures  # the current code's failing tests, known once the preflight ran
        self.touched: set[int] = set()  # lines of `current` the last applied edits wrote
        self.reply = ""

    def first(self) -> Messages:
        text = f"{task_text(self.spec, edit=True)}\n\n{self.view(self.failures())}"
        return [self.system(), {"role": "user", "content": text}]

    def apply(self, reply: str) -> Candidate:
        self.reply = reply
        target = self.spec.target
        try:
            blocks = parse(reply)
        except EditError as exc:
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
            raise Unusable(Kind.REFUSED, refused(problems))
        before, self.current = self.current, text
        self.touched = changed_lines(before, text)
        return Candidate(reply, code_diff(before, text, target), {target: text})

    def next(self, feedback: str) -> Messages:
        text = (
            f"{task_text(self.spec, edit=True)}\n\n{after_reply(self.reply, feedback)}\n\n{self.view(feedback)}\n\n"
            f"`{self.spec.target}` is as your previous replies left it (shown above): "
            "answer with edit blocks against that content."
        )
        return [self.system(), {"role": "user", "content": text}]

    def keep(self, candidate: Candidate) -> str:
        write_target(self.spec, candidate.files[self.spec.target])
        return code_diff(self.original, self.current, self.spec.target)

    def system(self) -> dict[str, str]:
        return {"role": "system", "content": SYSTEM.format(target=self.spec.target)}

    def view(self, failures: str) -> str:
        """The target as the model needs to see it now."""
        target, lines = self.spec.target, self.current.splitlines()
        if len(lines) <= WHOLE_LINES:
            return f"## `{target}` now\n\n{fence(source.numbered(lines))}"
        wanted = source.pointed_at(failures, target) | self.touched
        names = source.named_in(f"{self.spec.task}\n{failures}", self.current)
        shown = source.windows(self.current, wanted, names) or "(no line of it is named by the failures or the task)"
        near = wanted | {first for name, first, _ in source.definitions(self.current) if name in names}
        return (
            f"## `{target}` now ({len(lines)} lines; only the parts that matter are shown)\n\n"
            f"Its outline (the line of every function and class):\n\n{fence(source.outline(self.current, near))}\n\n"
            f"The lines the failures point at, and the definitions the task and the failing tests name:\n\n"
            f"{fence(shown)}"
        )


def changed_lines(before: str, after: str) -> set[int]:
    """The line numbers of `after` that differ from `before`."""
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    return {n + 1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal" for n in range(j1, j2)}
