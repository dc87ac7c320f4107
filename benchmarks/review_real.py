"""A review on autofix's own pull request, answered on a real project's suite: toolz's own tests
(its sdist from PyPI, 1.0.0, not autofix's), as a maintainer would meet it (#44).

autofix's pull request restored `second` (master had it return the first item); the reviewer asks
in a thread on it for a behaviour change: `second([1])` should raise IndexError, not StopIteration.
One `autofix action` step on the recorded `pull_request_review` payload goes through the baseline,
the reproduction test, the gate and the commit, then replies on the thread and sums the round up.
As the tests do it: the fake GitHub behind real PyGithub, a bare git origin, real git, the real
sandbox; the model's two replies scripted (the reproduction test, the edit).

Prints the figures (each stage's wall time, from when its log line was written; the tests the
suite counted; the report's own seconds) and the thread reply and the summary as Markdown and as
cmark-gfm renders them (tests/support/gfm.py). Run with `.venv/bin/python benchmarks/review_real.py`.
A step that doesn't pass on attempt 1 is a broken benchmark: it exits non-zero.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

import gfm  # noqa: E402
from action_world import FAST, REPO, TOKEN, World, payload  # noqa: E402
from fake_github import FakeGitHub  # noqa: E402
from fake_openai import Reply, ScriptedOpenAI  # noqa: E402
from sdists import unpacked  # noqa: E402

from bot.github.dispatch import main as action  # noqa: E402
from bot.github.forge import Forge  # noqa: E402

CACHE = ROOT / "out" / "bench-red-ci"  # shared with red_ci.py: one download
SDIST = "toolz-1.0.0"
TARGET = "toolz/itertoolz.py"
COMMAND = f"{sys.executable} -m pytest -q toolz/tests"
BRANCH = "autofix/issue-1"
RIGHT = "    seq = iter(seq)\n    next(seq)\n    return next(seq)\n"
BUG = "    seq = iter(seq)\n    return next(seq)\n"  # master's: the first item
ASKED = (
    "`second([1])` raises StopIteration here, which a generator calling it turns into a RuntimeError "
    "(PEP 479), far from the cause. It should raise IndexError, as `seq[1]` would."
)
REPRODUCES = (
    "```python\nimport pytest\n\n\ndef test_second_of_one_item_raises_index_error():\n"
    "    from toolz import second\n\n    with pytest.raises(IndexError):\n        second([1])\n```"
)
EDIT = (
    f"{TARGET}\n```python\n<<<<<<< SEARCH\n{RIGHT}=======\n    seq = iter(seq)\n    try:\n        next(seq)\n"
    "        return next(seq)\n    except StopIteration:\n"
    '        raise IndexError("second() of a sequence with fewer than two items") from None\n'
    ">>>>>>> REPLACE\n```\n\nthread 1: done\n"
)


class Stamped(io.TextIOBase):
    """stdout with the time each line was written: a stage ends when its line is printed."""

    def __init__(self):
        self.lines: list[tuple[float, str]] = []
        self.partial = ""
        self.started = time.perf_counter()

    def write(self, text: str) -> int:
        self.partial += text
        *done, self.partial = self.partial.split("\n")
        now = time.perf_counter() - self.started
        self.lines += [(now, line) for line in done]
        return len(text)

    def at(self, pattern: str) -> float:
        found = [t for t, line in self.lines if re.search(pattern, line)]
        if not found:
            sys.exit(f"bench-review-real: no log line matched {pattern!r}:\n" + "\n".join(x for _, x in self.lines))
        return found[0]


def files_of(tree: Path) -> dict[str, str]:
    files = {
        str(path.relative_to(tree)): path.read_text(encoding="utf-8")
        for path in sorted(tree.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and ".egg-info" not in str(path)
    }
    if files[TARGET].count(RIGHT) != 1:
        sys.exit(f"bench-review-real: {TARGET} of {SDIST} doesn't hold `second` as expected")
    return files


def plain(tree: Path) -> tuple[float, str]:
    started = time.perf_counter()
    run = subprocess.run([*COMMAND.split(), "-p", "no:cacheprovider"], cwd=tree, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if run.returncode != 0:
        sys.exit(f"bench-review-real: the suite of {SDIST} doesn't pass here:\n{run.stdout[-2000:]}")
    return seconds, run.stdout.strip().splitlines()[-1]


def own_pull(world: World, github: FakeGitHub, fixed: str):
    """autofix's pull request: master with the bug, its branch with `second` as toolz has it."""
    seed = world.seed
    world.git("checkout", "--quiet", "-B", BRANCH, "origin/master", cwd=seed)
    (seed / TARGET).write_text(fixed, encoding="utf-8")
    world.git("commit", "--quiet", "-am", "autofix: second returns the second item (#1)", cwd=seed)
    sha = world.git("rev-parse", "HEAD", cwd=seed)
    hunk = world.git("diff", "-U3", "origin/master", BRANCH, "--", TARGET, cwd=seed).split("\n@@", 1)[1]
    world.git("push", "--quiet", "origin", BRANCH, cwd=seed)
    world.git("checkout", "--quiet", "master", cwd=seed)
    github.add_branch(REPO, BRANCH, sha=sha)
    body = "<!-- autofix:issue-1 -->\n\n✅ autofix fixed #1: `second` returns the second item again."
    pull = github.add_pull(REPO, head=BRANCH, base="master", title="Fix second returns the first item",
                           body=body, user="github-actions[bot]")  # fmt: skip
    return pull, "@@" + hunk


