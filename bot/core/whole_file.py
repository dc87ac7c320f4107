"""The answer that writes the whole target: a reply is the complete file in one code block.

A repair of existing code continues the conversation: the first prompt as it was sent, the model's
last reply as its own turn, the verdict as the next user turn. Nothing is restated in other words,
and a server that caches prompt prefixes (llama.cpp, vLLM, OpenAI's) reads only what follows the
first prompt. Earlier replies are left out: a prompt is as long as the first one, a reply and a
verdict, however many attempts.

A repair of code written from nothing is the first prompt again with how each earlier answer
failed, without their code (prompts.anew): measured on Qwen2.5-Coder-1.5B, the conversation got its
own code sent back in 12 of the 14 tasks it failed to repair, and repaired none of them; restated
with the failures, repair solved 7 of the 18 tasks its first call failed (docs/evaluation.md).

The lines of a reply's code that run its own tests on import are left out of the candidate
(bot/judge/selftests.py): the file judged is the file kept."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.core import prompts
from bot.core.extract import NoCode, extract_block, extract_code
from bot.core.protocol import Candidate, Kind, Messages, Unusable
from bot.core.report import code_diff
from bot.core.target import write_target
from bot.judge import selftests
from bot.spec import Spec


class WholeFile:
    def __init__(
        self,
        spec: Spec,
        current: str | None,
        shown: Callable[[], str] = lambda: "",
        on_note: Callable[[str], None] = lambda note: None,
        restated: Sequence[str] = (),
    ):
        self.spec = spec
        self.on_note = on_note  # what the log and the report say of lines left out of a reply
        self.current = current  # the target as it is, shown in the first prompt
        self.shown = shown  # how the current code fails its tests, in the first prompt
        self.code: str | None = None  # the last code a reply held: what the next diff is against
        self.opening: Messages = []  # the first prompt, which every repair continues or restates
        self.reply = ""  # the last reply, as the model wrote it
        # how each earlier answer failed: for a repair of code written anew, and a fresh sample's first prompt
        self.failures: list[str] = list(restated)
        self.left_out = ""  # what the next prompt says of the last reply's lines that ran its own tests

    def first(self) -> Messages:
        """The task; for a fresh sample, with how the earlier answers failed (`restated`). A repair
        of existing code continues what was sent, a repair of new code restates it again."""
        opening = prompts.with_failures(prompts.first(self.spec, self.current), self.shown())
        existing = self.current is not None
        sent = prompts.anew(opening, self.failures, existing)
        self.opening = sent if existing else opening
        return sent

    def apply(self, reply: str) -> Candidate:
        self.reply = reply
        kind = self.spec.target_kind
        try:
            code = extract_code(reply, self.spec.required_name) if kind == "python" else extract_block(reply, kind)
        except NoCode as exc:
            raise Unusable(
                Kind.NO_CODE, f"Your reply could not be used: {exc}. Reply with the whole file in one ```{kind} block."
            ) from None
        self.left_out = ""
        if kind == "python":
            code, self.left_out, logged = selftests.left_out(code, self.current, self.spec.target)
            if logged:
                self.on_note(logged)
        previous, self.code = self.code, code
        return Candidate(code, code_diff(previous, code, self.spec.target), {self.spec.target: code})

    def next(self, feedback: str) -> Messages:
        if self.left_out:
            feedback = f"{feedback}\n\n{self.left_out}"
        if self.current is None:
            if feedback not in self.failures:
                self.failures.append(feedback)
            return prompts.anew(self.opening, self.failures)
        return [*self.opening, {"role": "assistant", "content": self.reply}, prompts.repair(self.spec, feedback)]

    def keep(self, candidate: Candidate) -> str:
        write_target(self.spec, candidate.code)
        return candidate.code
