"""The pictures in the docs (docs/images/*.png) are of what autofix really writes: this test runs
the issue flow twice through `autofix action` (a pull request after one failed attempt; a failure
comment after three) and compares the Markdown GitHub got with docs/images/*.md, which
`make pictures` rewrites and screenshots (tests/support/pictures.py). What changes from run to run
is made fixed: the fake GitHub's address is GitHub's, the measured seconds and the sandbox's
description are those of one run on this project's machine, the tokens are the scripted replies'."""

import os
import re
from pathlib import Path

from action_world import REPO, act, labeled
from conftest import RIGHT, WRONG
from fake_openai import Reply
from pictures import TITLES

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
RUN = 9041
SANDBOX = "bwrap (no network, a dedicated uid per run, read-only system)"
EXPLAINED = (
    "`list(set(items))` loses the order. `dict.fromkeys` keeps the first of each item, in the order it came.\n\n"
    + RIGHT
)


def fixed(markdown: str, web_url: str) -> str:
    """`markdown` with what differs between two runs made the same."""
    seconds = iter(["2.61", "0.97", "0.55", "0.02", "0.01"])
    markdown = markdown.replace(web_url, "https://github.com")
    markdown = re.sub(
        r"(?m)^(\| \d+ \| [^|]+ \| [^|]+ \| )\d+\.\d\d( \|)", lambda m: m[1] + next(seconds) + m[2], markdown
    )
    markdown = re.sub(r"\*\*Sandbox:\*\* [^·]+ ·", f"**Sandbox:** {SANDBOX} ·", markdown)
    return re.sub(r"(\*\*Total:\*\* [^\n]*?), \d+\.\d\d s", r"\1, 3.58 s", markdown)


def same_as_committed(name: str, markdown: str) -> None:
    path = IMAGES / f"{name}.md"
    if os.environ.get("AUTOFIX_PICTURES") == "write":
        path.write_text(markdown)
    assert path.read_text() == markdown, f"{path} is not what autofix writes now: run make pictures"


def test_the_pull_request_picture_is_what_autofix_writes(world, github, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_RUN_ID", str(RUN))
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [Reply(WRONG, 120, 40), Reply(EXPLAINED, 260, 70)])
    assert code == 0, "\n".join(out)
    [pull] = github.pulls(REPO)
    assert f"{pull.title} #{pull.number}" == TITLES["pull-request"]  # the picture's heading
    same_as_committed("pull-request", fixed(pull.body, github.web_url))


def test_the_failure_comment_picture_is_what_autofix_writes(world, github, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_RUN_ID", str(RUN))
    world.event("issues", labeled())
    # three different codes, each losing the order the same way
    wrongs = [WRONG.replace("(items))", f"(items))  # try {n}") for n in (1, 2, 3)]
    code, out, _ = act(capsys, world, [Reply(wrong, 120 + 60 * n, 40) for n, wrong in enumerate(wrongs)])
    assert code == 1, "\n".join(out)
    [comment] = github.comments(REPO, 1)
    same_as_committed("failure-comment", fixed(comment.body, github.web_url))
