"""The run report: every attempt with its outcome, feedback, time, tokens and code."""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from bot.console import PLAIN, Paint
from bot.models.prices import Price
from bot.safefs import shown

if TYPE_CHECKING:  # the eval's results import the report, and the CLI's start-up must not load pydantic
    from bot.judge.strength import Strength


@cache  # one metadata lookup per process: an eval makes a report per task and strategy
def autofix_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("autofix")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


@dataclass
class Attempt:
    number: int
    passed: bool
    failing_tests: list[str]
    feedback: str
    seconds: float
    tokens: dict[str, int]  # {"input": n, "output": n}
    code: str
    diff: str  # against the previous attempt's code ("" for the first)
    # Inline checks whose values couldn't cross to the checker (a lambda argument): judged in the
    # candidate's own process, so no stronger than the candidate's honesty.
    inprocess_checks: list[str] = field(default_factory=list)
    kind: str = ""  # bot.core.protocol.Kind: passed, failed, no code, edits refused, same code, forged
    started_at: str = ""  # UTC, ISO 8601
    model_seconds: float = 0.0  # waiting for the model's reply
    test_seconds: float = 0.0  # judging the candidate (the rest of `seconds` is autofix's own)
    prompt: list[dict[str, str]] = field(default_factory=list)  # the messages sent (secrets masked on write)
    reply: str = ""  # the model's raw reply
    cached_tokens: int = 0  # of tokens["input"], served from the provider's prompt cache (priced lower)
    tests_passed: int | None = None  # the test command's tests that passed, as its run reported; None: uncounted

    def headline(self, max_attempts: int, paint: Paint = PLAIN) -> str:
        """The attempt's one log line, the same in the CLI and the Action (there never coloured)."""
        # A reply repeating code judged before is a model call, not a test run: SAME, not FAIL.
        verdict = "PASS" if self.passed else "SAME" if self.kind == "same code" else "FAIL"
        used = self.tokens["input"] + self.tokens["output"]
        count = len(self.inprocess_checks)
        trust = f"  ({count} check{'s' * (count != 1)} judged in the candidate's process)" if count else ""
        shown = paint.verdict(verdict)
        return f"attempt {self.number}/{max_attempts}  {shown}  {self.seconds:.2f} s  {used} tokens{trust}"


@dataclass
class StageUse:
    """The model calls a stage made before the repair loop (localize, reproduce)."""

    calls: int = 0
    input: int = 0
    output: int = 0
    cached: int = 0
    seconds: float = 0.0  # the stage's whole time, model and tests
    input_per_call: list[int] = field(default_factory=list)  # each call's prompt tokens, as the endpoint counted

    def add(self, reply, seconds: float) -> None:
        self.calls += 1
        self.input += reply.input_tokens
        self.input_per_call.append(reply.input_tokens)
        self.output += reply.output_tokens
        self.cached += reply.cached_tokens
        self.seconds += seconds


@dataclass
class Report:
    model: str
    sandbox: str
    target: str
    max_attempts: int
    passed: bool = False
    stop_reason: str = ""
    code: str | None = None  # the passing code, else None
    attempts: list[Attempt] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said once in the log, about how the tests ran
    version: str = field(default_factory=autofix_version)
    spec: str = ""  # the spec's path, when there is one
    task: str = ""
    price: Price | None = None  # what the model's tokens cost; None: unknown (a local model, a replay)
    stages: dict[str, StageUse] = field(default_factory=dict)  # before the repair loop, by stage
    files_shown: list[str] = field(default_factory=list)  # whose outline or content the model saw
    files_changed: list[str] = field(default_factory=list)
    strength: Strength | None = None  # the tests against mutants of the last candidate they passed

    def stage(self, name: str) -> StageUse:
        return self.stages.setdefault(name, StageUse())

    @property
    def tokens(self) -> dict[str, int]:
        """Every model call's: the stages' and the attempts'."""
        return {
            "input": sum(a.tokens["input"] for a in self.attempts) + sum(s.input for s in self.stages.values()),
            "output": sum(a.tokens["output"] for a in self.attempts) + sum(s.output for s in self.stages.values()),
        }

    @property
    def cached_tokens(self) -> int:
        return sum(a.cached_tokens for a in self.attempts) + sum(s.cached for s in self.stages.values())

    @property
    def seconds(self) -> float:
        return sum(a.seconds for a in self.attempts) + sum(s.seconds for s in self.stages.values())

    @property
    def cost(self) -> float | None:
        """Dollars spent on the model so far, when its price is known."""
        if self.price is None:
            return None
        return self.price.of(self.tokens["input"], self.tokens["output"], self.cached_tokens)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["tokens"] = self.tokens
        data["cached_tokens"] = self.cached_tokens
        data["seconds"] = round(self.seconds, 3)
        data["cost_usd"] = None if self.cost is None else round(self.cost, 6)
        return data

    def text(self, redact=lambda text: text) -> str:
        """The report as its JSON file holds it, secrets masked."""
        return redact(json.dumps(printable(self.to_dict()), indent=2, ensure_ascii=False)) + "\n"

    def write(self, path: Path, redact=lambda text: text) -> None:
        """Atomically, so a crash never leaves half a report."""
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, self.text(redact))


def printable(value):
    """`value` with every string shown as UTF-8 can hold it: a file name that isn't UTF-8
    (os.fsdecode's surrogates) as backslash escapes."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, (list, tuple)):
        return [printable(item) for item in value]
    if isinstance(value, dict):
        return {printable(key): printable(item) for key, item in value.items()}
    return value


def write_atomically(path: Path, text: str, mode: int = 0o644) -> None:
    """Write a sibling temporary file, then rename it over `path`: readers never see half a file.
    Everything autofix writes is 0644 (it holds no secret: each is masked first) unless `mode`
    says otherwise (a target keeps its own)."""
    with tempfile.NamedTemporaryFile(
        "w", dir=path.parent, delete=False, encoding="utf-8", prefix=".autofix-", suffix=".tmp"
    ) as out:
        out.write(text)
    os.chmod(out.name, mode)
    os.replace(out.name, path)


def code_diff(previous: str | None, code: str, name: str) -> str:
    if previous is None:
        return ""
    lines = difflib.unified_diff(previous.splitlines(True), code.splitlines(True), f"a/{name}", f"b/{name}")
    return "".join(lines)