def review_event(pull, review) -> dict:
    """The recorded `pull_request_review` `submitted` payload, made this review of `pull`."""
    event = payload("pull_request_review.submitted.changes-requested")
    event["review"].update(id=review.id, state="changes_requested", body=review.body, commit_id=pull.head_sha)
    event["review"]["user"].update(login=review.user, type="User")
    event["sender"].update(login=review.user, type="User")
    p = event["pull_request"]
    p.update(number=pull.number, body=pull.body, title=pull.title, user={"login": pull.user, "type": "Bot"})
    p["head"].update(ref=pull.head_ref, sha=pull.head_sha)
    p["head"]["repo"].update(full_name=REPO, name=REPO.split("/")[1])
    p["base"]["repo"].update(full_name=REPO)
    event["repository"].update(full_name=REPO)
    return event


def shown(title: str, markdown: str) -> str:
    page = gfm.read(markdown)
    said = "\n".join(f"    {p}" for p in page.paragraphs)
    return f"### {title}\n\nAs written (Markdown):\n\n{fence(markdown)}\n\nAs rendered, its paragraphs:\n\n{said}\n"


def fence(text: str) -> str:
    return f"````markdown\n{text}\n````"


def main() -> None:
    tree = unpacked("toolz==1.0.0", SDIST, CACHE)
    files = files_of(tree)
    plain(tree)  # warms the page cache
    plain_seconds, plain_line = plain(tree)
    config = f"tests:\n  command: {COMMAND}\nmax_attempts: 2\n"
    with (
        tempfile.TemporaryDirectory(prefix="bench-review-real-") as scratch,
        FakeGitHub() as github,
        pytest.MonkeyPatch.context() as patch,
    ):
        world = World(Path(scratch), patch, github)
        fixed = files[TARGET]
        world.commit_to_origin({**files, TARGET: fixed.replace(RIGHT, BUG), ".github/autofix.yml": config})
        pull, hunk = own_pull(world, github, fixed)
        anchored = fixed[: fixed.index(RIGHT) + len(RIGHT)].count("\n")  # the line of `return next(seq)`
        comment = {"path": TARGET, "line": anchored, "body": ASKED, "diff_hunk": hunk}
        review = github.add_review(REPO, pull.number, user="Codertocat", body="One thing", comments=[comment])
        world.event("pull_request_review", review_event(pull, review))
        out = Stamped()
        replies = {"reproduce": [Reply(REPRODUCES)], "review": [Reply(EDIT)]}
        with ScriptedOpenAI(replies) as openai, contextlib.redirect_stdout(out):  # type: ignore[type-var]
            for name, value in {**world.inputs, "base-url": openai.base_url}.items():
                world.input(name, value)
            code = action(os.environ, forge=Forge(github.api_url, TOKEN, REPO, FAST))
            asked, prompts = openai.stages(), openai.prompts()
        ended = time.perf_counter() - out.started
        log = [line for _, line in out.lines]
        written = sorted(world.out.glob("*.json")) if world.out.is_dir() else []
        report = json.loads(written[0].read_text()) if len(written) == 1 else {"attempts": []}
        if code != 0 or [a["passed"] for a in report["attempts"]] != [True]:
            sys.exit(
                f"bench-review-real: the step should pass on attempt 1; it exited {code}, the model asked "
                f"for {asked}; its last prompt ended:\n{prompts[-1][-3000:] if prompts else ''}\n" + "\n".join(log)
            )
        [thread] = github.review_threads(REPO, pull.number)
        reply = github.review_comments_by_id[thread.comments[-1]].body
        [summary] = github.comments(REPO, pull.number)
        head = world.show(BRANCH)
        changed = world.git("diff", "--stat", pull.head_sha, head, cwd=world.origin)
        diff = world.git("diff", pull.head_sha, head, "--", TARGET, cwd=world.origin)
    marks = {
        "baseline (the whole suite at the branch's head, measured)": out.at(r"^autofix: baseline: "),
        "reproduction (the model's test run alone, failing)": out.at(r"^autofix: reproduce: "),
        "gate (the edit judged: the whole suite, its confirmation, the proof's mutants)": out.at(
            r"^::group::attempt 1/"
        ),
        "commit and push": out.at(r"^autofix: pushed "),
        "the thread's reply, its resolution, the summary": ended,
    }
    started = out.at(r"^autofix: pull request #\d+, review ")
    print(f"toolz 1.0.0 ({SDIST} from PyPI), `{COMMAND}`; cores: {len(os.sched_getaffinity(0))}")
    print(f"plain suite run, no sandbox: {plain_seconds:.2f} s ({plain_line})")
    print(f"step: exit {code}, {ended:.2f} s wall in all; from the review's first log line:")
    before = started
    for stage, at in marks.items():
        print(f"  {stage}: {at - before:.2f} s")
        before = at
    print("the report's own figures: " + json.dumps({
        "reproduce stage seconds": round(report["stages"]["reproduce"]["seconds"], 2),
        "attempt seconds": report["attempts"][0]["seconds"],
        "attempt test seconds": report["attempts"][0]["test_seconds"],
        "strength": report["strength"] and {k: report["strength"][k] for k in ("killed", "total")},
    }))  # fmt: skip
    print("log lines:\n" + "\n".join(f"  {line}" for line in log if line.startswith("autofix: ")))
    print(f"\nthe commit on {BRANCH}:\n{changed}\n\n{diff}\n")
    print(f"thread resolved: {thread.resolved}; comments in it: {len(thread.comments)}\n")
    print(shown("The thread's reply", reply))
    print(shown("The summary comment", summary.body))


if __name__ == "__main__":
    main()
