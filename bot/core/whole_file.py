"""The answer that writes the whole target: a reply is the complete file in one code block."""

from __future__ import annotations

from bot.core import prompts
from bot.core.extract import NoCode, extract_block, extract_code
from bot.core.protocol import Candidate, Kind, Messages, Unusable
from bot.core.report import code_diff
from bot.core.target import write_target
from bot.spec import Spec


class WholeFile:
    def __init__(self, spec: Spec, current: str | None):
        self.spec = spec
        self.current = current  # the target as it is, shown in the first prompt
        self.code: str | None = None  # the last code a reply held: what the next diff is against
        self.last: str | None = None  # the last reply's code, or the reply itself when it held none

    def first(self) -> Messages:
        return prompts.first(self.spec, self.current)

    def apply(self, reply: str) -> Candidate:
        self.last = reply
        kind = self.spec.target_kind
        try:
            code = extract_code(reply, self.spec.required_name) if kind == "python" else extract_block(reply, kind)
        except NoCode as exc:
            raise Unusable(
                Kind.NO_CODE, f"Your reply could not be used: {exc}. Reply with the whole file in one ```{kind} block."
            ) from None
        previous, self.code, self.last = self.code, code, code
        return Candidate(code, code_diff(previous, code, self.spec.target), {self.spec.target: code})

    def next(self, feedback: str) -> Messages:
        return prompts.repair(self.spec, self.last or "", feedback)

    def keep(self, candidate: Candidate) -> str:
        write_target(self.spec, candidate.code)
        return candidate.code
